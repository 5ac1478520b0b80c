/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The serve socket's query (docs/serve.md, "Queries"): requests of an
 * address and a time, answered from the daemon's history in order, in the
 * handshake's format.  Text and JSON requests are lines "ADDR [TIME]"; raw
 * ones are two native-endian __u64 (address, time; KT_QUERY_RAW_NOW: now).
 * No I/O here: the daemon reads and queues, this reads bytes and writes bytes.
 */
#ifndef KT_QUERY_H
#define KT_QUERY_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "encode/encode.h"
#include "history/history.h"

#define KT_QUERY_LINE_MAX 256
#define KT_QUERY_RAW_REQ 16
#define KT_QUERY_RAW_NOW (~0ULL)
/* Largest answer of any format. */
#define KT_QUERY_ANSWER_MAX (KT_NAME_MAX * 6 + 512)

struct kt_query {
	const struct kt_history *h;
	enum kt_format fmt;
	__u64 t_default; /* of lines without a time (handshake's at=) */
	__s64 wall_off; /* wall clock minus perf's clock, ns; 0: unknown */
	bool skip; /* inside a line too long to be a request */
};

/*
 * The next complete request in in[0, len): returns the bytes it takes
 * (newline included), 0 if none is complete yet.  *req and *req_len are the
 * request itself; *req_len == 0 for a blank line (no answer) and
 * KT_QUERY_LINE_MAX for one too long (answer: an error).  full: in[] cannot
 * grow, so a line without a newline by then is too long.
 */
size_t kt_query_next(struct kt_query *q, const char *in, size_t len, bool full, const char **req,
		     size_t *req_len);
/* The answer to one request: its length.  *bad: the request was malformed
 * (the answer says why; text "error: WHY", JSON {"error":WHY}). */
size_t kt_query_answer(const struct kt_query *q, const char *req, size_t len, char *buf,
		       size_t size, bool *bad);

#endif
