/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Symbol history: every dynamic symbol with its extent and the times it was
 * born and died, built from KSYMBOL records in time order, and the one
 * question it answers exactly: what covered address A at time T.  An address
 * is named only by a symbol whose [addr, addr + len) held it at that time,
 * never by the nearest lower one.
 */
#ifndef KT_HISTORY_H
#define KT_HISTORY_H

#include <linux/types.h>
#include <stddef.h>
#include "record.h"

#define KT_HIST_ALIVE (~0ULL)

struct kt_hsym {
	__u64 addr;
	__u64 birth; /* perf's clock; 0: existed when the recording started */
	__u64 death; /* KT_HIST_ALIVE: still there at the end */
	__u32 len;
	unsigned char source; /* enum kt_source */
	char *name;
};

struct kt_history {
	struct kt_hsym *v; /* by birth until kt_history_done(), then by addr */
	size_t n, cap;
	__u32 max_len;
	__u64 end; /* the newest time seen: "now" of the history */
};

void kt_history_init(struct kt_history *h);
void kt_history_fini(struct kt_history *h);
/* One record, in time order (others than KSYMBOL are ignored but for their
 * time).  An unregister of a symbol the history never saw born (a recording
 * without its snapshot) adds it as existing from time 0.  -ENOMEM. */
int kt_history_add(struct kt_history *h, const struct kt_record *r);
/* No more records: index for lookups. */
void kt_history_done(struct kt_history *h);
/* The symbol that held addr at time t, or NULL. */
const struct kt_hsym *kt_history_find(const struct kt_history *h, __u64 addr, __u64 t);
/* Each symbol alive at time t, in address order. */
int kt_history_each_at(const struct kt_history *h, __u64 t,
		       int (*fn)(void *ctx, const struct kt_hsym *s), void *ctx);

#endif
