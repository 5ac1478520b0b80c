/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the commands share: options (cli.c), the option loop (cmd_opts.h),
 * the start and the report (live.c), the run loop (runloop.c). */
#ifndef KT_CLI_H
#define KT_CLI_H

#include <signal.h>
#include <stdbool.h>
#include "backend/backend.h"
#include "encode/encode.h"
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
};

/* getopt_long codes for the long-only shared options. */
enum {
	OPT_RINGBUF_SIZE = 0x100,
	OPT_DISABLE_HOOK,
	OPT_NO_SNAPSHOT,
	OPT_KALLSYMS,
	OPT_NATIVE_PAGES,
	OPT_WAKEUP_MS,
	OPT_SOCKET_MODE,
	OPT_SOCKET_GROUP,
	OPT_QUEUE,
	OPT_METRICS_FILE,
	OPT_METRICS_INTERVAL,
	OPT_GRACE,
	OPT_CGROUP_ROOT,
	OPT_QUEUE_SIZE,
	OPT_CMD_FIRST_FREE,
};

/* clang-format off */
#define KT_COMMON_LONGOPTS                                                          \
	{ "backend", required_argument, NULL, 'b' },                                \
	{ "format", required_argument, NULL, 'f' },                                 \
	{ "duration", required_argument, NULL, 'd' },                               \
	{ "ringbuf-size", required_argument, NULL, OPT_RINGBUF_SIZE },              \
	{ "queue-size", required_argument, NULL, OPT_QUEUE_SIZE },                  \
	{ "native-pages", required_argument, NULL, OPT_NATIVE_PAGES },              \
	{ "wakeup-ms", required_argument, NULL, OPT_WAKEUP_MS },                    \
	{ "disable-hook", required_argument, NULL, OPT_DISABLE_HOOK },              \
	{ "verbose", no_argument, NULL, 'v' }, { "help", no_argument, NULL, 'h' }

#define KT_COMMON_SHORTOPTS "b:f:d:vh"

/* The options of the commands that run until stopped (stream, record, serve). */
#define KT_LIVE_LONGOPTS                                                            \
	{ "no-snapshot", no_argument, NULL, OPT_NO_SNAPSHOT },                      \
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },                      \
	{ "cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT }
/* clang-format on */

void kt_common_init(struct kt_common *c);
/* Handle one shared option: 1 if handled, 0 if not ours, -1 on a bad value
 * (after printing a one-line error). */
int kt_common_opt(struct kt_common *c, int opt, const char *arg);
/* Help text of the shared options. */
extern const char kt_common_help[];
/* kt_common_help on stdout without the option starting with omit ("-f,"),
 * for commands that do not take it; omit NULL: all of it. */
void kt_print_common_help(const char *omit);
extern const char kt_live_help[];

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

/* The backend -b chose (kt_backend_open()) feeding p; prints its error. */
int kt_open_backend(const struct kt_common *c, struct kt_pipeline *p, struct kt_backend **b);

/* The one report of a run's failure: the line of the sink that failed (a
 * write error, a full disk), or "doing: strerror(-err)". */
void kt_report(const struct kt_pipeline *p, int err, const char *doing);

int cmd_stream(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_tail(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_resolve(int argc, char **argv);
int cmd_kallsyms(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
