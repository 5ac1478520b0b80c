/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where records go: backend -> kt_pipeline_emit() -> symbol table (dedupe,
 * completion) -> every sink (stdout, perf.data, kallsyms file, socket clients).
 */
#ifndef KT_PIPELINE_H
#define KT_PIPELINE_H

#include "record/attrib.h"
#include "record/recbuf.h"
#include "record/record.h"
#include "record/symtab.h"

struct kt_sink {
	const char *name;
	/* One record; -errno stops the run. */
	int (*record)(struct kt_sink *s, const struct kt_record *r);
	/* After each batch (and at the end): push buffered data out. */
	int (*flush)(struct kt_sink *s);
	/* When a periodic flush is due for what it put off (CLOCK_MONOTONIC
	 * ns), 0 if nothing waits; NULL: it never puts anything off. */
	__u64 (*wake_ns)(struct kt_sink *s);
	/* Set by the pipeline for the flush it calls: a periodic one (after a
	 * batch, kt_pipeline_tick()), which a sink may put off, or the last
	 * one before output is read (kt_pipeline_flush()), which it may not. */
	bool periodic;
	/* Filled by a sink that fails: one line naming what failed and why
	 * ("writing to stdout: Broken pipe"), for the command to print once. */
	char why[256];
};

/* Fill s->why; returns err (a -errno), for "return kt_sink_fail(...)". */
int kt_sink_fail(struct kt_sink *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define KT_MAX_SINKS 8

struct kt_pipeline;
struct kt_backend;

/*
 * Enumerating again after a reported loss (user/run/resync.c): a LOST record of
 * a backend sets wanted; the next tick runs it (at most so often), the last
 * flush in any case.  run is NULL where nothing live feeds the pipeline.
 */
struct kt_resync {
	int (*run)(struct kt_pipeline *p, bool force);
	struct kt_backend *backend;
	bool wanted;
	__u64 not_before; /* CLOCK_MONOTONIC ns */
	__s64 clock_off; /* to perf's clock, for the records' times */
	bool have_clock;
	bool warned; /* what it cannot list, said once */
	unsigned long long runs, registered, unregistered;
};

struct kt_pipeline {
	struct kt_symtab *tab;
	struct kt_attrib_cache *attrib; /* fills kt_record.attrib before the sinks */
	struct kt_sink *sinks[KT_MAX_SINKS];
	int nsinks;
	struct kt_sink *failed; /* the first sink that returned an error */
	/* Records passed on, by type and source (metrics). */
	unsigned long long ksymbols[KT_SRC_MAX], bpf_events, lost, dups;
	unsigned long long untracked; /* kt_symtab_untracked() last seen */
	struct kt_resync resync;
	/* Not NULL: records are kept here in order, not passed on (the start-up
	 * snapshot's merge, user/run/live.c). */
	struct kt_recbuf *hold;
};

int kt_pipeline_init(struct kt_pipeline *p);
void kt_pipeline_fini(struct kt_pipeline *p);
int kt_pipeline_add_sink(struct kt_pipeline *p, struct kt_sink *s);
/* The backends' kt_emit_fn; ctx is the pipeline. */
int kt_pipeline_emit(void *ctx, struct kt_record *r);
int kt_pipeline_flush(struct kt_pipeline *p);
/* kt_symtab_walk() of p's table, with attribution filled in. */
int kt_pipeline_walk(struct kt_pipeline *p, int (*fn)(void *ctx, struct kt_record *r), void *ctx);
/* After each batch: flushes, the attribution walk's next slice, a resync
 * that is due. */
int kt_pipeline_tick(void *ctx);
/* When the next tick is due though no record comes (CLOCK_MONOTONIC ns), 0
 * if nothing waits: a sink's put-off flush, the attribution walk, a resync. */
__u64 kt_pipeline_wake_ns(const struct kt_pipeline *p);
/* Resolve cgroup ids against the cgroup2 mount at root (--cgroup-root):
 * 0, or -ENOENT if root is not a usable one (paths then stay unknown). */
int kt_pipeline_cgroup_root(struct kt_pipeline *p, const char *root);
/* What the first failed sink said (its why), or NULL: a -errno the pipeline
 * returned is a sink's if this is not NULL. */
const char *kt_pipeline_why(const struct kt_pipeline *p);

#endif
