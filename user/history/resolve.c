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

/* "0x" and v in lower-case hex at p; returns the end. */
static char *hex(char *p, unsigned long long v)
{
	char tmp[16];
	int n = 0;

	*p++ = '0';
	*p++ = 'x';
	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* By hand, not snprintf(): the serve query formats a million a second. */
int kt_format_sym(char *buf, size_t size, const struct kt_hsym *s, __u64 addr)
{
	size_t nlen, mlen;
	const char *mod;
	char *p = buf;

	if (!s) {
		if (size < sizeof("[unknown]"))
			return -ENOSPC;
		memcpy(buf, "[unknown]", sizeof("[unknown]"));
		return sizeof("[unknown]") - 1;
	}
	mod = kt_kallsyms_module(s->source);
	nlen = strlen(s->name);
	mlen = mod ? strlen(mod) + 3 : 0;
	/* name, "+0x" 16 digits, "/0x" 8 digits, " [mod]", NUL */
	if (nlen + 19 + 11 + mlen + 1 > size)
		return -ENOSPC;
	memcpy(p, s->name, nlen);
	p += nlen;
	*p++ = '+';
	p = hex(p, addr - s->addr);
	*p++ = '/';
	p = hex(p, s->len);
	if (mod) {
		*p++ = ' ';
		*p++ = '[';
		memcpy(p, mod, mlen - 3);
		p += mlen - 3;
		*p++ = ']';
	}
	*p = 0;
	return p - buf;
}
