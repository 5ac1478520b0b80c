/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A small time-ordered holding queue for encoded records.  The BPF ring and the
 * native per-CPU rings deliver records almost, not quite, in time order
 * (a record is stamped before it is committed, and CPUs commit independently),
 * while perf.data readers want them sorted.  A record is held until it has
 * waited `window` ns on the arrival clock, then leaves in (time, arrival)
 * order; records stamped 0 (start-up snapshot, like perf's synthesized ones)
 * sort first.
 */
#ifndef KT_REORDER_H
#define KT_REORDER_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

struct kt_reorder_ent {
	__u64 time; /* the record's own timestamp: the sort key */
	__u64 arrival; /* when it was pushed, on the caller's clock */
	size_t len;
	unsigned char *data;
};

struct kt_reorder {
	struct kt_reorder_ent *ents; /* sorted: [head, head + n) */
	size_t head, n, cap;
	__u64 window;
	size_t max; /* beyond this many held records, the oldest go out anyway */
	__u64 last_out; /* newest time that has left */
	unsigned long long late; /* left after a newer record: arrived too late */
};

int kt_reorder_init(struct kt_reorder *q, __u64 window, size_t max);
void kt_reorder_fini(struct kt_reorder *q);
/* Hold a copy of data.  -ENOMEM. */
int kt_reorder_push(struct kt_reorder *q, __u64 time, __u64 now, const void *data, size_t len);
/* The oldest record if it may leave now (all: at the end, everything may);
 * NULL if none.  kt_reorder_pop() releases it. */
const struct kt_reorder_ent *kt_reorder_peek(const struct kt_reorder *q, __u64 now, bool all);
void kt_reorder_pop(struct kt_reorder *q);
/* When kt_reorder_peek() lets the first held record out (the caller's
 * clock), 0 if none is held. */
__u64 kt_reorder_wake(const struct kt_reorder *q);

#endif
