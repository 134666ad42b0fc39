// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdarg.h>
#include "lib/format/messages.h"

static void vreport(const char *prefix, const char *fmt, va_list ap, const char *suffix)
{
	fflush(stdout);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	if (suffix)
		fprintf(stderr, ": %s", suffix);
	fputc('\n', stderr);
}

void verror(const char *fmt, va_list ap)
{
	vreport("ERROR: ", fmt, ap, NULL);
}

void error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("WARNING: ", fmt, ap, NULL);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("NOTE: ", fmt, ap, NULL);
	va_end(ap);
}

void error_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("ERROR: ", fmt, ap, strerror(err < 0 ? -err : err));
	va_end(ap);
}

int corrupt_report(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("ERROR: ", fmt, ap, NULL);
	va_end(ap);
#ifdef BTRFS_KIT_DEBUG
	fprintf(stderr, "  (detected at %s:%d)\n", file, line);
#else
	(void)file;
	(void)line;
#endif
	return -EUCLEAN;
}
