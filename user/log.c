// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include "log.h"

int kt_verbose;

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* One write per line, so lines from several threads never interleave. */
	fprintf(stderr, "ksymtap: %s%s\n", prefix, buf);
}

void kt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", fmt, ap);
	va_end(ap);
}

void kt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", fmt, ap);
	va_end(ap);
}

void kt_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

void kt_debug(const char *fmt, ...)
{
	va_list ap;

	if (!kt_verbose)
		return;
	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}
