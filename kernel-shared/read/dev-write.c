// SPDX-License-Identifier: GPL-2.0
/* Device writes, zeroing and flushes, and the write log; see dev-write.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <linux/fs.h>
#include "kernel-shared/read/dev-write.h"
#include "kernel-shared/format/messages.h"

#define WRITE_LOG_ENV "BTRFS_KIT_WRITE_LOG"

struct btrfs_write_log {
	int fd;
};

#define WRITE_LOG_HEADER 24            /* tag, path length, offset, length */

int btrfs_write_log_open(struct btrfs_write_log **out)
{
	const char *path = getenv(WRITE_LOG_ENV);
	struct btrfs_write_log *log;

	*out = NULL;
	if (!path || !*path)
		return 0;
	log = malloc(sizeof(*log));
	if (!log)
		return -ENOMEM;
	log->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log->fd < 0) {
		int ret = -errno;

		error_errno(ret, "cannot open the write log %s (%s)", path, WRITE_LOG_ENV);
		free(log);
		return ret;
	}
	*out = log;
	return 0;
}

void btrfs_write_log_close(struct btrfs_write_log *log)
{
	if (!log)
		return;
	close(log->fd);
	free(log);
}

/* One record in one append; a log that cannot be written fails the device write. */
static int log_record(struct btrfs_write_log *log, const char *tag, int fd, u64 offset, u64 len,
		      const void *buf)
{
	u8 h[WRITE_LOG_HEADER];
	char link[64], path[4096];
	struct iovec iov[3];
	ssize_t plen, want;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	plen = readlink(link, path, sizeof(path));
	if (plen < 0)
		return -errno;
	memcpy(h, tag, 4);
	put_unaligned_le32((u32)plen, h + 4);
	put_unaligned_le64(offset, h + 8);
	put_unaligned_le64(len, h + 16);
	iov[0] = (struct iovec){ h, sizeof(h) };
	iov[1] = (struct iovec){ path, (size_t)plen };
	iov[2] = (struct iovec){ (void *)buf, buf ? (size_t)len : 0 };
	want = (ssize_t)(sizeof(h) + (size_t)plen + iov[2].iov_len);
	if (writev(log->fd, iov, 3) != want)
		return -EIO;
	return 0;
}

int btrfs_dev_write(struct btrfs_write_log *log, int fd, const void *buf, size_t len, u64 offset)
{
	const u8 *p = buf;
	size_t done = 0;

	if (log) {
		int ret = log_record(log, "WRIT", fd, offset, len, buf);

		if (ret < 0)
			return ret;
	}
	while (done < len) {
		ssize_t n = pwrite(fd, p + done, len - done, (off_t)(offset + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENOSPC;
		done += (size_t)n;
	}
	return 0;
}

int btrfs_dev_clone(struct btrfs_write_log *log, int fd, int src_fd, u64 src_offset, const void *buf,
		    size_t len, u64 offset)
{
	struct file_clone_range range = {
		.src_fd = src_fd, .src_offset = src_offset, .src_length = len, .dest_offset = offset,
	};

	if (log) {
		int ret = log_record(log, "WRIT", fd, offset, len, buf);

		if (ret < 0)
			return ret;
	}
	return ioctl(fd, FICLONERANGE, &range) < 0 ? -errno : 0;
}

int btrfs_dev_zero(struct btrfs_write_log *log, int fd, u64 offset, u64 len, bool punch)
{
	static const u8 zeros[65536];
	int ret;

	if (log) {
		ret = log_record(log, "ZERO", fd, offset, len, NULL);
		if (ret < 0)
			return ret;
	}
	if (punch && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)offset,
			       (off_t)len) == 0)
		return 0;
	while (len) {
		size_t n = len < sizeof(zeros) ? (size_t)len : sizeof(zeros);

		ret = btrfs_dev_write(NULL, fd, zeros, n, offset);
		if (ret < 0)
			return ret;
		offset += n;
		len -= n;
	}
	return 0;
}

void btrfs_dev_start_writeback(int fd)
{
	(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

int btrfs_dev_flush(struct btrfs_write_log *log, int fd)
{
	if (log) {
		int ret = log_record(log, "FLSH", fd, 0, 0, NULL);

		if (ret < 0)
			return ret;
	}
	return fsync(fd) < 0 ? -errno : 0;
}
