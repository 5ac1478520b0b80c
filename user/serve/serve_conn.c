// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What every part of the daemon does to a client: its readiness, closing
 * and freeing it, and the records the daemon itself queues for it (the
 * table, LOST); the daemon's clocks.  The bottom of serve/: it calls none
 * of the other files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util/clock.h"
#include "util/log.h"
#include "serve/server.h"

__u64 now_perf(struct kt_server *s)
{
	return kt_monotonic_ns() + s->clock_off;
}

__s64 wall_offset(struct kt_server *s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__s64)ts.tv_sec * 1000000000LL + ts.tv_nsec - (__s64)now_perf(s);
}

void set_events(struct kt_server *s, struct client *c)
{
	kt_watch_set(&c->w, (c->rd_closed || c->qpaused ? 0 : KT_IN) | (c->want_out ? KT_OUT : 0));
}

void drop(struct kt_server *s, struct client *c, enum kt_disc why, const char *detail)
{
	if (c->state == C_DEAD)
		return;
	kt_debug("client %u: closed (%s%s%s), %llu records lost over its life", c->id,
		 kt_disc_names[why], detail ? ": " : "", detail ? detail : "", c->q.lost_total);
	kt_watch_stop(&c->w);
	close(c->fd);
	c->fd = -1;
	c->state = C_DEAD;
	s->st.disconnects[why]++;
	s->st.connected--;
}

void reap(struct kt_server *s)
{
	int i, j;

	for (i = j = 0; i < s->nc; i++) {
		if (s->c[i]->state == C_DEAD) {
			kt_squeue_fini(&s->c[i]->q);
			free(s->c[i]->qin);
			free(s->c[i]);
		} else {
			s->c[j++] = s->c[i];
		}
	}
	s->nc = j;
}

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
