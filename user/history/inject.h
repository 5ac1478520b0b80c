/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What `ksymtap inject` adds to perf's perf.data, and where (docs/inject.md).
 *
 * The engine keeps a model of the dynamic-symbol maps perf's report builds
 * from IN's own KSYMBOL records (tools/perf/util/machine.c: a register
 * creates a map unless one already covers the address, in which case it only
 * adds a symbol at that map's start; an unregister drops the map covering
 * the address).  Each record of FILE is decided against that model at its
 * time: already there (IN has it), missing (inject it), or different (inject
 * an unregister of perf's map, then ksymtap's register, so ksymtap's is what
 * a later lookup finds).  The decisions become records with a time and,
 * where they must follow one of IN's records of the same time, that
 * record's offset.  Placement in IN's stream is kt_inject_due()'s job.
 */
#ifndef KT_INJECT_H
#define KT_INJECT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "record/record.h"

#define KT_INJ_NO_DEP (~0ULL)

/* One of IN's KSYMBOL records, or a map of the model. */
struct kt_inj_sym {
	__u64 time;
	__u64 off; /* IN: stream offset of the record; ours: KT_INJ_NO_DEP */
	/* A map of the model made by IN: the offset of the last of IN's records
	 * that went into it (perf adds a register it covers to it). */
	__u64 last_off;
	__u64 addr;
	__u32 len;
	__u16 flags;
	bool ours;
	char *name;
};

/* A record to add. */
struct kt_inj_out {
	__u64 time;
	__u64 dep; /* offset of IN's record it must follow, or KT_INJ_NO_DEP */
	bool done;
	struct kt_record r;
};

struct kt_inject {
	bool verbose;
	/* FILE's KSYMBOL and BPF_EVENT records, in the order they are decided. */
	struct kt_record *f;
	__u64 *f_time; /* when each is decided (snapshot records: see t_eff) */
	size_t nf, f_next, f_cap, ft_cap;
	unsigned long long f_lost; /* LOST records in FILE: what it lacks itself */
	/* IN's KSYMBOL history, in time order, and its BPF_EVENTs (type, id). */
	struct kt_inj_sym *h;
	size_t nh, h_cap, h_applied;
	__u64 *hb; /* type << 32 | id, sorted */
	size_t nhb, hb_cap;
	/* The model of perf's maps, sorted by addr. */
	struct kt_inj_sym *m;
	size_t nm, m_cap;
	/* Decisions. */
	struct kt_inj_out *j;
	size_t nj, j_cap, j_next;
	/* Stats. */
	unsigned long long added_ksym, added_bpf, replaced, present, f_ksym_reg, common;
};

void kt_inject_init(struct kt_inject *ij, bool verbose);
void kt_inject_fini(struct kt_inject *ij);
/* One record of FILE (KSYMBOL, BPF_EVENT or LOST), in FILE's order. */
int kt_inject_add_file(struct kt_inject *ij, const struct kt_record *r);
/* FILE is complete: order its records for deciding (time-0 snapshot records
 * go where IN's history lets them, see inject.c). */
void kt_inject_file_done(struct kt_inject *ij);
/* One of IN's records (type KSYMBOL or BPF_EVENT: header and body), its
 * time and stream offset.  -ENOMEM, -EINVAL for a malformed body. */
int kt_inject_add_in(struct kt_inject *ij, const void *rec, __u64 time, __u64 off);
/* IN's history is complete (file mode, after the first pass): sort it. */
void kt_inject_in_done(struct kt_inject *ij);
/* Decide FILE's records due before limit (all: ~0ULL) against IN's history
 * known so far.  pos: the stream offset already copied (a decision that must
 * follow an IN record before pos needs no dependency). */
int kt_inject_decide(struct kt_inject *ij, __u64 limit, __u64 pos);
/* True if IN and FILE have KSYMBOLs but not one (addr, name) in common. */
bool kt_inject_strangers(const struct kt_inject *ij);

#endif
