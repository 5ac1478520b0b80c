// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "util/log.h"

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

void kt_trace(const char *fmt, ...)
{
	struct timespec ts;
	char buf[256];
	va_list ap;

	if (kt_verbose < 2)
		return;
	/* CLOCK_PROCESS_CPUTIME_ID would hide waiting; boot time since exec is
	 * what a user waits for, and /proc/self/stat's start time is in ticks:
	 * CLOCK_MONOTONIC against the first call is close enough. */
	static struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!t0.tv_sec && !t0.tv_nsec)
		t0 = ts;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "ksymtap: +%lld ms: %s\n",
		(long long)(ts.tv_sec - t0.tv_sec) * 1000 + (ts.tv_nsec - t0.tv_nsec) / 1000000,
		buf);
}
