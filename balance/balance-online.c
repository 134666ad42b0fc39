// SPDX-License-Identifier: GPL-2.0
/* Balance of a mounted filesystem: opening, layout via ioctls, dumps (see balance-online.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <limits.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/ioctl.h>
#include "balance/balance-online.h"
#include "kernel-shared/format/accessors.h"
#include "kernel-shared/format/messages.h"
#include "kernel-shared/format/growable-array.h"

/* Does the file or device at path carry a btrfs primary superblock? */
static bool has_btrfs_super(const char *path)
{
	u8 magic[8];
	int fd = open(path, O_RDONLY);
	bool ret;

	if (fd < 0)
		return false;
	ret = pread(fd, magic, sizeof(magic), BTRFS_SUPER_INFO_OFFSET + 64) == (ssize_t)sizeof(magic) &&
	      get_unaligned_le64(magic) == BTRFS_MAGIC;
	close(fd);
	return ret;
}

/* Undo the octal escapes of /proc/self/mounts (\040 for a space) in place. */
static void unescape_mount_field(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = 0;
}

/* Mount point of a btrfs whose source device has this rdev; false if none. */
static bool find_mount_of_rdev(dev_t rdev, char *mnt, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char line[PATH_MAX * 2 + 256];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char src[PATH_MAX], dir[PATH_MAX], type[64];
		struct stat st;

		if (sscanf(line, "%4095s %4095s %63s", src, dir, type) != 3 || strcmp(type, "btrfs"))
			continue;
		unescape_mount_field(src);
		unescape_mount_field(dir);
		if (stat(src, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == rdev) {
			snprintf(mnt, len, "%s", dir);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* For an image file: the mount point of a loop device backed by it. */
static bool find_mount_of_image(const char *path, char *mnt, size_t len)
{
	char real[PATH_MAX], p[PATH_MAX], back[PATH_MAX];
	DIR *d;
	struct dirent *de;
	bool found = false;

	if (!realpath(path, real))
		return false;
	d = opendir("/sys/block");
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		FILE *f;
		struct stat st;
		char devpath[PATH_MAX];

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", de->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fgets(back, sizeof(back), f)) {
			back[strcspn(back, "\n")] = 0;
			snprintf(devpath, sizeof(devpath), "/dev/%s", de->d_name);
			if (!strcmp(back, real) && stat(devpath, &st) == 0)
				found = find_mount_of_rdev(st.st_rdev, mnt, len);
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

bool btrfs_balance_is_unmounted_btrfs(const char *path)
{
	struct stat st;
	char mnt[PATH_MAX];

	if (stat(path, &st) < 0 || !(S_ISBLK(st.st_mode) || S_ISREG(st.st_mode)))
		return false;
	if (S_ISBLK(st.st_mode) ? find_mount_of_rdev(st.st_rdev, mnt, sizeof(mnt)) :
				  find_mount_of_image(path, mnt, sizeof(mnt)))
		return false;
	return has_btrfs_super(path);
}

int btrfs_balance_open_mount(const char *path)
{
	struct stat st;
	struct statfs sfs;
	char mnt[PATH_MAX];
	int fd;

	if (stat(path, &st) < 0) {
		int err = errno;

		error("cannot access '%s': %s", path, strerror(err));
		return -err;
	}
	if (S_ISBLK(st.st_mode) || S_ISREG(st.st_mode)) {
		bool mounted = S_ISBLK(st.st_mode) ? find_mount_of_rdev(st.st_rdev, mnt, sizeof(mnt)) :
						     find_mount_of_image(path, mnt, sizeof(mnt));

		if (mounted) {
			error("'%s' is a device of the btrfs mounted at '%s': give the mount point", path, mnt);
			return -ENOTDIR;
		}
		if (has_btrfs_super(path)) {
			error("'%s' is an unmounted btrfs filesystem: only 'btrfs balance start' with convert filters works on it offline; mount it for the rest",
			      path);
			return -EOPNOTSUPP;
		}
		error("not a btrfs filesystem: %s", path);
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		error("not a directory: %s", path);
		return -ENOTDIR;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		int err = errno;

		error("cannot open '%s': %s", path, strerror(err));
		return -err;
	}
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != BTRFS_SUPER_MAGIC_STATFS) {
		error("not a btrfs filesystem: %s", path);
		close(fd);
		return -EINVAL;
	}
	return fd;
}

#define SEARCH_BUF_SIZE (64 * 1024)

/*
 * Call fn for every item with key in [(objectid, type, min_off), (objectid,
 * type, max_off)] of tree.  fn gets the header and the item bytes (len
 * checked to be inside the buffer) and returns 0 to go on, < 0 to stop.
 */
typedef int (*search_fn)(const struct btrfs_ioctl_search_header *sh, const u8 *item, void *ctx);

static int tree_search(int fd, u64 tree, u64 objectid, u32 type, u64 min_off, u64 max_off,
		       search_fn fn, void *ctx)
{
	struct btrfs_ioctl_search_args_v2 *args;
	int ret = 0;

	args = calloc(1, sizeof(*args) + SEARCH_BUF_SIZE);
	if (!args) {
		error("not enough memory");
		return -ENOMEM;
	}
	for (;;) {
		struct btrfs_ioctl_search_key *sk = &args->key;
		size_t pos = 0;
		u64 last = 0;

		memset(sk, 0, sizeof(*sk));
		sk->tree_id = tree;
		sk->min_objectid = sk->max_objectid = objectid;
		sk->min_type = sk->max_type = type;
		sk->min_offset = min_off;
		sk->max_offset = max_off;
		sk->max_transid = (u64)-1;
		sk->nr_items = 4096;
		args->buf_size = SEARCH_BUF_SIZE;
		if (ioctl(fd, BTRFS_IOC_TREE_SEARCH_V2, args) < 0) {
			ret = -errno;
			error_errno(ret, "cannot search tree %llu", tree);
			break;
		}
		if (sk->nr_items == 0)
			break;
		for (u32 i = 0; i < sk->nr_items; i++) {
			struct btrfs_ioctl_search_header sh;

			if (pos + sizeof(sh) > SEARCH_BUF_SIZE) {
				error("tree search result overruns its buffer");
				ret = -EUCLEAN;
				goto out;
			}
			memcpy(&sh, args->buf + pos, sizeof(sh));
			pos += sizeof(sh);
			if (sh.len > SEARCH_BUF_SIZE - pos) {
				error("tree search item of %u bytes overruns its buffer", sh.len);
				ret = -EUCLEAN;
				goto out;
			}
			ret = fn(&sh, args->buf + pos, ctx);
			if (ret)
				goto out;
			pos += sh.len;
			last = sh.offset;
		}
		if (last >= max_off)
			break;
		min_off = last + 1;
	}
out:
	free(args);
	return ret < 0 ? ret : 0;
}

struct chunk_collect {
	struct btrfs_online_layout *ol;
	size_t alloc_chunks, alloc_stripes;
};

static int collect_chunk(const struct btrfs_ioctl_search_header *sh, const u8 *item, void *ctx)
{
	struct chunk_collect *cc = ctx;
	struct btrfs_online_layout *ol = cc->ol;
	const struct btrfs_chunk *chunk = (const struct btrfs_chunk *)item;
	struct btrfs_balance_chunk *c;
	u16 n;

	if (sh->type != BTRFS_CHUNK_ITEM_KEY)
		return 0;
	if (sh->len < sizeof(struct btrfs_chunk)) {
		error("chunk item at %llu too short: %u bytes", sh->offset, sh->len);
		return -EUCLEAN;
	}
	n = btrfs_chunk_num_stripes(chunk);
	if (n == 0 || sh->len != btrfs_chunk_item_size(n)) {
		error("chunk item at %llu: %u stripes do not fill its %u bytes", sh->offset, n, sh->len);
		return -EUCLEAN;
	}
	if (ARRAY_GROW(ol->chunks, ol->nr_chunks, cc->alloc_chunks) ||
	    ARRAY_RESERVE(ol->stripes, cc->alloc_stripes, (size_t)ol->nr_stripes + n))
		return -ENOMEM;
	c = &ol->chunks[ol->nr_chunks++];
	memset(c, 0, sizeof(*c));
	c->logical = sh->offset;
	c->length = btrfs_chunk_length(chunk);
	c->type = btrfs_chunk_type(chunk);
	c->num_stripes = n;
	/* Stripes are linked after the whole scan: the array may still move. */
	c->stripes = (struct btrfs_balance_stripe *)(uintptr_t)ol->nr_stripes;
	for (u16 i = 0; i < n; i++) {
		const struct btrfs_stripe *s = &chunk->stripe[i];

		ol->stripes[ol->nr_stripes].devid = btrfs_stripe_devid(s);
		ol->stripes[ol->nr_stripes].physical = btrfs_stripe_offset(s);
		ol->nr_stripes++;
	}
	return 0;
}

static int collect_used(const struct btrfs_ioctl_search_header *sh, const u8 *item, void *ctx)
{
	u64 *used = ctx;

	if (sh->type != BTRFS_BLOCK_GROUP_ITEM_KEY || sh->len < sizeof(struct btrfs_block_group_item))
		return 0;
	*used = btrfs_block_group_used((const struct btrfs_block_group_item *)item);
	return 1;
}

/* The used bytes of the block group of chunk c; tree is where block groups live. */
static int block_group_used(int fd, u64 *tree, const struct btrfs_balance_chunk *c, u64 *used)
{
	u64 trees[2] = { BTRFS_EXTENT_TREE_OBJECTID, BTRFS_BLOCK_GROUP_TREE_OBJECTID };

	for (int pass = 0; pass < 2; pass++) {
		u64 t = *tree ? *tree : trees[pass];
		u64 v = (u64)-1;
		int ret = tree_search(fd, t, c->logical, BTRFS_BLOCK_GROUP_ITEM_KEY, c->length, c->length,
				      collect_used, &v);

		if (ret < 0 && ret != -ENOENT)
			return ret;
		if (v != (u64)-1) {
			*tree = t;
			*used = v;
			return 0;
		}
		if (*tree)
			break;
	}
	error("no block group item for the chunk at %llu", c->logical);
	return -EUCLEAN;
}

int btrfs_online_read_layout(int fd, struct btrfs_online_layout *ol)
{
	struct btrfs_ioctl_fs_info_args fi;
	struct chunk_collect cc = { .ol = ol };
	u64 bg_tree = 0;
	int ret;

	memset(ol, 0, sizeof(*ol));
	memset(&fi, 0, sizeof(fi));
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi) < 0) {
		ret = -errno;
		error_errno(ret, "cannot get filesystem info");
		return ret;
	}
	memcpy(ol->fsid, fi.fsid, sizeof(ol->fsid));
	ol->devs = calloc(fi.num_devices + 1, sizeof(*ol->devs));
	if (!ol->devs)
		return -ENOMEM;
	for (u64 id = 1; id <= fi.max_id && ol->nr_devs < fi.num_devices; id++) {
		struct btrfs_ioctl_dev_info_args *di = calloc(1, sizeof(*di));

		if (!di)
			return -ENOMEM;
		di->devid = id;
		if (ioctl(fd, BTRFS_IOC_DEV_INFO, di) < 0) {
			ret = -errno;
			free(di);
			if (ret == -ENODEV)
				continue;
			error_errno(ret, "cannot get info of device %llu", id);
			return ret;
		}
		ol->devs[ol->nr_devs].devid = di->devid;
		ol->devs[ol->nr_devs].total_bytes = di->total_bytes;
		ol->devs[ol->nr_devs].allocated = di->bytes_used;
		ol->nr_devs++;
		free(di);
	}

	ret = tree_search(fd, BTRFS_CHUNK_TREE_OBJECTID, BTRFS_FIRST_CHUNK_TREE_OBJECTID,
			  BTRFS_CHUNK_ITEM_KEY, 0, (u64)-1, collect_chunk, &cc);
	if (ret < 0) {
		if (ret == -ENOMEM)
			error("not enough memory");
		return ret;
	}
	for (size_t i = 0; i < ol->nr_chunks; i++) {
		struct btrfs_balance_chunk *c = &ol->chunks[i];

		c->stripes = ol->stripes + (uintptr_t)c->stripes;
		ret = block_group_used(fd, &bg_tree, c, &c->used);
		if (ret < 0)
			return ret;
	}
	ol->layout.chunks = ol->chunks;
	ol->layout.nr_chunks = ol->nr_chunks;
	ol->layout.devs = ol->devs;
	ol->layout.nr_devs = ol->nr_devs;
	return 0;
}

void btrfs_online_layout_release(struct btrfs_online_layout *ol)
{
	free(ol->chunks);
	free(ol->stripes);
	free(ol->devs);
	memset(ol, 0, sizeof(*ol));
}

static void print_range_u32(FILE *out, u32 start, u32 end)
{
	if (start)
		fprintf(out, "%u", start);
	fputs("..", out);
	if (end != (u32)-1)
		fprintf(out, "%u", end);
}

static void dump_one(FILE *out, const struct btrfs_balance_args *a)
{
	if (a->flags & BTRFS_BALANCE_ARGS_CONVERT)
		fprintf(out, "converting, target=%llu, soft is %s", a->target,
			(a->flags & BTRFS_BALANCE_ARGS_SOFT) ? "on" : "off");
	else
		fputs("balancing", out);
	if (a->flags & BTRFS_BALANCE_ARGS_PROFILES)
		fprintf(out, ", profiles=%llu", a->profiles);
	if (a->flags & BTRFS_BALANCE_ARGS_USAGE)
		fprintf(out, ", usage=%llu", a->usage);
	if (a->flags & BTRFS_BALANCE_ARGS_USAGE_RANGE) {
		fputs(", usage=", out);
		print_range_u32(out, a->usage_min, a->usage_max);
	}
	if (a->flags & BTRFS_BALANCE_ARGS_DEVID)
		fprintf(out, ", devid=%llu", a->devid);
	if (a->flags & BTRFS_BALANCE_ARGS_DRANGE)
		fprintf(out, ", drange=%llu..%llu", a->pstart, a->pend);
	if (a->flags & BTRFS_BALANCE_ARGS_VRANGE)
		fprintf(out, ", vrange=%llu..%llu", a->vstart, a->vend);
	if (a->flags & BTRFS_BALANCE_ARGS_LIMIT)
		fprintf(out, ", limit=%llu", a->limit);
	if (a->flags & BTRFS_BALANCE_ARGS_LIMIT_RANGE) {
		fputs(", limit=", out);
		print_range_u32(out, a->limit_min, a->limit_max);
	}
	if (a->flags & BTRFS_BALANCE_ARGS_STRIPES_RANGE) {
		fputs(", stripes=", out);
		print_range_u32(out, a->stripes_min, a->stripes_max);
	}
	fputc('\n', out);
}

void btrfs_balance_dump_args(FILE *out, const struct btrfs_ioctl_balance_args *args)
{
	static const struct {
		u64 flag;
		const char *name;
		size_t off;
	} kinds[] = {
		{ BTRFS_BALANCE_DATA, "DATA", offsetof(struct btrfs_ioctl_balance_args, data) },
		{ BTRFS_BALANCE_METADATA, "METADATA", offsetof(struct btrfs_ioctl_balance_args, meta) },
		{ BTRFS_BALANCE_SYSTEM, "SYSTEM", offsetof(struct btrfs_ioctl_balance_args, sys) },
	};

	fprintf(out, "Dumping filters: flags 0x%llx, state 0x%llx, force is %s\n", args->flags,
		args->state, (args->flags & BTRFS_BALANCE_FORCE) ? "on" : "off");
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		const struct btrfs_balance_args *a =
			(const struct btrfs_balance_args *)((const char *)args + kinds[i].off);

		if (!(args->flags & kinds[i].flag))
			continue;
		fprintf(out, "  %s (flags 0x%llx): ", kinds[i].name, a->flags);
		dump_one(out, a);
	}
}

const char *btrfs_balance_size_str(u64 bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024.0 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, "%.2f%s", v, units[u]);
	return buf;
}

bool btrfs_exclusive_operation(int fd, char *buf, size_t len)
{
	struct btrfs_ioctl_fs_info_args fi;
	char path[128];
	FILE *f;
	const u8 *u = fi.fsid;
	bool ok;

	memset(&fi, 0, sizeof(fi));
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi) < 0)
		return false;
	snprintf(path, sizeof(path),
		 "/sys/fs/btrfs/%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x/exclusive_operation",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok;
}
