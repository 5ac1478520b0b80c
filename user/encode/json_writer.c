// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The JSON writer (json_writer.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "util/base.h"
#include "encode/json_writer.h"

void kt_jw_init(struct kt_jw *w, char *buf, size_t size)
{
	memset(w, 0, sizeof(*w));
	w->p = buf;
	w->size = size;
	if (size)
		buf[0] = 0;
}

void kt_jw_init_dyn(struct kt_jw *w)
{
	memset(w, 0, sizeof(*w));
	w->dyn = true;
}

void kt_jw_free(struct kt_jw *w)
{
	if (w->dyn)
		free(w->p);
	w->p = NULL;
	w->size = w->len = 0;
}

ssize_t kt_jw_end(struct kt_jw *w)
{
	if (w->full)
		return w->dyn ? -ENOMEM : -ENOSPC;
	if (!w->p) { /* a growing writer that wrote nothing */
		kt_jw_grow_put(w, "", 0);
		if (w->full)
			return -ENOMEM;
	}
	w->p[w->len] = 0;
	return (ssize_t)w->len;
}

void kt_jw_grow_put(struct kt_jw *w, const char *s, size_t n)
{
	if (w->full)
		return;
	if (!w->dyn || KT_GROW(w->p, w->size, w->len + n + 1)) {
		w->full = true;
		return;
	}
	memcpy(w->p + w->len, s, n);
	w->len += n;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not one. */
static int utf8_seq(const unsigned char *s)
{
	int n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* Bytes that pass through as they are: printable ASCII but '"' and '\\'. */
static const unsigned char plain_tab[256] = { [0x20 ... 0x21] = 1,
					      [0x23 ... 0x5b] = 1,
					      [0x5d ... 0x7e] = 1 };

void kt_jw_put_str(struct kt_jw *w, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	char esc[8];
	size_t run;
	int n;

	KT_JW_LIT(w, "\"");
	for (;;) {
		/* The common case, a whole name of plain bytes, in one copy. */
		for (run = 0; plain_tab[s[run]]; run++)
			;
		kt_jw_put(w, (const char *)s, run);
		s += run;
		if (!*s)
			break;
		if (*s == '"' || *s == '\\') {
			esc[0] = '\\';
			esc[1] = *s;
			kt_jw_put(w, esc, 2);
			s++;
			continue;
		}
		n = *s < 0x80 ? 0 : utf8_seq(s);
		if (!n) {
			snprintf(esc, sizeof(esc), "\\u%04x", *s);
			kt_jw_put(w, esc, 6);
			s++;
			continue;
		}
		kt_jw_put(w, (const char *)s, n);
		s += n;
	}
	KT_JW_LIT(w, "\"");
}

/* Before a value or a key: the comma, unless first at its depth or just
 * after a key. */
static void sep(struct kt_jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->used & (1u << w->depth))
		KT_JW_LIT(w, ",");
	w->used |= 1u << w->depth;
}

static void open_(struct kt_jw *w, const char *c)
{
	sep(w);
	kt_jw_put(w, c, 1);
	if (w->depth + 1 < KT_JW_DEPTH)
		w->depth++;
	w->used &= ~(1u << w->depth);
}

static void close_(struct kt_jw *w, const char *c)
{
	kt_jw_put(w, c, 1);
	if (w->depth)
		w->depth--;
}

void kt_jw_obj_begin(struct kt_jw *w)
{
	open_(w, "{");
}

void kt_jw_obj_end(struct kt_jw *w)
{
	close_(w, "}");
}

void kt_jw_arr_begin(struct kt_jw *w)
{
	open_(w, "[");
}

void kt_jw_arr_end(struct kt_jw *w)
{
	close_(w, "]");
}

void kt_jw_key(struct kt_jw *w, const char *name)
{
	sep(w);
	kt_jw_put_str(w, name);
	KT_JW_LIT(w, ":");
	w->after_key = true;
}

void kt_jw_str(struct kt_jw *w, const char *s)
{
	sep(w);
	kt_jw_put_str(w, s);
}

void kt_jw_str_or_null(struct kt_jw *w, const char *s)
{
	if (s && *s)
		kt_jw_str(w, s);
	else
		kt_jw_null(w);
}

void kt_jw_u64(struct kt_jw *w, __u64 v)
{
	sep(w);
	kt_jw_put_u(w, v);
}

void kt_jw_s64(struct kt_jw *w, __s64 v)
{
	sep(w);
	kt_jw_put_d(w, v);
}

void kt_jw_hex(struct kt_jw *w, __u64 v)
{
	sep(w);
	KT_JW_LIT(w, "\"0x");
	kt_jw_put_x(w, v);
	KT_JW_LIT(w, "\"");
}

void kt_jw_bool(struct kt_jw *w, bool v)
{
	sep(w);
	if (v)
		KT_JW_LIT(w, "true");
	else
		KT_JW_LIT(w, "false");
}

void kt_jw_raw(struct kt_jw *w, const char *json, size_t n)
{
	sep(w);
	kt_jw_put(w, json, n);
}

void kt_jw_null(struct kt_jw *w)
{
	sep(w);
	KT_JW_LIT(w, "null");
}

void kt_jw_double(struct kt_jw *w, double v, int prec)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%.*f", prec, v);

	sep(w);
	kt_jw_put(w, tmp, n > 0 && (size_t)n < sizeof(tmp) ? (size_t)n : 0);
}

void kt_jw_rfc3339(struct kt_jw *w, __s64 ns)
{
	time_t sec = ns / 1000000000LL;
	char tmp[64];
	struct tm tm;
	int n;

	if (ns < 0 || !gmtime_r(&sec, &tm)) {
		kt_jw_null(w);
		return;
	}
	n = snprintf(tmp, sizeof(tmp), "\"%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ\"",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		     tm.tm_sec, (long long)(ns % 1000000000LL));
	sep(w);
	kt_jw_put(w, tmp, n > 0 && (size_t)n < sizeof(tmp) ? (size_t)n : 0);
}
