// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sink that hands each record to every live client, encoded once per
 * format; the tables and LOST records a client is sent. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "util/log.h"
#include "serve/server.h"

struct walk_ctx {
	struct kt_server *s;
	struct client *c;
	unsigned long long n;
};

static int queue_snapshot_record(void *ctx, struct kt_record *r)
{
	struct walk_ctx *w = ctx;
	char *buf = w->s->enc[0];
	ssize_t n = kt_encode(w->c->hello.fmt, r, buf, KT_ENCODE_MAX);

	if (n < 0)
		return (int)n;
	w->n++;
	return kt_squeue_push_reserved(&w->c->q, buf, n);
}

/* The whole table as snapshot records; JSON clients also get a closing
 * snapshot_end line so they know when their table is complete. */
int queue_snapshot(struct kt_server *s, struct client *c, const char *reason)
{
	struct walk_ctx w = { .s = s, .c = c };
	char line[256];
	ssize_t n;
	int err;

	err = kt_pipeline_walk(s->p, queue_snapshot_record, &w);
	if (!err && c->hello.fmt == KT_FMT_JSON) {
		n = kt_encode_snapshot_end(line, sizeof(line), now_perf(s), w.n, reason);
		err = n < 0 ? (int)n : kt_squeue_push_reserved(&c->q, line, n);
	}
	if (err == -ENOBUFS) {
		drop(s, c, KT_DISC_TOO_BIG, "raise --client-queue");
		kt_warn("client %u: the snapshot does not fit in --client-queue %zu; disconnected",
			c->id, s->o.queue);
		return err;
	}
	if (err) {
		drop(s, c, KT_DISC_ERROR, strerror(-err));
		return err;
	}
	s->st.snapshots++;
	return 0;
}

/* How many records the client missed: a LOST record of origin "serve".
 * After an overflow the queue is empty; at the end it may be full (last). */
int queue_lost(struct kt_server *s, struct client *c, unsigned long long lost, bool last)
{
	struct kt_record r;
	ssize_t n;

	memset(&r, 0, offsetof(struct kt_record, name));
	r.name[0] = 0;
	r.type = KT_RECORD_LOST;
	r.origin = KT_ORIGIN_SERVE;
	r.rflags = KT_RF_NO_TASK;
	r.time = now_perf(s);
	r.lost = lost;
	n = kt_encode(c->hello.fmt, &r, s->enc[0], KT_ENCODE_MAX);
	if (n < 0 || (last ? kt_squeue_push_last : kt_squeue_push_reserved)(&c->q, s->enc[0], n)) {
		drop(s, c, KT_DISC_TOO_BIG, "no room for the lost record");
		return -ENOBUFS;
	}
	return 0;
}

static int sink_record(struct kt_sink *sink, const struct kt_record *r)
{
	struct kt_server *s = (struct kt_server *)sink;
	struct client *c;
	ssize_t n;
	int i;

	if (kt_history_add(&s->hist, r) && !s->hist_warned) {
		s->hist_warned = true;
		kt_warn("out of memory for the query history; queries may answer unknown");
	}
	s->enclen[0] = s->enclen[1] = s->enclen[2] = -1;
	for (i = 0; i < s->nc; i++) {
		c = s->c[i];
		if (c->state != C_LIVE)
			continue;
		n = s->enclen[c->hello.fmt];
		if (n < 0) {
			n = kt_encode(c->hello.fmt, r, s->enc[c->hello.fmt], KT_ENCODE_MAX);
			if (n < 0)
				return (int)n; /* a record no encoder takes: a bug upstream */
			s->enclen[c->hello.fmt] = n;
		}
		if (kt_squeue_push(&c->q, s->enc[c->hello.fmt], n)) {
			s->st.lost_records++;
			if (c->q.lost == 1) {
				s->st.overflows++;
				kt_warn("client %u: queue full (%zu bytes, --client-queue); counting "
					"its lost records until it catches up",
					c->id, s->o.queue);
			}
		}
	}
	return 0;
}

/* After each batch: push every client's new records towards its socket. */
static int sink_flush(struct kt_sink *sink)
{
	struct kt_server *s = (struct kt_server *)sink;
	int i;

	for (i = 0; i < s->nc; i++)
		if (s->c[i]->state == C_LIVE && !kt_squeue_empty(&s->c[i]->q))
			service_out(s, s->c[i]);
	return 0;
}

void fanout_init(struct kt_server *s)
{
	s->sink.name = "socket clients";
	s->sink.record = sink_record;
	s->sink.flush = sink_flush;
}
