// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The sink that hands each record to every live client, encoded once per
 * format. */
#include <stdio.h>
#include <stdlib.h>
#include "util/base.h"
#include "util/clock.h"
#include "util/log.h"
#include "serve/server.h"

/* The delay before the bytes of code without a bpf_prog_info are read:
 * the kernel registers such code before it writes it (a BPF trampoline's
 * ksym is added in bpf_tramp_image_alloc(), its code written after), so a
 * read at once can find the fill (arm64 guests showed BRK), as record's
 * reorder window avoids. */
#define TEXT_DELAY_NS (100ULL * 1000 * 1000)

/* Code without a bpf_prog_info: its bytes to be read TEXT_DELAY_NS after it
 * registers; its death as it unregisters (not read at all if that comes
 * first: its bytes would be whatever took its place). */
static void keep_text(struct kt_server *s, const struct kt_record *r)
{
	size_t i;

	if (r->flags & KT_KSYM_FLAG_UNREGISTER) {
		/* Only what registered before it: the unregister of code an
		 * address held before can arrive after the next one's register
		 * (another CPU). */
		for (i = 0; i < s->ntdue; i++)
			if (s->tdue[i].addr == r->addr && s->tdue[i].time <= r->time)
				s->tdue[i].len = 0;
		kt_archive_text_died(&s->code, r->addr, r->time);
		return;
	}
	if (!r->len || r->len > KT_ARCHIVE_TEXT_MAX || KT_GROW(s->tdue, s->cap_tdue, s->ntdue + 1))
		return;
	s->tdue[s->ntdue++] = (struct text_due){ .addr = r->addr,
						 .time = r->time,
						 .due = kt_monotonic_ns() + TEXT_DELAY_NS,
						 .len = r->len };
}

void read_texts_due(struct kt_server *s, bool all)
{
	__u64 now = kt_monotonic_ns();
	unsigned char *bytes;
	size_t i = 0, k;

	while (i < s->ntdue && (all || s->tdue[i].due <= now)) {
		const struct text_due *t = &s->tdue[i++];

		bytes = t->len ? malloc(t->len) : NULL;
		if (bytes && !kt_archive_read_text(&s->code, t->addr, t->len, bytes))
			kt_archive_add_text(&s->code, t->addr, t->time, bytes, t->len);
		free(bytes);
	}
	for (k = i; k < s->ntdue; k++)
		s->tdue[k - i] = s->tdue[k];
	s->ntdue -= i;
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
	/* The code, read as the load passes (archive/archive.h), kept as
	 * long as the history keeps the program's symbols. */
	if (!s->o.no_code)
		kt_archive_follow(&s->code, r);
	if (r->type == KT_RECORD_KSYMBOL && !s->o.no_code && kt_archive_is_text(r->source))
		keep_text(s, r);
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
