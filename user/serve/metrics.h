/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Prometheus text exposition format, for node exporter's textfile collector
 * (the file is written beside its final name and renamed over it, so the
 * collector never reads half of one) and for scrapes over HTTP
 * (metrics_http.h).
 */
#ifndef KT_METRICS_H
#define KT_METRICS_H

#include <stdbool.h>
#include <stdio.h>
#include "backend/backend.h"
#include "sink/otlp.h"
#include "sink/pipeline.h"
#include "serve/serve.h"

struct kt_metrics {
	const char *backend; /* "bpf" | "native" */
	const struct kt_pipeline *p;
	/* The backend's own drops: BPF ring buffer, native perf rings. */
	unsigned long long ringbuf_lost, native_lost;
	unsigned long long hook_missed; /* hook runs skipped and not made up: lost */
	unsigned long long hook_skipped, hook_made_up; /* all skipped; made up by twins */
	struct kt_queue_stats queue; /* the reader's (user/backend/pump.h) */
	bool has_hooks;
	unsigned long hooks; /* bit per enum kt_hook */
	const struct kt_serve_stats *serve; /* NULL: not serving */
	const struct kt_otlp_stats *otlp; /* NULL: not exporting */
	double start_time; /* unix seconds */
};

int kt_metrics_print(FILE *f, const struct kt_metrics *m);
/* The exposition in a new buffer (free() it); -errno. */
int kt_metrics_render(const struct kt_metrics *m, char **buf, size_t *len);
/* Atomically replace path; -errno. */
int kt_metrics_write(const char *path, const struct kt_metrics *m);

#endif
