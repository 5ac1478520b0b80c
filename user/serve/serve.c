// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The daemon: its state opened and freed, its tick, its figures. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util/clock.h"
#include "util/log.h"
#include "serve/serve_socket.h"
#include "serve/server.h"

const char *const kt_disc_names[KT_DISC_MAX] = {
	[KT_DISC_PEER] = "peer",       [KT_DISC_DONE] = "done",
	[KT_DISC_HELLO] = "handshake", [KT_DISC_TOO_BIG] = "snapshot_too_big",
	[KT_DISC_ERROR] = "error",     [KT_DISC_SHUTDOWN] = "shutdown",
};

void kt_server_tick(struct kt_server *s)
{
	__u64 now = kt_monotonic_ns(), perf = now_perf(s);
	int i;

	s->wall_off = wall_offset(s);
	kt_history_trim(&s->hist, s->o.history_max,
			perf > s->o.history_age ? perf - s->o.history_age : 0);
	read_texts_due(s, false);
	kt_archive_trim(&s->code, s->o.history_max,
			perf > s->o.history_age ? perf - s->o.history_age : 0, s->o.code_max);
	for (i = 0; i < s->nc; i++)
		if (s->c[i]->state == C_HELLO && now >= s->c[i]->deadline)
			hello_deadline(s, s->c[i]);
	reap(s);
}

__u64 kt_server_wake_ns(const struct kt_server *s)
{
	__u64 wake = 0, death = kt_history_oldest_death(&s->hist);
	__s64 expiry;
	int i;

	for (i = 0; i < s->nc; i++)
		if (s->c[i]->state == C_HELLO)
			wake = kt_wake_min(wake, s->c[i]->deadline);
	/* The oldest dead symbol leaves the history --history-age after its
	 * death (perf's clock: the daemon's clock offset back to ours). */
	expiry = (__s64)(death + s->o.history_age) - s->clock_off;
	if (death && expiry > 0)
		wake = kt_wake_min(wake, (__u64)expiry);
	if (s->ntdue)
		wake = kt_wake_min(wake, s->tdue[0].due);
	return wake;
}

int kt_server_open(struct kt_server **out, const struct kt_serve_opts *o, struct kt_pipeline *p,
		   struct kt_loop *l, char *why, size_t why_size)
{
	struct kt_server *s = calloc(1, sizeof(*s));
	int err;

	if (!s) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	s->o = *o;
	s->p = p;
	s->l = l;
	fanout_init(s);
	s->lfd = kt_listen_unix(o->path, o->mode, o->gid, &s->ino);
	if (s->lfd < 0) {
		err = s->lfd;
		if (err == -EADDRINUSE)
			snprintf(why, why_size,
				 "%s: another daemon is serving there (it accepted a connection); "
				 "not replacing it",
				 o->path);
		else if (err == -EEXIST)
			snprintf(why, why_size, "%s: exists and is not a socket; not replacing it",
				 o->path);
		else
			snprintf(why, why_size, "%s: %s", o->path, strerror(-err));
		free(s);
		return err;
	}
	err = kt_watch_start(l, &s->lw, s->lfd, KT_IN, on_listen) ?:
								    kt_pipeline_add_sink(p, &s->sink);
	if (err) {
		snprintf(why, why_size, "%s: %s", o->path, strerror(-err));
		kt_server_stop_accepting(s);
		free(s);
		return err;
	}
	if (kt_perf_clock_offset(&s->clock_off))
		s->clock_off = 0;
	kt_history_init(&s->hist);
	kt_stage_init(&s->stage);
	if (!o->no_code)
		s->code.stage = &s->stage;
	s->wall_off = wall_offset(s);
	*out = s;
	return 0;
}

struct kt_code_stage *kt_server_code_stage(struct kt_server *s)
{
	return s->code.stage;
}

void kt_server_free(struct kt_server *s)
{
	if (!s)
		return;
	kt_server_stop_accepting(s);
	kt_history_fini(&s->hist);
	kt_archive_free(&s->code);
	kt_stage_fini(&s->stage);
	free(s->tdue);
	free(s->c);
	free(s);
}

void kt_server_get_stats(const struct kt_server *s, struct kt_serve_stats *st)
{
	*st = s->st;
	st->hist_live = s->hist.live;
	st->hist_dead = s->hist.dead;
	st->hist_bytes = s->hist.bytes;
	st->hist_evicted = s->hist.evicted;
	st->code_progs = s->code.progs.n;
	st->code_texts = s->code.ntext;
	st->code_bytes = s->code.bytes;
	st->code_gone = s->code.gone;
	st->code_failed = s->code.failed;
	st->code_evicted = s->code.evicted;
}

const struct kt_history *kt_server_history(const struct kt_server *s)
{
	return &s->hist;
}
