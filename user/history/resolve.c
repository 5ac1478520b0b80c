// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* resolve.h */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "record/kallsyms.h"
#include "history/record_file.h"
#include "history/resolve.h"

static int add(void *ctx, struct kt_record *r)
{
	return kt_history_add(ctx, r);
}

int kt_history_load(struct kt_history *h, const char *path, const struct kt_otlp_select *sel,
		    char *why, size_t why_size)
{
	bool otlp = kt_otlp_file_is(path);
	int err;

	if (!otlp && (sel->host || sel->boot)) {
		snprintf(why, why_size,
			 "--host and --boot choose a node of an OTLP/JSON file; %s is not one",
			 path);
		return -EINVAL;
	}
	err = otlp ? kt_otlp_file_read(path, sel, add, h, why, why_size) :
		     kt_record_file_read(path, add, h, NULL, why, why_size);

	if (err == -ENOMEM && !why[0])
		snprintf(why, why_size, "%s: out of memory", path);
	if (!err)
		kt_history_done(h);
	return err;
}

int kt_parse_addr(const char *s, size_t len, __u64 *addr)
{
	__u64 v = 0;
	size_t i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	if (i == len || len - i > 16)
		return -EINVAL;
	for (; i < len; i++) {
		int c = s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		v = v << 4 | d;
	}
	*addr = v;
	return 0;
}

int kt_parse_time(const char *s, __u64 now, __u64 *t)
{
	unsigned long long sec = 0, frac = 0;
	const char *p = s;
	int digits = 0;

	if (!strcmp(s, "now")) {
		*t = now;
		return 0;
	}
	if (*p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9') {
		if (sec > (~0ULL - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (*p++ - '0');
	}
	if (!*p) {
		*t = sec; /* nanoseconds */
		return 0;
	}
	if (*p++ != '.' || *p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9') {
		if (digits < 9) {
			frac = frac * 10 + (*p - '0');
			digits++;
		}
		p++;
	}
	if (*p || sec > ~0ULL / 1000000000ULL - 1)
		return -EINVAL;
	while (digits++ < 9)
		frac *= 10;
	*t = sec * 1000000000ULL + frac;
	return 0;
}
