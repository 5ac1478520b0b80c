/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The OTLP/HTTP log exporter (docs/otlp.md): a sink that copies each record
 * into a bounded queue, and a thread of its own that sends them in batches
 * and retries what the collector asks it to.  The thread is what keeps a
 * slow or hung collector from delaying anything else: the sink only copies,
 * and the encoding, compression, DNS and the connection are the thread's.
 */
#ifndef KT_OTLP_H
#define KT_OTLP_H

#include <stddef.h>
#include "sink/otlp_config.h"
#include "sink/pipeline.h"

struct kt_otlp_stats {
	unsigned long long sent; /* log records the collector took */
	unsigned long long rejected; /* ... answered as rejected (partial success) */
	unsigned long long dropped_queue; /* the queue was full */
	unsigned long long dropped_refused; /* a request answered with an error not retried */
	unsigned long long dropped_end; /* still unsent when ksymtap stopped */
	unsigned long long requests; /* requests answered with success */
	unsigned long long retries; /* requests sent again (429, 502, 503, 504, no answer) */
	unsigned long long dropped_spool; /* the spool was full or could not be written */
	unsigned long long spooled; /* records written to the spool */
	size_t queue_bytes, queue_bound;
	unsigned long long spool_bytes, spool_records, spool_bound; /* bound 0: no spool */
};

struct kt_otlp;

/* Set the exporter up and add its sink to p: records queue from then on.
 * 0, or -errno with one line in why. */
int kt_otlp_open(struct kt_otlp **out, const struct kt_otlp_config *c, struct kt_pipeline *p,
		 char *why, size_t why_size);
/* Start its thread, which sends what is queued and what comes: after the
 * start-up snapshot, which forks (a child of a process with more threads
 * than the forking one may find a lock held for good: ASan's allocator's
 * did).  0, or -errno after one error line.  NULL: nothing. */
int kt_otlp_start(struct kt_otlp *o);
/* Send what is queued for up to the request timeout (OTEL_EXPORTER_OTLP_
 * TIMEOUT; with a spool, not at all while the collector does not answer),
 * stop, put what is left into the spool if there is one, say what was left
 * unsent (one line), free.  NULL: nothing. */
void kt_otlp_close(struct kt_otlp *o);
void kt_otlp_get_stats(struct kt_otlp *o, struct kt_otlp_stats *st);

#endif
