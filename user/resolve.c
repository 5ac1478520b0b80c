// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* resolve.h */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "kallsyms.h"
#include "log.h"
#include "record_file.h"
#include "resolve.h"

static int add(void *ctx, struct kt_record *r)
{
	return kt_history_add(ctx, r);
}

int kt_history_load(struct kt_history *h, const char *path, char *why, size_t why_size)
{
	int err = kt_record_file_read(path, add, h, NULL, why, why_size);

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

int kt_format_sym(char *buf, size_t size, const struct kt_hsym *s, __u64 addr)
{
	const char *mod;
	int n;

	if (!s)
		n = snprintf(buf, size, "[unknown]");
	else if ((mod = kt_kallsyms_module(s->source)))
		n = snprintf(buf, size, "%s+0x%llx/0x%x [%s]", s->name,
			     (unsigned long long)(addr - s->addr), s->len, mod);
	else
		n = snprintf(buf, size, "%s+0x%llx/0x%x", s->name,
			     (unsigned long long)(addr - s->addr), s->len);
	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

int kt_history_opt(void *ctx, int opt, const char *arg)
{
	struct kt_history_opts *o = ctx;

	if (opt == 'i')
		o->in = arg;
	else if (opt == 't')
		o->at = arg;
	else
		return 0;
	return 1;
}

int kt_history_setup(const struct kt_history_opts *o, const char *cmd, struct kt_history *h,
		     __u64 *t)
{
	char why[512] = "";

	kt_history_init(h);
	if (!o->in) {
		kt_err("%s needs -i FILE, a 'ksymtap record' file (try 'ksymtap %s --help')", cmd,
		       cmd);
		return KT_EXIT_USAGE;
	}
	if (kt_history_load(h, o->in, why, sizeof(why))) {
		kt_err("%s", why);
		return KT_EXIT_FAIL;
	}
	*t = h->end;
	if (o->at && kt_parse_time(o->at, h->end, t)) {
		kt_err("--at '%s' is not a time (ns, seconds.fraction or now)", o->at);
		return KT_EXIT_USAGE;
	}
	return 0;
}
