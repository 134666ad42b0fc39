// SPDX-License-Identifier: GPL-2.0
/* mkfs --rootdir: what copying a directory tree will take (see mkfs-layout.h). */
#include <stdio.h>
#include <dirent.h>
#include <limits.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include "mkfs/rootdir-internal.h"
#include "kernel-shared/format/messages.h"

struct size_walk {
	u32 sectorsize;
	u64 data;
	u64 meta;
};

/* Add up the contents of directory dfd (taken over and closed; path in messages), not following symlinks. */
static int size_tree(int dfd, const char *path, struct size_walk *w, int depth)
{
	struct dirent *de;
	int ret = 0;
	DIR *d = rootdir_open_dir_stream(dfd, path, &ret);

	if (!d)
		return ret;
	while (!ret && (de = readdir(d))) {
		struct stat st;
		size_t name = strlen(de->d_name);

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = -errno;
			error_errno(ret, "cannot stat %s/%s", path, de->d_name);
			break;
		}
		if (S_ISREG(st.st_mode))
			w->data += round_up((u64)st.st_size, (u64)w->sectorsize);
		/* inode item, inode ref, dir item and index, inline data or extent items */
		w->meta += 4 * (name + 64) + 200 + (S_ISREG(st.st_mode) ? min_t(u64, st.st_size, 2048) : 0);
		if (S_ISDIR(st.st_mode)) {
			char child[PATH_MAX];
			int fd;

			if (depth > 4096) {
				ret = -ELOOP;
				break;
			}
			if (snprintf(child, sizeof(child), "%s/%s", path, de->d_name) >= (int)sizeof(child)) {
				ret = -ENAMETOOLONG;
				break;
			}
			fd = rootdir_open_child(dirfd(d), de->d_name, child, true);
			ret = fd < 0 ? fd : size_tree(fd, child, w, depth + 1);
		}
	}
	closedir(d);
	return ret;
}

int mkfs_rootdir_estimate(const char *dir, u32 sectorsize, u64 *data_bytes, u64 *meta_bytes)
{
	struct size_walk w = { .sectorsize = sectorsize };
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret;

	if (fd < 0) {
		ret = -errno;
		error_errno(ret, "cannot open directory %s", dir);
		return ret;
	}
	ret = size_tree(fd, dir, &w, 1);
	if (ret < 0)
		return ret;
	/* Checksums: at most 32 bytes per sector. */
	w.meta += w.data / sectorsize * 32;
	*data_bytes = w.data;
	*meta_bytes = w.meta;
	return 0;
}
