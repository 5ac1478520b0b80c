/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the commands share: options (cli.c, options.h), the option loop (cmd_opts.h),
 * the start and the report (live.c), the run loop (runloop.c). */
#ifndef KT_CLI_H
#define KT_CLI_H

#include <signal.h>
#include <stdbool.h>
#include "backend/backend.h"
#include "encode/encode.h"
#include "run/options.h"
#include "sink/kallsyms_file.h"
#include "sink/pipeline.h"

/* Exit statuses: 0 ok, 1 run-time failure, 2 usage.  compare follows diff(1)
 * instead: 0 same, 1 differences, 2 trouble (usage, set-up or run-time). */
#define KT_EXIT_OK 0
#define KT_EXIT_FAIL 1
#define KT_EXIT_USAGE 2

struct kt_common {
	const char *backend; /* bpf | native | auto */
	struct kt_backend_opts bo;
	enum kt_format fmt;
	double duration; /* seconds; 0 = until SIGINT/SIGTERM */
	bool no_snapshot; /* --no-snapshot */
	const char *kallsyms; /* --kallsyms FILE */
	const char *cgroup_root; /* --cgroup-root DIR */
	/* OTLP: taken by the commands that export (stream, serve), from
	 * --otlp-endpoint or the OTEL_* variables (docs/otlp.md). */
	bool otlp_ok;
	const char *otlp_endpoint;
	const char *otlp_spool; /* --otlp-spool DIR */
	unsigned long long otlp_spool_size; /* --otlp-spool-size */
	struct kt_otlp *otlp; /* the exporter, once kt_live_start() opened it */
};

void kt_common_init(struct kt_common *c);
/* Handle one shared option: 1 if handled, 0 if not ours, -1 on a bad value
 * (after printing a one-line error). */
int kt_common_opt(struct kt_common *c, int opt, const char *arg);
/* Parse "4M", "512K", "65536"; -EINVAL on garbage. */
int kt_parse_size(const char *s, unsigned long long *out);

extern volatile sig_atomic_t kt_stop;
void kt_install_signals(void);

/*
 * The event loop (user/util/loop.h) on the backend's fd until SIGINT,
 * SIGTERM, the duration, or SIGCHLD when done is given (record -- CMD: it
 * sets *done); after each batch ticks the pipeline (flushes, put-off work),
 * which arms a timer for what it put off.  Then drains what is left.
 * Returns 0 or the first error from emit/tick.  Nothing wakes an idle run.
 */
int kt_run(struct kt_backend *b, double duration, struct kt_pipeline *p,
	   volatile sig_atomic_t *done);

/* Poll b without waiting until it has nothing more, tick(ctx) after each
 * batch (tick may be NULL): the end of every run loop.  0 or the first error. */
int kt_drain(struct kt_backend *b, int (*tick)(void *ctx), void *ctx);

/*
 * Enumerate what exists (user/snapshot/snapshot.c) into the pipeline: the records are
 * marked snapshot and the symbol table learns them, so that live registers of
 * the same symbols are dropped; and the backend (b, may be NULL) adopts them,
 * so that it recognizes their deaths.  Prints its error (the enumeration's or
 * a sink's), once.
 */
int kt_emit_snapshot(struct kt_pipeline *p, struct kt_backend *b);

/*
 * What a live command does between opening the backend and running: add the
 * --kallsyms sink (kf), emit the snapshot unless --no-snapshot, flush every
 * sink, then print the 'ksymtap: ready' line.  Prints its error, once.
 */
int kt_live_start(struct kt_common *c, struct kt_pipeline *p, struct kt_backend *b,
		  struct kt_kallsyms_file *kf);
/* The same, with ready_extra appended to the ready line. */
int kt_live_start_ready(struct kt_common *c, struct kt_pipeline *p, struct kt_backend *b,
			struct kt_kallsyms_file *kf, const char *ready_extra);

/* The end of what kt_live_start() began: the OTLP exporter sends what it
 * has (up to its timeout) and stops. */
void kt_live_stop(struct kt_common *c);

/* The backend -b chose (kt_backend_open()) feeding p; prints its error. */
int kt_open_backend(const struct kt_common *c, struct kt_pipeline *p, struct kt_backend **b);

/* The one report of a run's failure: the line of the sink that failed (a
 * write error, a full disk), or "doing: strerror(-err)". */
void kt_report(const struct kt_pipeline *p, int err, const char *doing);

#endif
