// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The serve socket's query (query.h). */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "record/kallsyms.h"
#include "serve/query.h"
#include "history/resolve.h"

size_t kt_query_next(struct kt_query *q, const char *in, size_t len, bool full, const char **req,
		     size_t *req_len)
{
	const char *nl;

	if (q->fmt == KT_FMT_RAW) {
		if (len < KT_QUERY_RAW_REQ)
			return 0;
		*req = in;
		*req_len = KT_QUERY_RAW_REQ;
		return KT_QUERY_RAW_REQ;
	}
	nl = memchr(in, '\n', len);
	if (q->skip) {
		/* The rest of a line already answered as too long. */
		if (!nl)
			return len;
		q->skip = false;
		*req = in;
		*req_len = 0;
		return nl - in + 1;
	}
	*req = in;
	if (nl && nl - in < KT_QUERY_LINE_MAX) {
		*req_len = nl - in;
		if (*req_len && in[*req_len - 1] == '\r')
			(*req_len)--;
		/* Blank lines get no answer (a client's keep-alive). */
		if (strspn(in, " \t") >= *req_len)
			*req_len = 0;
		return nl - in + 1;
	}
	if (!nl && len < KT_QUERY_LINE_MAX && !full)
		return 0;
	*req_len = KT_QUERY_LINE_MAX;
	if (nl)
		return nl - in + 1;
	q->skip = true;
	return len;
}

/* An error answer in q's format. */
static size_t error(const struct kt_query *q, char *buf, size_t size, bool *bad, const char *why)
{
	char esc[200];
	int n;

	*bad = true;
	if (q->fmt == KT_FMT_JSON) {
		if (kt_json_str(esc, sizeof(esc), why) < 0)
			strcpy(esc, "\"?\"");
		n = snprintf(buf, size, "{\"error\":%s}\n", esc);
	} else {
		n = snprintf(buf, size, "error: %s\n", why);
	}
	return n < 0 ? 0 : (size_t)n >= size ? size - 1 : (size_t)n;
}

/* " ,"NAME":"2026-12-03T12:00:00.123456789Z"" for a perf-clock time. */
static int wall(char *buf, size_t size, const char *name, __u64 t, __s64 off)
{
	__s64 w = (__s64)t + off;
	time_t sec = w / 1000000000LL;
	struct tm tm;

	/* Birth 0: it existed before the daemon started, when is unknown. */
	if (!off || !t || t == KT_HIST_ALIVE || w < 0 || !gmtime_r(&sec, &tm))
		return snprintf(buf, size, ",\"%s\":null", name);
	return snprintf(buf, size, ",\"%s\":\"%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ\"", name,
			tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			tm.tm_sec, (long long)(w % 1000000000LL));
}

static size_t json(const struct kt_query *q, __u64 addr, __u64 t, const struct kt_hsym *s,
		   char *buf, size_t size)
{
	char when[32], name[KT_NAME_MAX * 6 + 3], bw[64], dw[64];
	const char *mod;
	int n;

	if (t == KT_HIST_NOW)
		snprintf(when, sizeof(when), "\"now\"");
	else
		snprintf(when, sizeof(when), "%" PRIu64, (uint64_t)t);
	if (!s) {
		n = snprintf(buf, size, "{\"addr\":\"0x%" PRIx64 "\",\"time\":%s,\"name\":null}\n",
			     (uint64_t)addr, when);
		return n < 0 || (size_t)n >= size ? 0 : (size_t)n;
	}
	if (kt_json_str(name, sizeof(name), s->name) < 0)
		return 0;
	mod = kt_kallsyms_module(s->source);
	wall(bw, sizeof(bw), "birth_wall", s->birth, q->wall_off);
	wall(dw, sizeof(dw), "death_wall", s->death, q->wall_off);
	n = snprintf(buf, size,
		     "{\"addr\":\"0x%" PRIx64 "\",\"time\":%s,\"name\":%s,\"start\":\"0x%" PRIx64
		     "\",\"offset\":%" PRIu64 ",\"len\":%u,\"module\":%s%s%s,\"source\":\"%s\""
		     ",\"birth\":%" PRIu64 ",\"death\":",
		     (uint64_t)addr, when, name, (uint64_t)s->addr, (uint64_t)(addr - s->addr),
		     s->len, mod ? "\"" : "null", mod ? mod : "", mod ? "\"" : "",
		     kt_source_name(s->source), (uint64_t)s->birth);
	if (n < 0 || (size_t)n >= size)
		return 0;
	n += s->death == KT_HIST_ALIVE ?
		     snprintf(buf + n, size - n, "null%s%s}\n", bw, dw) :
		     snprintf(buf + n, size - n, "%" PRIu64 "%s%s}\n", (uint64_t)s->death, bw, dw);
	return (size_t)n >= size ? 0 : (size_t)n;
}

/* A PERF_RECORD_KSYMBOL without a trailer: the symbol, or (unknown) the
 * queried address with len 0 and an empty name. */
static size_t raw(__u64 addr, const struct kt_hsym *s, char *buf, size_t size)
{
	struct {
		struct perf_event_header h;
		__u64 addr;
		__u32 len;
		__u16 ksym_type, flags;
	} k = { .h.type = PERF_RECORD_KSYMBOL };
	size_t nlen = s ? strlen(s->name) + 1 : 1, total = (sizeof(k) + nlen + 7) & ~7UL;

	if (total > size)
		return 0;
	k.h.size = total;
	k.addr = s ? s->addr : addr;
	k.len = s ? s->len : 0;
	k.ksym_type = s ? s->ksym_type : 0;
	memset(buf, 0, total);
	memcpy(buf, &k, sizeof(k));
	if (s)
		memcpy(buf + sizeof(k), s->name, nlen);
	return total;
}

size_t kt_query_answer(const struct kt_query *q, const char *req, size_t len, char *buf,
		       size_t size, bool *bad)
{
	char line[KT_QUERY_LINE_MAX + 1], why[KT_QUERY_LINE_MAX + 64];
	const struct kt_hsym *s;
	const char *a, *tm;
	size_t alen;
	__u64 addr, t;
	int n;

	*bad = false;
	if (q->fmt == KT_FMT_RAW) {
		memcpy(&addr, req, 8);
		memcpy(&t, req + 8, 8);
		if (t == KT_QUERY_RAW_NOW)
			t = KT_HIST_NOW;
		return raw(addr, kt_history_find(q->h, addr, t), buf, size);
	}
	if (len >= KT_QUERY_LINE_MAX)
		return error(q, buf, size, bad, "request longer than 255 bytes");
	memcpy(line, req, len);
	line[len] = 0;
	a = line + strspn(line, " \t");
	alen = strcspn(a, " \t");
	tm = a + alen + strspn(a + alen, " \t");
	t = q->t_default;
	if (kt_parse_addr(a, alen, &addr)) {
		snprintf(why, sizeof(why), "'%.*s' is not an address (hex, 0x optional)", (int)alen,
			 a);
		return error(q, buf, size, bad, why);
	}
	if (*tm) {
		char tbuf[KT_QUERY_LINE_MAX + 1];
		size_t tl = strcspn(tm, " \t");

		memcpy(tbuf, tm, tl);
		tbuf[tl] = 0;
		if (tm[tl + strspn(tm + tl, " \t")] || kt_parse_time(tbuf, KT_HIST_NOW, &t)) {
			snprintf(why, sizeof(why),
				 "'%s' is not a time (ns, seconds.fraction or now)", tm);
			return error(q, buf, size, bad, why);
		}
	}
	s = kt_history_find(q->h, addr, t);
	if (q->fmt == KT_FMT_JSON)
		return json(q, addr, t, s, buf, size);
	/* "ADDR NAME+0xOFF/0xLEN [MODULE]\n", ADDR as the client wrote it. */
	if (alen + 2 > size)
		return 0;
	memcpy(buf, a, alen);
	buf[alen] = ' ';
	n = kt_format_sym(buf + alen + 1, size - alen - 2, s, addr);
	if (n < 0)
		return 0;
	buf[alen + 1 + n] = '\n';
	return alen + 2 + n;
}
