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

void kt_log(enum kt_log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = {
		[KT_LOG_ERR] = "error: ",
		[KT_LOG_WARN] = "warning: ",
		[KT_LOG_INFO] = "",
		[KT_LOG_DEBUG] = "",
	};
	va_list ap;

	if (level == KT_LOG_DEBUG && !kt_verbose)
		return;
	va_start(ap, fmt);
	vlog(prefix[level], fmt, ap);
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
