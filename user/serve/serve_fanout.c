// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sink that hands each record to every live client, encoded once per
 * format. */
#include <stdio.h>
#include "util/log.h"
#include "serve/server.h"

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
	/* The code, read as the load passes (archive/archive.h), kept as
	 * long as the history keeps the program's symbols. */
	if (r->type == KT_RECORD_BPF_EVENT && !s->o.no_code) {
		bool unload = r->bpf_type != KT_BPF_EVENT_PROG_LOAD;

		if (!unload)
			kt_archive_add_prog(&s->code, r->prog_id);
		kt_archive_life(&s->code, r->prog_id, r->time, unload);
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
