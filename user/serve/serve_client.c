// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A client: its handshake, its requests, its queue going out. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "record/kallsyms.h"
#include "util/log.h"
#include "serve/server.h"

/* After an overflow, once the client has read everything: what it missed,
 * then the table anew.  Once the daemon is stopping (it no longer accepts),
 * the count is the last word, as for a client still in overflow then: a
 * table anew would be cut short by the shutdown. */
static int resync(struct kt_server *s, struct client *c, unsigned long long lost)
{
	bool stopping = s->lfd < 0;
	int err = queue_lost(s, c, lost, stopping);

	if (err || stopping)
		return err;
	kt_debug("client %u: caught up after missing %llu records; sending the table again", c->id,
		 lost);
	return queue_snapshot(s, c, "resync");
}

static void answer_queries(struct kt_server *s, struct client *c);

static bool room_for_answer(const struct client *c)
{
	return c->q.limit - c->q.len >= KT_QUERY_ANSWER_MAX;
}

/* Send what the socket takes; resync or finish when the queue runs dry. */
void service_out(struct kt_server *s, struct client *c)
{
	unsigned long long lost;
	bool want;
	ssize_t n;

	for (;;) {
		n = kt_squeue_send(&c->q, c->fd);
		if (n < 0) {
			drop(s, c, n == -EPIPE || n == -ECONNRESET ? KT_DISC_PEER : KT_DISC_ERROR,
			     strerror(-n));
			return;
		}
		if (kt_squeue_resync_due(&c->q, &lost)) {
			if (resync(s, c, lost))
				return;
			continue;
		}
		/* A query client read some answers: take its next requests. */
		if (c->state == C_QUERY && c->qpaused && room_for_answer(c)) {
			c->qpaused = false;
			set_events(s, c);
			answer_queries(s, c);
			continue;
		}
		break;
	}
	if ((c->state == C_DRAINING || (c->state == C_QUERY && c->rd_closed && !c->qlen)) &&
	    kt_squeue_empty(&c->q)) {
		drop(s, c, KT_DISC_DONE, NULL);
		return;
	}
	want = !kt_squeue_empty(&c->q);
	if (want != c->want_out) {
		c->want_out = want;
		set_events(s, c);
	}
}

/* Answer every complete request while the queue has room for one more
 * answer; then wait for the client to read (EPOLLIN off).  The caller
 * sends (service_out()). */
static void answer_queries(struct kt_server *s, struct client *c)
{
	char buf[KT_QUERY_ANSWER_MAX];
	size_t off = 0, used, req_len, n;
	const char *req;
	bool bad;

	c->qs.wall_off = s->wall_off;
again:
	while (off < c->qlen) {
		if (!room_for_answer(c)) {
			c->qpaused = true;
			set_events(s, c);
			break;
		}
		used = kt_query_next(&c->qs, c->qin + off, c->qlen - off, c->qlen - off == QIN_SIZE,
				     &req, &req_len);
		if (!used)
			break;
		off += used;
		if (!req_len)
			continue;
		n = kt_query_answer(&c->qs, req, req_len, buf, sizeof(buf), &bad);
		s->st.queries++;
		s->st.query_errors += bad;
		if (n && kt_squeue_push_reserved(&c->q, buf, n))
			break; /* cannot happen: room was checked */
	}
	memmove(c->qin, c->qin + off, c->qlen - off);
	c->qlen -= off;
	off = 0;
	if (c->rd_closed && c->qlen && !c->qpaused && c->qs.fmt != KT_FMT_RAW &&
	    c->qlen < QIN_SIZE) {
		/* The last line of a client that shut down without its newline. */
		c->qin[c->qlen++] = '\n';
		goto again;
	}
	if (c->rd_closed && c->qlen && !c->qpaused)
		c->qlen = 0; /* half a raw request: nothing to answer */
}

static int kallsyms_line(void *ctx, const struct kt_hsym *h)
{
	char line[KT_NAME_MAX + 64];
	struct client *c = ctx;
	int n = kt_kallsyms_format(line, sizeof(line), h->addr, h->name, h->source);

	return n > 0 ? kt_squeue_push_reserved(&c->q, line, n) : 0;
}

static void start(struct kt_server *s, struct client *c, const char *rest, size_t restlen)
{
	kt_debug("client %u: format %s, mode %s", c->id, kt_format_name(c->hello.fmt),
		 kt_hello_mode_name(c->hello.mode));
	switch (c->hello.mode) {
	case KT_MODE_QUERY:
		c->state = C_QUERY;
		c->qin = malloc(QIN_SIZE);
		if (!c->qin) {
			drop(s, c, KT_DISC_ERROR, "out of memory");
			return;
		}
		c->qs = (struct kt_query){ .h = &s->hist,
					   .fmt = c->hello.fmt,
					   .t_default = c->hello.at };
		memcpy(c->qin, rest, restlen);
		c->qlen = restlen;
		answer_queries(s, c);
		break;
	case KT_MODE_KALLSYMS:
		c->state = C_DRAINING;
		if (kt_history_each_at(&s->hist, c->hello.at, kallsyms_line, c)) {
			drop(s, c, KT_DISC_TOO_BIG, "raise --client-queue");
			return;
		}
		break;
	case KT_MODE_CODE:
		c->state = C_DRAINING;
		queue_code(s, c);
		if (c->state != C_DRAINING)
			return;
		break;
	default:
		c->state = c->hello.mode == KT_MODE_SNAPSHOT ? C_DRAINING : C_LIVE;
		if (queue_snapshot(s, c, "connect"))
			return;
	}
	service_out(s, c);
}

static void hello_line(struct kt_server *s, struct client *c, const char *line, const char *rest,
		       size_t restlen)
{
	char why[128], msg[200];
	int n;

	if (!line)
		snprintf(why, sizeof(why), "handshake longer than %d bytes", KT_HELLO_MAX - 1);
	if (!line || kt_hello_parse(line, &c->hello, why, sizeof(why))) {
		/* Plain text: the client has no format yet. */
		n = snprintf(msg, sizeof(msg), "ksymtap: error: %s\n", why);
		if (send(c->fd, msg, n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			kt_debug("client %u: %s", c->id, strerror(errno));
		drop(s, c, KT_DISC_HELLO, why);
		return;
	}
	start(s, c, rest, restlen);
}

/* A query client's requests, answered as far as they go. */
static void query_readable(struct kt_server *s, struct client *c)
{
	ssize_t n;

	/* Full only while paused (answer_queries() takes every whole request,
	 * and flags a line too long): a recv of 0 bytes would read as EOF. */
	if (c->rd_closed || c->qpaused || c->qlen == QIN_SIZE)
		return;
	n = recv(c->fd, c->qin + c->qlen, QIN_SIZE - c->qlen, MSG_DONTWAIT);
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		drop(s, c, KT_DISC_PEER, strerror(errno));
	if (n < 0)
		return;
	if (n == 0) {
		c->rd_closed = true;
		set_events(s, c);
	}
	c->qlen += n;
	answer_queries(s, c);
	service_out(s, c);
}

/* The handshake line, as far as it came. */
static void hello_readable(struct kt_server *s, struct client *c)
{
	ssize_t n = recv(c->fd, c->in + c->inlen, sizeof(c->in) - 1 - c->inlen, MSG_DONTWAIT);
	char *nl;

	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			drop(s, c, KT_DISC_PEER, strerror(errno));
		return;
	}
	if (n == 0) {
		/* Shut down its sending side: whatever it sent is the handshake. */
		c->rd_closed = true;
		set_events(s, c);
		c->in[c->inlen] = 0;
		hello_line(s, c, c->in, NULL, 0);
		return;
	}
	c->inlen += n;
	c->in[c->inlen] = 0;
	nl = memchr(c->in, '\n', c->inlen);
	if (nl) {
		/* What follows the line: a query client's first requests. */
		*nl = 0;
		hello_line(s, c, c->in, nl + 1, c->in + c->inlen - (nl + 1));
	} else if (c->inlen == sizeof(c->in) - 1) {
		/* KT_HELLO_MAX bytes and no newline: too long, whatever follows.
		 * Refused, not parsed in part (a key past the cut would be lost). */
		hello_line(s, c, NULL, NULL, 0);
	}
}

static void on_readable(struct kt_server *s, struct client *c)
{
	char junk[4096];

	if (c->state == C_QUERY) {
		query_readable(s, c);
	} else if (c->state == C_HELLO) {
		hello_readable(s, c);
	} else if (recv(c->fd, junk, sizeof(junk), MSG_DONTWAIT) == 0) {
		/* Nothing is expected after the handshake: drain and ignore. */
		c->rd_closed = true;
		set_events(s, c);
	}
}

/* Both directions closed: the peer is gone (a half-closed one, which
 * shut down its sending side after the handshake, still reads). */
static bool hung_up(int fd)
{
	struct pollfd p = { .fd = fd };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

/* A client's fd: what it sent, room to send; a peer gone for good is
 * dropped, after what it sent last (a handshake) was read. */
void on_client(struct kt_watch *w, unsigned int what)
{
	struct client *c = container_of(w, struct client, w);

	if (c->state == C_DEAD)
		return;
	if (what & KT_IN)
		on_readable(c->s, c);
	if (c->state != C_DEAD && (what & KT_OUT))
		service_out(c->s, c);
	if (c->state != C_DEAD && c->rd_closed && hung_up(c->fd))
		drop(c->s, c, KT_DISC_PEER, NULL);
}

/* The handshake's time is up.  It may have come while the daemon was busy (a
 * resync reads all of /proc/kallsyms): what is there counts. */
void hello_deadline(struct kt_server *s, struct client *c)
{
	on_readable(s, c);
	if (c->state != C_HELLO)
		return;
	c->in[c->inlen] = 0;
	/* Said nothing (or half a line): the defaults, or why not. */
	hello_line(s, c, c->in, NULL, 0);
}
