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
#include <stdio.h>
#include <string.h>
#include "encode/digits.h"
#include "encode/encode.h"
#include "ksymtap.h"

/* The longest line: the prefix (comm 15, tid and cpu 11 each, time 27), the
 * longest record body with 20-digit numbers, and a name of KT_NAME_MAX - 1. */
#define LINE_MAX (128 + 160 + KT_NAME_MAX)

#define LIT(o, lit) (memcpy(o, lit, sizeof(lit) - 1), (o) + sizeof(lit) - 1)
/* The record names, padded to 32 bytes: a constant 32-byte copy is two
 * vector moves, 22-27 bytes are a call to memcpy().  LINE_MAX has room for
 * the overhang. */
#define LIT32(o, arr, len) (memcpy(o, arr, 32), (o) + (len))
static const char ksymbol_lit[32] = "PERF_RECORD_KSYMBOL addr ";
static const char bpf_event_lit[32] = "PERF_RECORD_BPF_EVENT type ";
static const char lost_lit[32] = "PERF_RECORD_LOST lost ";

/* "%*d" (pad ' ') or "%0*d" (pad '0'). */
static inline __attribute__((always_inline)) char *put_d(char *o, int v, int width, char pad)
{
	unsigned long long m = v < 0 ? -(long long)v : v;
	char tmp[24], *q = dec(tmp, m);
	int n = tmp + 24 - q + (v < 0);

	if (pad == '0' && v < 0)
		*o++ = '-';
	for (; n < width; n++)
		*o++ = pad;
	if (pad != '0' && v < 0)
		*o++ = '-';
	return copy_short(o, q, tmp + 24 - q);
}

/* "%*s", right-aligned in width, never truncated. */
static inline __attribute__((always_inline)) char *put_s(char *o, const char *s, size_t n,
							 size_t width)
{
	for (; n < width; width--)
		*o++ = ' ';
	return copy_short(o, s, n);
}

/* "%16s %5d [%03d] ": the task and the CPU.  The records of one load come
 * from one task on one CPU: the last prefix is kept and copied whole while
 * they stay the same (the encoders run in the main thread only). */
static char *put_task(char *o, const char *comm, int tid, int cpu)
{
	static struct {
		char comm[KT_COMM_LEN];
		size_t n; /* of comm */
		int tid, cpu;
		size_t len;
		char text[64];
	} last = { .tid = -2 };
	size_t n = strnlen(comm, KT_COMM_LEN - 1);
	char *p;

	if (tid != last.tid || cpu != last.cpu || n != last.n || memcmp(comm, last.comm, n)) {
		p = put_s(last.text, comm, n, 16);
		*p++ = ' ';
		p = put_d(p, tid, 5, ' ');
		p = LIT(p, " [");
		p = put_d(p, cpu, 3, '0');
		p = LIT(p, "] ");
		last.len = p - last.text;
		memcpy(last.comm, comm, n);
		last.n = n;
		last.tid = tid;
		last.cpu = cpu;
	}
	memcpy(o, last.text, last.len);
	return o + last.len;
}

/* "%16s %5d [%03d] %12s: ": the task, the CPU and the time, as perf script
 * prints them. */
static inline __attribute__((always_inline)) char *put_head(char *o, const struct kt_record *r)
{
	unsigned long long usecs = r->time / 1000, usec;
	char tstr[32], tmp[24], *t, *q;
	const char *comm = r->comm;
	char pidcomm[KT_COMM_LEN];
	int tid = (int)r->tid, cpu = (int)r->cpu, i;

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
	} else if (!r->comm[0]) {
		/* A task whose name is unknown: perf's thread__new() names it
		 * ":TID". */
		snprintf(pidcomm, sizeof(pidcomm), ":%d", tid);
		comm = pidcomm;
	}
	/* "%llu.%06llu" */
	q = dec(tmp, usecs / 1000000);
	t = copy_short(tstr, q, tmp + 24 - q);
	*t++ = '.';
	for (i = 4, usec = usecs % 1000000; i >= 0; i -= 2, usec /= 100)
		memcpy(t + i, pairs + 2 * (usec % 100), 2);
	t += 6;

	o = put_task(o, comm, tid, cpu);
	o = put_s(o, tstr, t - tstr, 12);
	return LIT(o, ": ");
}

/* What the record says, as perf script --show-bpf-events prints it. */
static inline __attribute__((always_inline)) char *put_body(char *o, const struct kt_record *r)
{
	size_t n;

	switch (r->type) {
	case KT_RECORD_KSYMBOL:
		/* "PERF_RECORD_KSYMBOL addr %lx len %u type %u flags 0x%x name %s\n" */
		o = LIT32(o, ksymbol_lit, 25);
		o = put_x(o, r->addr);
		o = LIT(o, " len ");
		o = put_u(o, r->len);
		o = LIT(o, " type ");
		o = put_u(o, r->ksym_type);
		o = LIT(o, " flags 0x");
		o = put_x(o, r->flags);
		o = LIT(o, " name ");
		n = strnlen(r->name, KT_NAME_MAX - 1);
		memcpy(o, r->name, n);
		return o + n;
	case KT_RECORD_BPF_EVENT:
		/* "PERF_RECORD_BPF_EVENT type %u, flags %u, id %u\n" */
		o = LIT32(o, bpf_event_lit, 27);
		o = put_u(o, r->bpf_type);
		o = LIT(o, ", flags ");
		o = put_u(o, r->bpf_flags);
		o = LIT(o, ", id ");
		return put_u(o, r->prog_id);
	default:
		/* "PERF_RECORD_LOST lost %lu\n" */
		o = LIT32(o, lost_lit, 22);
		return put_u(o, r->lost);
	}
}

/* Without a bound check per field (the text encoder's speed, BENCHMARKS.md):
 * straight into buf when it has LINE_MAX bytes, else into a line of its own
 * and then copied. */
ssize_t kt_encode_text(const struct kt_record *r, char *buf, size_t size)
{
	char line[LINE_MAX], *start = size >= LINE_MAX ? buf : line, *o;
	size_t n;

	if (r->type != KT_RECORD_KSYMBOL && r->type != KT_RECORD_BPF_EVENT &&
	    r->type != KT_RECORD_LOST)
		return -EINVAL;
	o = put_head(start, r);
	o = put_body(o, r);
	*o++ = '\n';
	n = o - start;
	if (n >= size)
		return -ENOSPC;
	if (start == line)
		memcpy(buf, line, n);
	buf[n] = 0;
	return n;
}
