/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one JSON writer, as bpftool's json_writer serves all of bpftool's
 * printers: every JSON ksymtap writes (records, query answers, serve's
 * snapshot_end, compare's summary, errors) goes through it.
 *
 * Two levels.  The structured calls (kt_jw_obj_begin, kt_jw_key, the value
 * calls) keep track of commas per depth.  The record encoder's hot path
 * (encode_json.c) uses the low-level appends below with its keys as
 * literals, since it runs once per record on the reader's CPU (BENCHMARKS.md,
 * issue 26); both write the same buffer the same way.
 *
 * Strings: kernel symbol names are bytes, not text.  Valid UTF-8 passes
 * through; control characters and bytes that are not valid UTF-8 are escaped
 * as \u00XX (the byte's value), so every line is valid JSON and a name
 * round-trips byte for byte through a Latin-1 reading of those escapes.
 *
 * Into a caller's buffer (kt_jw_init: never allocates; -ENOSPC at the end
 * when it did not fit) or a growing one (kt_jw_init_dyn: for output of any
 * length, such as compare's list of differences).
 */
#ifndef KT_JSON_WRITER_H
#define KT_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <linux/types.h>
#include "encode/digits.h"

#define KT_JW_DEPTH 16

struct kt_jw {
	char *p;
	size_t size, len;
	bool full; /* a fixed buffer overflowed, or memory ran out */
	bool dyn; /* p is malloc()ed and grows */
	unsigned int depth;
	__u16 used; /* bit d: depth d already has a member (a comma comes next) */
	bool after_key;
};

void kt_jw_init(struct kt_jw *w, char *buf, size_t size);
void kt_jw_init_dyn(struct kt_jw *w);
/* The text's length (NUL-terminated at w->p), or -ENOSPC / -ENOMEM. */
ssize_t kt_jw_end(struct kt_jw *w);
/* Frees a kt_jw_init_dyn() buffer. */
void kt_jw_free(struct kt_jw *w);

/* Low level: bytes as they are. */
void kt_jw_grow_put(struct kt_jw *w, const char *s, size_t n);

static inline __attribute__((always_inline)) void kt_jw_put(struct kt_jw *w, const char *s,
							   size_t n)
{
	/* Room is left for the NUL kt_jw_end() writes. */
	if (w->full || w->len + n >= w->size) {
		kt_jw_grow_put(w, s, n);
		return;
	}
	memcpy(w->p + w->len, s, n);
	w->len += n;
}

#define KT_JW_LIT(w, lit) kt_jw_put(w, lit, sizeof(lit) - 1)

/* Low level values: "%llu", "%lld", hex digits (no 0x, no quotes), a
 * constant string between quotes (no escaping), an escaped string.  The
 * numbers without printf (encode/digits.h). */
static inline __attribute__((always_inline)) void kt_jw_put_u(struct kt_jw *w,
							     unsigned long long v)
{
	char tmp[24], *q = dec(tmp, v);

	kt_jw_put(w, q, tmp + 24 - q);
}

static inline __attribute__((always_inline)) void kt_jw_put_d(struct kt_jw *w, long long v)
{
	if (v < 0)
		KT_JW_LIT(w, "-");
	kt_jw_put_u(w, v < 0 ? -(unsigned long long)v : (unsigned long long)v);
}

static inline __attribute__((always_inline)) void kt_jw_put_x(struct kt_jw *w,
							     unsigned long long v)
{
	char tmp[16];

	kt_jw_put(w, tmp, put_x(tmp, v) - tmp);
}

static inline __attribute__((always_inline)) void kt_jw_put_name(struct kt_jw *w, const char *s)
{
	KT_JW_LIT(w, "\"");
	kt_jw_put(w, s, strlen(s));
	KT_JW_LIT(w, "\"");
}

void kt_jw_put_str(struct kt_jw *w, const char *s);

/* Structured. */
void kt_jw_obj_begin(struct kt_jw *w);
void kt_jw_obj_end(struct kt_jw *w);
void kt_jw_arr_begin(struct kt_jw *w);
void kt_jw_arr_end(struct kt_jw *w);
void kt_jw_key(struct kt_jw *w, const char *name);
void kt_jw_str(struct kt_jw *w, const char *s);
/* null for NULL and "" */
void kt_jw_str_or_null(struct kt_jw *w, const char *s);
void kt_jw_u64(struct kt_jw *w, __u64 v);
void kt_jw_s64(struct kt_jw *w, __s64 v);
/* "0x..." as a string: addresses (JSON numbers lose 64-bit precision). */
void kt_jw_hex(struct kt_jw *w, __u64 v);
void kt_jw_bool(struct kt_jw *w, bool v);
/* A value already in JSON (another encoder's object), as it is. */
void kt_jw_raw(struct kt_jw *w, const char *json, size_t n);
void kt_jw_null(struct kt_jw *w);
/* A number with prec digits after the point. */
void kt_jw_double(struct kt_jw *w, double v, int prec);
/* A perf-clock (or any CLOCK_REALTIME-offset) nanosecond time as RFC 3339
 * UTC with nanoseconds, "2026-12-03T12:00:00.123456789Z". */
void kt_jw_rfc3339(struct kt_jw *w, __s64 ns);

/* key and value in one. */
#define KT_JW_FIELD(fn, w, name, ...)      \
	do {                               \
		kt_jw_key(w, name);        \
		fn(w, ##__VA_ARGS__);      \
	} while (0)

#endif
