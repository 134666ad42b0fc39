// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdarg.h>
#include "kernel-shared/format/messages.h"

static _Thread_local FILE *thread_stream;

void messages_set_stream(FILE *stream)
{
	thread_stream = stream;
}

FILE *messages_stream(void)
{
	return thread_stream ? thread_stream : stderr;
}

static void vreport(const char *prefix, const char *fmt, va_list ap, const char *suffix)
{
	FILE *out = messages_stream();

	/* stdout first, as the reader of both sees them; not from a thread writing into memory */
	if (out == stderr)
		fflush(stdout);
	fputs(prefix, out);
	vfprintf(out, fmt, ap);
	if (suffix)
		fprintf(out, ": %s", suffix);
	fputc('\n', out);
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
	fprintf(messages_stream(), "  (detected at %s:%d)\n", file, line);
#else
	(void)file;
	(void)line;
#endif
	return -EUCLEAN;
}
