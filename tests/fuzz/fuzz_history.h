/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The small history the symbolize and query harnesses look addresses up in:
 * a program that dies, one that takes part of its range, an ftrace
 * trampoline; names with a quote and a backslash for the JSON answers. */
#ifndef KT_FUZZ_HISTORY_H
#define KT_FUZZ_HISTORY_H

#include <linux/perf_event.h>
#include <stdio.h>
#include "history/history.h"

static inline void fuzz_history(struct kt_history *h)
{
	static const struct {
		__u64 t, addr;
		__u32 len;
		bool unreg;
	} recs[] = {
		{ 0, 0xffffffffc0001000ULL, 0x80, false },
		{ 5000000000ULL, 0xffffffffc0001000ULL, 0x80, true },
		{ 6000000000ULL, 0xffffffffc0001040ULL, 0x100, false },
		{ 7000000000ULL, 0xffffffffc0203000ULL, 0x1000, false },
	};
	struct kt_record r;
	size_t i;

	kt_history_init(h);
	for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.type = KT_RECORD_KSYMBOL;
		r.time = recs[i].t;
		r.addr = recs[i].addr;
		r.len = recs[i].len;
		r.ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF;
		r.source = i == 3 ? KT_SRC_FTRACE : KT_SRC_BPF_PROG;
		r.flags = recs[i].unreg ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0;
		snprintf(r.name, sizeof(r.name), "bpf_prog_%zu\"\\", i);
		kt_history_add(h, &r);
	}
}

#endif
