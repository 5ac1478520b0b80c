// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "unit.h"

static const char *cur;
static char reasons[8192];
static size_t rlen;
static const char *skip_why;
static int failed_cases;

extern const char *__progname;

static bool selected(const char *name)
{
	static regex_t re;
	static int have = -1;
	char full[256];

	if (have < 0) {
		const char *only = getenv("KT_UNIT_ONLY");

		have = only && *only && !regcomp(&re, only, REG_EXTENDED | REG_NOSUB);
	}
	if (!have)
		return true;
	snprintf(full, sizeof(full), "%s/%s", __progname, name);
	return !regexec(&re, full, 0, NULL, 0);
}

bool unit_start(const char *name)
{
	cur = name;
	rlen = 0;
	reasons[0] = 0;
	skip_why = NULL;
	return selected(name);
}

void unit_skip(const char *why)
{
	skip_why = why;
}

void unit_failf(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (rlen >= sizeof(reasons) - 1)
		return;
	n = snprintf(reasons + rlen, sizeof(reasons) - rlen, "  %s:%d: ", file, line);
	if (n > 0)
		rlen += n;
	va_start(ap, fmt);
	n = vsnprintf(reasons + rlen, sizeof(reasons) - rlen, fmt, ap);
	va_end(ap);
	if (n > 0)
		rlen += n;
	if (rlen < sizeof(reasons) - 1)
		reasons[rlen++] = '\n';
	reasons[rlen < sizeof(reasons) ? rlen : sizeof(reasons) - 1] = 0;
}

void unit_end(void)
{
	if (rlen) {
		printf("FAIL %s\n%s", cur, reasons);
		failed_cases++;
	} else if (skip_why) {
		printf("SKIP %s: %s\n", cur, skip_why);
	} else {
		printf("PASS %s\n", cur);
	}
	fflush(stdout);
}

int unit_exit(void)
{
	return failed_cases ? 1 : 0;
}
