// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stopping: no new clients, a bounded moment for what is queued, then
 * every client closed. */
#include <unistd.h>
#include "util/clock.h"
#include "serve/serve_socket.h"
#include "serve/server.h"

void kt_server_stop_accepting(struct kt_server *s)
{
	if (s->lfd < 0)
		return;
	kt_watch_stop(&s->lw);
	close(s->lfd);
	s->lfd = -1;
	kt_unlink_ours(s->o.path, s->ino);
}

void kt_server_shutdown(struct kt_server *s, int timeout_ms)
{
	__u64 end = kt_monotonic_ns() + (__u64)timeout_ms * 1000000;
	unsigned long long lost;
	int i, busy;

	kt_server_stop_accepting(s);
	for (i = 0; i < s->nc; i++) {
		if (s->c[i]->state == C_HELLO)
			drop(s, s->c[i], KT_DISC_SHUTDOWN, NULL);
		/* A client still in overflow would never hear of what it
		 * missed since: its count goes last, behind what is queued. */
		else if (s->c[i]->state != C_DEAD && kt_squeue_end_overflow(&s->c[i]->q, &lost))
			queue_lost(s, s->c[i], lost, true);
	}
	/* What is queued was promised: give slow readers a bounded moment. */
	for (;;) {
		for (i = busy = 0; i < s->nc; i++) {
			if (s->c[i]->state == C_DEAD)
				continue;
			service_out(s, s->c[i]);
			busy += s->c[i]->state != C_DEAD && !kt_squeue_empty(&s->c[i]->q);
		}
		if (!busy || kt_monotonic_ns() >= end)
			break;
		/* The clients' own watches send, and drop those gone. */
		kt_loop_after(s->l, NULL, NULL);
		if (kt_loop_once(s->l, 50))
			break;
	}
	for (i = 0; i < s->nc; i++)
		drop(s, s->c[i], KT_DISC_SHUTDOWN, NULL);
	reap(s);
}
