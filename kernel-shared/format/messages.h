/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages to stderr in the btrfs-progs style ("ERROR: ...", "WARNING: ...").
 * The format strings carry no trailing newline; one is added.  Report each
 * problem once, where it is detected, and return a negative errno.
 */
#ifndef BTRFS_KIT_MESSAGES_H
#define BTRFS_KIT_MESSAGES_H

#include <stdarg.h>
#include <stdio.h>
#include "kernel-shared/format/kerncompat.h"

/*
 * Where this thread's messages go: stderr unless the thread set a stream of
 * its own (a check pass running on a second thread writes into memory, its
 * caller prints that in pass order).  The one per-thread state of the
 * library; NULL restores stderr.
 */
void messages_set_stream(FILE *stream);
FILE *messages_stream(void);

void error(const char *fmt, ...) __printf(1, 2);
/* error() for callers that wrap it with their own variadic function. */
void verror(const char *fmt, va_list ap) __printf(1, 0);
void warning(const char *fmt, ...) __printf(1, 2);
void note(const char *fmt, ...) __printf(1, 2);
/* error() with ": <strerror(-err)>" appended. */
void error_errno(int err, const char *fmt, ...) __printf(2, 3);

/*
 * Log a corruption found in bytes read from disk with its source location,
 * and evaluate to -EUCLEAN: return CORRUPT("block %llu: ...", ...);
 */
int corrupt_report(const char *file, int line, const char *fmt, ...) __printf(3, 4);
#define CORRUPT(fmt, ...) corrupt_report(__FILE__, __LINE__, fmt, ##__VA_ARGS__)

#endif
