// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text format is perf script's: tools/perf/builtin-script.c
 * perf_sample__fprintf_start() prints "%16s %5d [%03d] %12s: " (comm, tid, cpu,
 * time as sec.usec, truncated) for the default software-event fields, then
 * perf_event__fprintf_ksymbol() / perf_event__fprintf_bpf().
 *
 * The lines are put together by hand, not with snprintf(): it is the
 * default format, and glibc's printf machinery was most of the reader's cost
 * per record (BENCHMARKS.md, "where the time goes").  The output is byte for
 * byte what those printf formats give (tests/unit/test_encode.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "encode.h"

struct tbuf {
	char *p, *end; /* end leaves room for the NUL */
	bool full;
};

static inline __attribute__((always_inline)) void put(struct tbuf *b, const char *s, size_t n)
{
	if (b->full || (size_t)(b->end - b->p) < n) {
		b->full = true;
		return;
	}
	memcpy(b->p, s, n);
	b->p += n;
}

#define PUT_LIT(b, lit) put(b, lit, sizeof(lit) - 1)

/* "%*s": right-aligned in width, never truncated. */
static inline __attribute__((always_inline)) void put_str(struct tbuf *b, const char *s, size_t width)
{
	static const char spaces[] = "                ";
	size_t n = strlen(s), pad;

	for (pad = n < width ? width - n : 0; pad;) {
		size_t k = pad < sizeof(spaces) - 1 ? pad : sizeof(spaces) - 1;

		put(b, spaces, k);
		pad -= k;
	}
	put(b, s, n);
}

/* Digits of v in base 10 or 16 (lowercase), at the end of tmp[24]; the
 * constant divisors let the compiler use multiplications and shifts. */
static inline __attribute__((always_inline)) char *digits(char tmp[24], unsigned long long v, unsigned int base)
{
	char *q = tmp + 24;

	if (base == 16) {
		do {
			*--q = "0123456789abcdef"[v & 15];
			v >>= 4;
		} while (v);
		return q;
	}
	do {
		*--q = '0' + v % 10;
		v /= 10;
	} while (v);
	return q;
}

static inline __attribute__((always_inline)) void put_u(struct tbuf *b, unsigned long long v, unsigned int base)
{
	char tmp[24], *q = digits(tmp, v, base);

	put(b, q, tmp + 24 - q);
}

/* "%*d" (pad ' ') or "%0*d" (pad '0'). */
static inline __attribute__((always_inline)) void put_d(struct tbuf *b, int v, size_t width, char pad)
{
	unsigned long long m = v < 0 ? -(long long)v : v;
	char tmp[24], *q = digits(tmp, m, 10), line[48], *o = line;
	size_t n = tmp + 24 - q + (v < 0);

	if (pad == '0' && v < 0)
		*o++ = '-';
	for (; n < width; n++)
		*o++ = pad;
	if (pad != '0' && v < 0)
		*o++ = '-';
	memcpy(o, q, tmp + 24 - q);
	o += tmp + 24 - q;
	put(b, line, o - line);
}

ssize_t kt_encode_text(const struct kt_record *r, char *buf, size_t size)
{
	unsigned long long usecs = r->time / 1000;
	struct tbuf b = { .p = buf, .end = buf + (size ? size - 1 : 0), .full = !size };
	char tstr[48], tmp[24], *q;
	const char *comm = r->comm;
	int tid = (int)r->tid, cpu = (int)r->cpu;
	size_t n;

	/* perf's synthesized records carry an all-zero sample_id, so perf prints
	 * them as the idle task at time 0. */
	if (r->rflags & KT_RF_SNAPSHOT) {
		comm = "swapper";
		tid = 0;
		cpu = 0;
		usecs = 0;
	} else if (r->rflags & KT_RF_NO_TASK) {
		comm = ":-1";
		tid = -1;
	}
	if (r->type != KT_RECORD_KSYMBOL && r->type != KT_RECORD_BPF_EVENT &&
	    r->type != KT_RECORD_LOST)
		return -EINVAL;

	/* "%llu.%06llu" */
	q = digits(tmp, usecs / 1000000, 10);
	n = tmp + 24 - q;
	memcpy(tstr, q, n);
	tstr[n++] = '.';
	q = digits(tmp, usecs % 1000000, 10);
	memset(tstr + n, '0', 6 - (tmp + 24 - q));
	memcpy(tstr + n + 6 - (tmp + 24 - q), q, tmp + 24 - q);
	tstr[n + 6] = 0;

	/* "%16s %5d [%03d] %12s: " */
	put_str(&b, comm, 16);
	PUT_LIT(&b, " ");
	put_d(&b, tid, 5, ' ');
	PUT_LIT(&b, " [");
	put_d(&b, cpu, 3, '0');
	PUT_LIT(&b, "] ");
	put_str(&b, tstr, 12);
	PUT_LIT(&b, ": ");

	switch (r->type) {
	case KT_RECORD_KSYMBOL:
		/* "PERF_RECORD_KSYMBOL addr %lx len %u type %u flags 0x%x name %s\n" */
		PUT_LIT(&b, "PERF_RECORD_KSYMBOL addr ");
		put_u(&b, r->addr, 16);
		PUT_LIT(&b, " len ");
		put_u(&b, r->len, 10);
		PUT_LIT(&b, " type ");
		put_u(&b, r->ksym_type, 10);
		PUT_LIT(&b, " flags 0x");
		put_u(&b, r->flags, 16);
		PUT_LIT(&b, " name ");
		put(&b, r->name, strlen(r->name));
		break;
	case KT_RECORD_BPF_EVENT:
		/* "PERF_RECORD_BPF_EVENT type %u, flags %u, id %u\n" */
		PUT_LIT(&b, "PERF_RECORD_BPF_EVENT type ");
		put_u(&b, r->bpf_type, 10);
		PUT_LIT(&b, ", flags ");
		put_u(&b, r->bpf_flags, 10);
		PUT_LIT(&b, ", id ");
		put_u(&b, r->prog_id, 10);
		break;
	case KT_RECORD_LOST:
		/* "PERF_RECORD_LOST lost %lu\n" */
		PUT_LIT(&b, "PERF_RECORD_LOST lost ");
		put_u(&b, r->lost, 10);
		break;
	}
	PUT_LIT(&b, "\n");
	if (b.full)
		return -ENOSPC;
	*b.p = 0;
	return b.p - buf;
}
