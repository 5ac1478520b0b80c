/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Symbol history: every dynamic symbol with its extent and the times it was
 * born and died, built from KSYMBOL records in time order, and the one
 * question it answers exactly: what covered address A at time T.  An address
 * is named only by a symbol whose [addr, addr + len) held it at that time,
 * never by the nearest lower one.
 *
 * Symbols are kept by start address (a sorted array of addresses), each
 * address with its generations in birth order: the kernel reuses addresses
 * (bpf_prog_pack since 5.18 packs programs into shared pages), so a lookup
 * is a binary search for the address and one for the time.  The history is
 * built while records arrive (serve) and bounded by dropping the symbols
 * that died first (kt_history_trim()).
 */
#ifndef KT_HISTORY_H
#define KT_HISTORY_H

#include <linux/types.h>
#include <stddef.h>
#include "record/record.h"
#include "record/hsym.h"

/* The generations of one start address, oldest first. */
struct kt_hslot {
	__u64 addr;
	/* The newest generation's, here so that a lookup of the present (most
	 * are: profilers' fresh samples) does not touch g[]. */
	__u64 last_birth, last_death;
	__u32 last_len;
	__u32 max_len;
	__u32 n, cap;
	struct kt_hsym *g;
};

struct kt_history {
	struct kt_hslot *s; /* by address */
	size_t ns, scap;
	size_t live, dead; /* symbols */
	size_t bytes; /* allocated for the history, allocator overhead aside */
	unsigned long long evicted;
	__u32 max_len;
	__u64 end; /* the newest time seen: "now" of a recording */
	/* Dead symbols by death, oldest first (a ring): what trimming drops. */
	struct kt_hdeath {
		__u64 addr, death;
	} * dq;
	size_t dq_head, dq_n, dq_cap;
};

void kt_history_init(struct kt_history *h);
void kt_history_fini(struct kt_history *h);
/* One record, in time order (others than KSYMBOL are ignored but for their
 * time).  An unregister of a symbol the history never saw born (a recording
 * without its snapshot) adds it as existing from time 0.  -ENOMEM. */
int kt_history_add(struct kt_history *h, const struct kt_record *r);
/* No more records.  (Lookups work at any time; kept for readers of files.) */
void kt_history_done(struct kt_history *h);
/* Drop dead symbols, those that died first, while more than max_dead are
 * kept or while the oldest died before min_death.  Live ones always stay. */
void kt_history_trim(struct kt_history *h, size_t max_dead, __u64 min_death);
/* The death time of the dead symbol kept longest, 0 if none is kept. */
__u64 kt_history_oldest_death(const struct kt_history *h);
/* The symbol that held addr at time t (KT_HIST_NOW: now), or NULL. */
const struct kt_hsym *kt_history_find(const struct kt_history *h, __u64 addr, __u64 t);
/* Of every symbol that ever held addr, the one born last, or NULL. */
const struct kt_hsym *kt_history_find_last(const struct kt_history *h, __u64 addr);
/* Each symbol alive at time t, in address order. */
int kt_history_each_at(const struct kt_history *h, __u64 t,
		       int (*fn)(void *ctx, const struct kt_hsym *s), void *ctx);

#endif
