/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The loader's one record type: what a PERF_RECORD_KSYMBOL, PERF_RECORD_BPF_EVENT
 * or PERF_RECORD_LOST says, plus the sample_id trailer fields and ksymtap's own
 * attribution.  Every backend produces these and every output consumes them.
 */
#ifndef KT_RECORD_H
#define KT_RECORD_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "ksymtap.h"

/* Which backend saw it. */
enum kt_origin {
	KT_ORIGIN_BPF = 0,
	KT_ORIGIN_NATIVE,
	KT_ORIGIN_SNAPSHOT,
	KT_ORIGIN_SERVE, /* made by the daemon for one client (its queue's LOST) */
	/* A difference the enumeration after a loss found (user/run/resync.c):
	 * a register or an unregister the lost records held. */
	KT_ORIGIN_RESYNC,
	/* The reader's own LOST record: its queue was full (user/backend/pump.h). */
	KT_ORIGIN_QUEUE,
};

struct kt_attrib;

/* kt_record.rflags */
#define KT_RF_SNAPSHOT 0x1 /* enumerated at start-up, not seen being born */
#define KT_RF_LOADER_IDENTITY 0x2 /* pid/comm/cgroup kept from load time */
#define KT_RF_NO_TASK 0x4 /* no pid/tid/comm known (perf prints -1) */
/* The task is whoever ran the register or unregister (the BPF hooks: a
 * kworker unloads); the table puts the loader's identity into an unregister
 * from the register's, where both have this flag (user/record/symtab.c). */
#define KT_RF_TASK_AT_HAND 0x8

struct kt_record {
	__u32 type; /* KT_RECORD_KSYMBOL, KT_RECORD_BPF_EVENT, KT_RECORD_LOST */
	__u16 rflags;
	__u8 source; /* enum kt_source */
	__u8 origin; /* enum kt_origin */
	__u64 time; /* ns, perf's clock */
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u64 cgroup_id;
	char comm[KT_COMM_LEN];
	/* KSYMBOL */
	__u64 addr;
	__u32 len;
	__u16 ksym_type;
	__u16 flags;
	/* BPF_EVENT */
	__u16 bpf_type;
	__u16 bpf_flags;
	__u32 prog_id;
	__u8 tag[KT_TAG_SIZE];
	/* LOST */
	__u64 lost;
	/* A BPF_PROG unregister KSYMBOL: the BPF side's copy of its program's
	 * code, staged under this number by the reader (archive/stage.h);
	 * 0: none.  The reader staged it just before it passed this record on,
	 * so the copy goes with this very unregister, not another one at the
	 * same address still in the queue. */
	__u64 code_seq;
	/* What the cgroup id resolves to (user/record/attrib.h), set by the pipeline;
	 * NULL: not looked up.  Valid while the record is being emitted. */
	const struct kt_attrib *attrib;
	/* KSYMBOL: the symbol; BPF_EVENT: the program's name (not in perf's record) */
	char name[KT_NAME_MAX];
};

const char *kt_source_name(unsigned int source);
const char *kt_ksym_type_name(unsigned int ksym_type);
const char *kt_record_kind_name(unsigned int type);

/* Which source a symbol belongs to, from what a perf record says of it. */
unsigned char kt_classify(unsigned int ksym_type, const char *name);

/* Where a producer (a backend, the snapshot) hands each record: 0, or a
 * negative errno to stop the run (an output error). */
typedef int (*kt_emit_fn)(void *ctx, struct kt_record *r);

#endif
