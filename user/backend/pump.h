/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The reader thread (issue 34): a backend that wraps another and, once
 * started, runs the wrapped one's poll() on a thread of its own whose only
 * work is to move records out of the kernel's rings into a bounded queue in
 * ksymtap's memory, as perf's reader copies its rings.  The run loop then
 * decodes nothing itself: it takes the queue and hands each record to the
 * pipeline (table, attribution, encoders, sinks).  A resync, an attribution
 * walk or a blocked stdout then delays the pipeline, never the ring's reader.
 *
 * Before kt_pump's start() the wrapper polls the wrapped backend in the
 * caller's thread (the start-up snapshot forks a child, which must not
 * happen while another thread may hold a lock: user/serve/metrics_http.h).
 * The queue is bounded (--queue-size): records that do not fit are counted
 * and reported as one LOST record of origin "queue", never dropped silently.
 */
#ifndef KT_PUMP_H
#define KT_PUMP_H

#include "backend/backend.h"

/* Open the reader around a backend: first kt_pump_new() with the caller's
 * emit and ctx, then open the backend with kt_pump_emit and the returned
 * pump as its ctx, then kt_pump_wrap(). */
struct kt_pump;
int kt_pump_new(struct kt_pump **out, size_t queue_size, kt_emit_fn emit, void *ctx);
int kt_pump_emit(void *ctx, struct kt_record *r);
/* The wrapper, which owns inner from now on (its close() closes both). */
struct kt_backend *kt_pump_wrap(struct kt_pump *p, struct kt_backend *inner);
/* Free a pump that was never wrapped (the backend failed to open). */
void kt_pump_free(struct kt_pump *p);

/* The default --queue-size. */
#define KT_QUEUE_SIZE_DEFAULT (16ULL << 20)

#endif
