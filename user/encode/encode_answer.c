// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Answers (encode_answer.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>
#include "record/kallsyms.h"
#include "record/record.h"
#include "encode/json_writer.h"
#include "encode/encode_answer.h"

/* "0x" and v in lower-case hex at p; returns the end. */
static char *hex(char *p, unsigned long long v)
{
	*p++ = '0';
	*p++ = 'x';
	return put_x(p, v);
}

/* By hand, not snprintf(): the serve query formats a million a second. */
int kt_answer_text(char *buf, size_t size, const struct kt_hsym *s, __u64 addr)
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

/* A perf-clock time on the wall clock; null where unknown (birth 0: it
 * existed before the recording started, when is unknown). */
static void wall(struct kt_jw *w, const char *name, __u64 t, __s64 off)
{
	kt_jw_key(w, name);
	if (!off || !t || t == KT_HIST_ALIVE || (__s64)t + off < 0)
		kt_jw_null(w);
	else
		kt_jw_rfc3339(w, (__s64)t + off);
}

ssize_t kt_answer_json(char *buf, size_t size, __u64 addr, __u64 t, const struct kt_hsym *s,
		       __s64 wall_off)
{
	struct kt_jw w;

	kt_jw_init(&w, buf, size);
	kt_jw_obj_begin(&w);
	KT_JW_FIELD(kt_jw_hex, &w, "addr", addr);
	if (t == KT_HIST_NOW)
		KT_JW_FIELD(kt_jw_str, &w, "time", "now");
	else
		KT_JW_FIELD(kt_jw_u64, &w, "time", t);
	if (!s) {
		KT_JW_FIELD(kt_jw_null, &w, "name");
	} else {
		KT_JW_FIELD(kt_jw_str, &w, "name", s->name);
		KT_JW_FIELD(kt_jw_hex, &w, "start", s->addr);
		KT_JW_FIELD(kt_jw_u64, &w, "offset", addr - s->addr);
		KT_JW_FIELD(kt_jw_u64, &w, "len", s->len);
		KT_JW_FIELD(kt_jw_str_or_null, &w, "module", kt_kallsyms_module(s->source));
		KT_JW_FIELD(kt_jw_str, &w, "source", kt_source_name(s->source));
		KT_JW_FIELD(kt_jw_u64, &w, "birth", s->birth);
		if (s->death == KT_HIST_ALIVE)
			KT_JW_FIELD(kt_jw_null, &w, "death");
		else
			KT_JW_FIELD(kt_jw_u64, &w, "death", s->death);
		wall(&w, "birth_wall", s->birth, wall_off);
		wall(&w, "death_wall", s->death, wall_off);
	}
	kt_jw_obj_end(&w);
	KT_JW_LIT(&w, "\n");
	return kt_jw_end(&w);
}

ssize_t kt_answer_raw(void *buf, size_t size, __u64 addr, const struct kt_hsym *s)
{
	struct {
		struct perf_event_header h;
		__u64 addr;
		__u32 len;
		__u16 ksym_type, flags;
	} k = { .h.type = PERF_RECORD_KSYMBOL };
	size_t nlen = s ? strlen(s->name) + 1 : 1, total = (sizeof(k) + nlen + 7) & ~7UL;

	if (total > size)
		return -ENOSPC;
	k.h.size = total;
	k.addr = s ? s->addr : addr;
	k.len = s ? s->len : 0;
	k.ksym_type = s ? s->ksym_type : 0;
	memset(buf, 0, total);
	memcpy(buf, &k, sizeof(k));
	if (s)
		memcpy((char *)buf + sizeof(k), s->name, nlen);
	return total;
}

ssize_t kt_answer_error(char *buf, size_t size, bool json, const char *why)
{
	struct kt_jw w;
	int n;

	if (!json) {
		n = snprintf(buf, size, "error: %s\n", why);
		return n < 0 || (size_t)n >= size ? -ENOSPC : n;
	}
	kt_jw_init(&w, buf, size);
	kt_jw_obj_begin(&w);
	KT_JW_FIELD(kt_jw_str, &w, "error", why);
	kt_jw_obj_end(&w);
	KT_JW_LIT(&w, "\n");
	return kt_jw_end(&w);
}
