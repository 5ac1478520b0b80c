/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Matching two record streams of the same window: the kernel's own (native)
 * and ksymtap's (bpf).  Record identity is (kind, addr, ksym_type, flags, name)
 * for KSYMBOL and (kind, bpf type, id) for BPF_EVENT; with equal identity the
 * other fields (len; flags, tag) must agree.  Multiplicity counts: each record
 * matches at most one.  Known kernel deviations are "explained", with a reason.
 */
#ifndef KT_COMPARE_H
#define KT_COMPARE_H

#include <stddef.h>
#include "record/record.h"

enum kt_cmp_kind {
	KT_CMP_MATCHED = 0,
	KT_CMP_ONLY_NATIVE,
	KT_CMP_ONLY_BPF,
	KT_CMP_MISMATCH,
	KT_CMP_EXPLAINED,
	KT_CMP_NKINDS,
};

struct kt_cmp_item {
	enum kt_cmp_kind kind;
	const struct kt_record *native; /* NULL for only-bpf */
	const struct kt_record *bpf; /* NULL for only-native */
	const char *field; /* mismatches: which field */
	const char *reason; /* explained: why */
};

struct kt_compare {
	struct kt_record *rec[2]; /* [0] native, [1] bpf */
	size_t n[2], cap[2];
	unsigned int page_size;
	__u64 edge_ns; /* records this close to the window's ends may be unpaired */
	/* results of kt_compare_run() */
	struct kt_cmp_item *items;
	size_t nitems;
	size_t count[KT_CMP_NKINDS];
	size_t outside; /* records outside [t0, t1], not compared */
};

void kt_compare_init(struct kt_compare *c, unsigned int page_size);
void kt_compare_fini(struct kt_compare *c);
/* Keep a copy of r (KSYMBOL or BPF_EVENT; origin selects the side). */
int kt_compare_add(struct kt_compare *c, const struct kt_record *r);
/* Match the records with t0 <= time <= t1 (perf clock, ns). */
int kt_compare_run(struct kt_compare *c, __u64 t0, __u64 t1);
const char *kt_cmp_kind_name(enum kt_cmp_kind k);

#endif
