/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A backend produces kt_records: "bpf" from ksymtap's own fentry/fexit
 * programs, "native" from the kernel's perf_event side-band records.  Both
 * feed the same emit callback, so every output works with either.
 */
#ifndef KT_BACKEND_H
#define KT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include "record/record.h"

struct kt_backend_opts {
	size_t ringbuf_size; /* bpf: bytes, power of two */
	size_t queue_size; /* the reader's queue (user/backend/pump.h), bytes */
	unsigned long disabled; /* bpf: bitmask of enum kt_hook */
	size_t native_pages; /* native: data pages per CPU ring, power of two */
	unsigned int wakeup_ms; /* bpf: poll period when wakeups are batched; 0: the kernel's */
	bool walker; /* bpf: load the snapshot's walker with the hooks */
	/* bpf: the BPF side copies at their unload the programs the archive
	 * did not read, and the reader stages them here (archive/stage.h);
	 * NULL: no copies (stream, tail, --no-code). */
	struct kt_code_stage *code_stage;
	/* Test and bench switches, from the environment (kt_common_init()):
	 * KSYMTAP_DEBUG_EMPTY, the program hooks return at once;
	 * KSYMTAP_DEBUG_KTIME, raw bpf_ktime_get_ns() timestamps;
	 * KSYMTAP_DEBUG_NO_BACKUP, no backup twins (the bench's A/B). */
	bool debug_empty, debug_ktime, debug_no_backup;
};

struct kt_walker;
struct kt_code_stage;

struct kt_backend_ops;

/* What a backend makes of each source (enum kt_source, 1..KT_SRC_MAX-1). */
enum kt_source_state {
	KT_SS_LIVE = 0, /* delivered */
	KT_SS_ABSENT, /* this kernel has no such code at all: nothing to miss */
	KT_SS_OFF, /* the kernel has it, this backend cannot watch it: why[] */
};

struct kt_source_report {
	unsigned char state[KT_SRC_MAX];
	char why[KT_SRC_MAX][128];
};

/* The reader's queue (user/backend/pump.h), for the metrics. */
struct kt_queue_stats {
	size_t bytes, peak, bound;
	unsigned long long lost; /* records that did not fit */
};

/* Each backend embeds this first in its own state. */
struct kt_backend {
	const struct kt_backend_ops *ops;
	/* When poll() must run again though fd() stays quiet (CLOCK_MONOTONIC
	 * ns; 0: only when it fires), as poll() last left it: drop counters to
	 * read, batched wakeups (--wakeup-ms), a CPU scan without uevents. */
	__u64 wake_ns;
};

struct kt_backend_ops {
	const char *name;
	/* On failure, why[] says in one line what went wrong; nothing is printed. */
	int (*open)(struct kt_backend **b, const struct kt_backend_opts *o, kt_emit_fn emit,
		    void *ctx, char *why, size_t why_size);
	/* An fd that becomes readable when records are waiting. */
	int (*fd)(struct kt_backend *b);
	/* Consume what is waiting (timeout_ms as for poll(2)); returns records
	 * emitted, or the emit callback's error. */
	int (*poll)(struct kt_backend *b, int timeout_ms);
	/* Space-separated live sources, for the ready line. */
	void (*describe)(struct kt_backend *b, char *buf, size_t size);
	/* Each source's state; NULL: every source live. */
	void (*sources)(struct kt_backend *b, struct kt_source_report *r);
	/* Attached hooks, one bit per enum kt_hook (metrics); NULL: no hooks. */
	unsigned long (*hooks)(struct kt_backend *b);
	/* A symbol the start-up snapshot found (KT_RF_SNAPSHOT), so that the
	 * backend can recognize its death; NULL if it needs nothing. */
	int (*adopt)(struct kt_backend *b, const struct kt_record *r);
	/* Hand the snapshot's walker over (user/snapshot/snapshot.h), if it has one:
	 * the caller closes it.  NULL, or -ENOENT: none. */
	int (*walker)(struct kt_backend *b, struct kt_walker *out);
	/* Records the backend itself lost so far, in the BPF ring buffer
	 * (native false) or the kernel's native perf rings (native true). */
	unsigned long long (*dropped)(struct kt_backend *b, bool native);
	/* Hook runs the kernel skipped (recursion protection) that no backup
	 * twin made up: records lost; NULL: none can be. */
	unsigned long long (*missed)(struct kt_backend *b);
	/* All the runs the main hook programs skipped, and how many of those
	 * their twins made up (*made_up); NULL: none can be skipped. */
	unsigned long long (*skipped)(struct kt_backend *b, unsigned long long *made_up);
	/* The reader thread (user/backend/pump.h): start it, once the start-up
	 * snapshot is in; move everything the kernel made so far into the
	 * queue before returning (a drain's first step); its queue's figures.
	 * NULL where there is none. */
	int (*start)(struct kt_backend *b);
	int (*sync)(struct kt_backend *b);
	void (*queue)(struct kt_backend *b, struct kt_queue_stats *st);
	void (*close)(struct kt_backend *b);
};

/* The defaults of --ringbuf-size (bytes) and --native-pages, sized from this
 * machine (backend.c says how). */
size_t kt_backend_default_ringbuf(void);
size_t kt_backend_default_native_pages(void);

extern const struct kt_backend_ops kt_bpf_backend;
extern const struct kt_backend_ops kt_native_backend;

/* The ready line's sources: each by name, "(native)" if in native_mask,
 * "(absent)" or "(missing)" by its state. */
void kt_sources_describe(const struct kt_source_report *r, unsigned int native_mask, char *buf,
			 size_t size);

/* b->ops->adopt(b, r) if b has one; a failure is a warning (the backend will
 * not see that symbol go), not an error. */
void kt_backend_adopt(struct kt_backend *b, const struct kt_record *r);

#endif
