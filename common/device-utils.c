// SPDX-License-Identifier: GPL-2.0
/*
 * Device preparation for mkfs; see device-utils.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <linux/fs.h>
#include <blkid.h>
#include "common/device-utils.h"
#include "kernel-shared/format/format.h"
#include "kernel-shared/read/volumes.h"
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/format/messages.h"

int target_open(struct target_device *t, const char *path, u64 create_size)
{
	struct stat st;
	int flags = O_RDWR;

	memset(t, 0, sizeof(*t));
	t->path = path;
	t->fd = -1;
	if (stat(path, &st) < 0) {
		if (errno != ENOENT || !create_size) {
			error_errno(-errno, "cannot open %s", path);
			return -errno;
		}
		t->fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
		if (t->fd < 0) {
			error_errno(-errno, "cannot create %s", path);
			return -errno;
		}
		t->created = true;
		if (ftruncate(t->fd, create_size) < 0) {
			int ret = -errno;

			error_errno(ret, "cannot size %s to %llu bytes", path, (unsigned long long)create_size);
			close(t->fd);
			unlink(path);
			t->fd = -1;
			return ret;
		}
		t->size = create_size;
		return 0;
	}
	if (S_ISBLK(st.st_mode)) {
		t->is_blockdev = true;
		flags |= O_EXCL;
	} else if (!S_ISREG(st.st_mode)) {
		error("%s is neither a block device nor a regular file", path);
		return -EINVAL;
	}
	t->fd = open(path, flags);
	if (t->fd < 0) {
		int ret = -errno;

		if (ret == -EBUSY)
			error("%s is in use (mounted, or held by another program)", path);
		else
			error_errno(ret, "cannot open %s", path);
		return ret;
	}
	t->size = btrfs_device_fd_size(t->fd);
	return 0;
}

void target_close(struct target_device *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

int target_probe_signature(const char *path, char *type, size_t typelen)
{
	blkid_probe pr;
	const char *val = NULL;
	int ret;

	pr = blkid_new_probe_from_filename(path);
	if (!pr)
		return 0;   /* unreadable here: open() reports it */
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	ret = blkid_do_fullprobe(pr);
	if (ret == 0) {
		if (!blkid_probe_lookup_value(pr, "TYPE", &val, NULL) ||
		    !blkid_probe_lookup_value(pr, "PTTYPE", &val, NULL)) {
			snprintf(type, typelen, "%s", val);
			ret = 1;
		} else {
			snprintf(type, typelen, "unknown");
			ret = 1;
		}
	} else if (ret == -2) {
		snprintf(type, typelen, "ambivalent result: several signatures");
		ret = 1;
	} else {
		ret = 0;
	}
	blkid_free_probe(pr);
	return ret;
}

/* A mountinfo line's superblock options ("... - fstype source superopts") say read-only. */
static bool mountinfo_super_ro(const char *line)
{
	const char *sep = strstr(line, " - ");
	char opts[64] = "";

	return sep && sscanf(sep + 3, "%*s %*s %63s", opts) == 1 && !strncmp(opts, "ro", 2) &&
	       (!opts[2] || opts[2] == ',');
}

/* The block device rdev is a member of the btrfs /sys/fs/btrfs/FSID (its devices/NAME). */
static bool fsid_has_dev(const char *fsid, dev_t rdev)
{
	char path[PATH_MAX];
	bool found = false;
	struct dirent *e;
	DIR *dd;

	snprintf(path, sizeof(path), "/sys/fs/btrfs/%s/devices", fsid);
	dd = opendir(path);
	if (!dd)
		return false;
	while (!found && (e = readdir(dd))) {
		char devpath[PATH_MAX + 300];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(devpath, sizeof(devpath), "/dev/%s", e->d_name);
		if (stat(devpath, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == rdev)
			found = true;
	}
	closedir(dd);
	return found;
}

/*
 * Mounts in mountinfo of the device rdev (by the line's major:minor), or with
 * fsid set, of the btrfs FSID (a btrfs line whose source device is one of its
 * members).  Returns how many; *writable set when one is not read-only.
 */
static int mountinfo_mounts(dev_t rdev, const char *fsid, bool *writable)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		char fstype[32], source[PATH_MAX];
		const char *sep = strstr(line, " - ");
		struct stat st;
		bool match;

		if (!fsid) {
			match = sscanf(line, "%*u %*u %u:%u", &maj, &min) == 2 && makedev(maj, min) == rdev;
		} else {
			match = sep && sscanf(sep + 3, "%31s %4095s", fstype, source) == 2 &&
				!strcmp(fstype, "btrfs") && stat(source, &st) == 0 && S_ISBLK(st.st_mode) &&
				fsid_has_dev(fsid, st.st_rdev);
		}
		if (!match)
			continue;
		n++;
		if (!mountinfo_super_ro(line))
			*writable = true;
	}
	fclose(f);
	return n;
}

/*
 * Devices (major:minor) of the block devices that are mounted or in a mounted
 * btrfs (/sys/fs/btrfs/FSID/devices/NAME).  *writable: false only when every
 * mount found is read-only (superblock options "ro"); a btrfs member whose
 * mount is not found in mountinfo counts as writable.
 */
static bool devnum_in_use(dev_t rdev, bool *writable)
{
	bool found = false;
	struct dirent *de;
	DIR *d;

	if (mountinfo_mounts(rdev, NULL, writable))
		return true;
	d = opendir("/sys/fs/btrfs");
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) != 36 || !fsid_has_dev(de->d_name, rdev))
			continue;
		found = true;
		if (!mountinfo_mounts(rdev, de->d_name, writable))
			*writable = true;
	}
	closedir(d);
	return found;
}

int target_mount_state(const char *path)
{
	bool writable = false;
	struct stat st;
	char real[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (stat(path, &st) < 0)
		return 0;
	if (S_ISBLK(st.st_mode))
		return !devnum_in_use(st.st_rdev, &writable) ? 0 :
		       writable ? TARGET_MOUNTED_RW : TARGET_MOUNTED_RO;
	if (!S_ISREG(st.st_mode) || !realpath(path, real))
		return 0;
	/* An image file: mounted through a loop device backed by it. */
	d = opendir("/sys/block");
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		char bf[PATH_MAX + 300], backing[PATH_MAX], devpath[PATH_MAX + 300];
		struct stat ls;
		FILE *f;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(bf, sizeof(bf), "/sys/block/%s/loop/backing_file", de->d_name);
		f = fopen(bf, "r");
		if (!f)
			continue;
		if (fgets(backing, sizeof(backing), f)) {
			backing[strcspn(backing, "\n")] = 0;
			snprintf(devpath, sizeof(devpath), "/dev/%s", de->d_name);
			if (!strcmp(backing, real) && stat(devpath, &ls) == 0 &&
			    devnum_in_use(ls.st_rdev, &writable))
				ret = writable ? TARGET_MOUNTED_RW : TARGET_MOUNTED_RO;
		}
		fclose(f);
	}
	closedir(d);
	return ret;
}

int target_is_mounted(const char *path)
{
	return target_mount_state(path) ? 1 : 0;
}

bool target_same(const struct target_device *a, const struct target_device *b)
{
	struct stat sa, sb;

	if (fstat(a->fd, &sa) < 0 || fstat(b->fd, &sb) < 0)
		return false;
	if (S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode))
		return sa.st_rdev == sb.st_rdev;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void target_discard(struct target_device *t, u64 len)
{
	u64 range[2] = { 0, len };

	if (!t->is_blockdev)
		return;
	/* Best effort: many devices cannot discard. */
	if (ioctl(t->fd, BLKDISCARD, range) < 0)
		return;
}

static int zero_range(struct target_device *t, u64 off, u64 len)
{
	int ret = btrfs_dev_zero(t->write_log, t->fd, off, len, !t->is_blockdev);

	if (ret < 0)
		error_errno(ret, "cannot clear %s at %llu", t->path, (unsigned long long)off);
	return ret;
}

int target_wipe(struct target_device *t, u64 len)
{
	u64 edge = min_t(u64, len, SZ_1M);
	int ret;

	ret = zero_range(t, 0, edge);
	if (!ret && len > SZ_1M)
		ret = zero_range(t, len - edge, edge);
	for (int m = 1; !ret && m < BTRFS_SUPER_MIRROR_MAX; m++) {
		u64 off = btrfs_sb_offset(m);

		if (off + BTRFS_SUPER_INFO_SIZE <= len)
			ret = zero_range(t, off, BTRFS_SUPER_INFO_SIZE);
	}
	return ret;
}
