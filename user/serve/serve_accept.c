// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* New clients: accepted up to --max-clients, counted by who they are. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include "util/clock.h"
#include "util/log.h"
#include "serve/server.h"

/* The count of uid; the table's last slot is "other" (KT_UID_OTHER). */
static struct kt_uid_count *uid_slot(struct kt_serve_stats *st, unsigned int uid)
{
	unsigned int i;

	for (i = 0; i < st->nuids; i++)
		if (st->by_uid[i].uid == uid)
			return &st->by_uid[i];
	if (st->nuids >= KT_SERVE_UIDS - 1 && uid != KT_UID_OTHER)
		return uid_slot(st, KT_UID_OTHER);
	st->by_uid[st->nuids].uid = uid;
	return &st->by_uid[st->nuids++];
}

/* Who connected (SO_PEERCRED): logged with -v, counted by uid. */
static void count_peer(struct kt_server *s, int fd, unsigned int id)
{
	struct ucred cred = { .pid = 0, .uid = KT_UID_OTHER, .gid = 0 };
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		cred.uid = KT_UID_OTHER;
	kt_debug("client %u: connected, pid %d uid %u gid %u", id, (int)cred.pid, cred.uid,
		 cred.gid);
	uid_slot(&s->st, cred.uid)->n++;
}

static void accept_one(struct kt_server *s, int fd)
{
	struct client **nc, *c;

	if (s->st.connected >= (unsigned long long)s->o.max_clients) {
		s->st.rejected++;
		kt_warn("refusing a client: %d connected (--max-clients)", s->o.max_clients);
		close(fd);
		return;
	}
	c = calloc(1, sizeof(*c));
	nc = realloc(s->c, (s->nc + 1) * sizeof(*nc));
	if (nc)
		s->c = nc;
	if (!c || !nc || kt_squeue_init(&c->q, s->o.queue)) {
		free(c);
		close(fd);
		return;
	}
	c->s = s;
	c->fd = fd;
	c->id = ++s->next_id;
	c->state = C_HELLO;
	kt_hello_default(&c->hello);
	c->deadline = kt_monotonic_ns() + KT_HELLO_WAIT_MS * 1000000ULL;
	if (kt_watch_start(s->l, &c->w, fd, KT_IN, on_client)) {
		kt_squeue_fini(&c->q);
		free(c);
		close(fd);
		return;
	}
	s->c[s->nc++] = c;
	s->st.accepted++;
	s->st.connected++;
	count_peer(s, fd, c->id);
}

void on_listen(struct kt_watch *w, unsigned int what)
{
	struct kt_server *s = container_of(w, struct kt_server, lw);
	int fd;

	/* Until EAGAIN, or a client that gave up already. */
	while ((fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
		accept_one(s, fd);
}
