// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The serve socket's query (query.h). */
#include <stdio.h>
#include <string.h>
#include "encode/encode_answer.h"
#include "history/resolve.h"
#include "serve/query.h"

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
	ssize_t n = kt_answer_error(buf, size, q->fmt == KT_FMT_JSON, why);

	*bad = true;
	return n < 0 ? 0 : (size_t)n;
}

size_t kt_query_answer(const struct kt_query *q, const char *req, size_t len, char *buf,
		       size_t size, bool *bad)
{
	char line[KT_QUERY_LINE_MAX + 1], why[KT_QUERY_LINE_MAX + 64];
	const struct kt_hsym *s;
	const char *a, *tm;
	size_t alen;
	__u64 addr, t;
	ssize_t n;

	*bad = false;
	if (q->fmt == KT_FMT_RAW) {
		memcpy(&addr, req, 8);
		memcpy(&t, req + 8, 8);
		if (t == KT_QUERY_RAW_NOW)
			t = KT_HIST_NOW;
		n = kt_answer_raw(buf, size, addr, kt_history_find(q->h, addr, t));
		return n < 0 ? 0 : (size_t)n;
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
	if (q->fmt == KT_FMT_JSON) {
		n = kt_answer_json(buf, size, addr, t, s, q->wall_off);
		return n < 0 ? 0 : (size_t)n;
	}
	/* "ADDR NAME+0xOFF/0xLEN [MODULE]\n", ADDR as the client wrote it. */
	if (alen + 2 > size)
		return 0;
	memcpy(buf, a, alen);
	buf[alen] = ' ';
	n = kt_answer_text(buf + alen + 1, size - alen - 2, s, addr);
	if (n < 0)
		return 0;
	buf[alen + 1 + n] = '\n';
	return alen + 2 + n;
}
