// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include "util/clock.h"
#include "encode/encode.h"
#include "record/kallsyms.h"
#include "util/log.h"
#include "serve/query.h"
#include "serve/serve.h"
#include "serve/serve_proto.h"
#include "serve/serve_queue.h"
#include "serve/serve_socket.h"

const char *const kt_disc_names[KT_DISC_MAX] = {
	[KT_DISC_PEER] = "peer",       [KT_DISC_DONE] = "done",
	[KT_DISC_HELLO] = "handshake", [KT_DISC_TOO_BIG] = "snapshot_too_big",
	[KT_DISC_ERROR] = "error",     [KT_DISC_SHUTDOWN] = "shutdown",
};

enum cstate {
	C_HELLO, /* waiting for the handshake */
	C_LIVE, /* snapshot queued, live records follow */
	C_DRAINING, /* mode=snapshot, kallsyms: close once the queue is sent */
	C_QUERY, /* mode=query: requests in, answers out */
	C_DEAD, /* closed, freed at the next tick */
};

struct client {
	int kind; /* first: tells epoll data apart */
	int fd;
	unsigned int id;
	enum cstate state;
	struct kt_hello hello;
	bool rd_closed, want_out;
	__u64 deadline; /* C_HELLO: defaults from then on */
	char in[KT_HELLO_MAX + 1]; /* up to KT_HELLO_MAX - 1 bytes, '\n', NUL */
	size_t inlen;
	struct kt_squeue q;
	/* mode=query: requests not answered yet; paused while the queue has
	 * no room for an answer (a client that does not read its answers). */
	char *qin;
	size_t qlen;
	bool qpaused;
	struct kt_query qs;
};

#define QIN_SIZE (64 * 1024)

enum { KIND_LISTEN = 1, KIND_CLIENT };

struct kt_server {
	struct kt_sink sink; /* first: the pipeline calls us through it */
	int kind; /* KIND_LISTEN: &s->kind is the listen fd's data.ptr */
	struct kt_serve_opts o;
	struct kt_pipeline *p;
	int epfd, lfd;
	ino_t ino;
	__s64 clock_off;
	__s64 wall_off; /* CLOCK_REALTIME minus perf's clock */
	struct client **c;
	int nc;
	unsigned int next_id;
	struct kt_serve_stats st;
	struct kt_history hist;
	bool hist_warned;
	/* One record, encoded once per format however many clients want it. */
	char enc[3][KT_ENCODE_MAX];
	ssize_t enclen[3];
};

static void set_events(struct kt_server *s, struct client *c)
{
	struct epoll_event ev = { .data.ptr = c };

	ev.events = (c->rd_closed || c->qpaused ? 0 : EPOLLIN) | (c->want_out ? EPOLLOUT : 0);
	epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void drop(struct kt_server *s, struct client *c, enum kt_disc why, const char *detail)
{
	if (c->state == C_DEAD)
		return;
	kt_debug("client %u: closed (%s%s%s), %llu records lost over its life", c->id,
		 kt_disc_names[why], detail ? ": " : "", detail ? detail : "", c->q.lost_total);
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->state = C_DEAD;
	s->st.disconnects[why]++;
	s->st.connected--;
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

static __u64 now_perf(struct kt_server *s)
{
	return kt_monotonic_ns() + s->clock_off;
}

static __s64 wall_offset(struct kt_server *s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__s64)ts.tv_sec * 1000000000LL + ts.tv_nsec - (__s64)now_perf(s);
}

/* The whole table as snapshot records; JSON clients also get a closing
 * snapshot_end line so they know when their table is complete. */
static int queue_snapshot(struct kt_server *s, struct client *c, const char *reason)
{
	struct walk_ctx w = { .s = s, .c = c };
	char line[160];
	int err, n;

	err = kt_pipeline_walk(s->p, queue_snapshot_record, &w);
	if (!err && c->hello.fmt == KT_FMT_JSON) {
		n = snprintf(line, sizeof(line),
			     "{\"kind\":\"snapshot_end\",\"time\":%" PRIu64
			     ",\"records\":%llu,\"reason\":\"%s\"}\n",
			     (uint64_t)now_perf(s), w.n, reason);
		err = kt_squeue_push_reserved(&c->q, line, n);
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
static int queue_lost(struct kt_server *s, struct client *c, unsigned long long lost, bool last)
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
static void service_out(struct kt_server *s, struct client *c)
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

void kt_server_event(struct kt_server *s, void *ptr, uint32_t events)
{
	struct client *c;

	if (ptr == &s->kind) {
		for (;;) {
			struct epoll_event ev = { .events = EPOLLIN };
			struct client **nc;
			int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (fd < 0)
				return; /* EAGAIN, or a client that gave up already */
			if (s->st.connected >= (unsigned long long)s->o.max_clients) {
				s->st.rejected++;
				kt_warn("refusing a client: %d connected (--max-clients)",
					s->o.max_clients);
				close(fd);
				continue;
			}
			c = calloc(1, sizeof(*c));
			nc = realloc(s->c, (s->nc + 1) * sizeof(*nc));
			if (nc)
				s->c = nc;
			if (!c || !nc || kt_squeue_init(&c->q, s->o.queue)) {
				free(c);
				close(fd);
				continue;
			}
			c->kind = KIND_CLIENT;
			c->fd = fd;
			c->id = ++s->next_id;
			c->state = C_HELLO;
			kt_hello_default(&c->hello);
			c->deadline = kt_monotonic_ns() + KT_HELLO_WAIT_MS * 1000000ULL;
			ev.data.ptr = c;
			if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev)) {
				kt_squeue_fini(&c->q);
				free(c);
				close(fd);
				continue;
			}
			s->c[s->nc++] = c;
			s->st.accepted++;
			s->st.connected++;
			count_peer(s, fd, c->id);
		}
	}
	c = ptr;
	if (c->state == C_DEAD)
		return;
	if (events & EPOLLIN)
		on_readable(s, c);
	if (c->state != C_DEAD && (events & EPOLLOUT))
		service_out(s, c);
	/* A client gone for good; EPOLLIN first so a last handshake counts. */
	if (c->state != C_DEAD && (events & (EPOLLHUP | EPOLLERR)))
		drop(s, c, KT_DISC_PEER, NULL);
}

bool kt_server_owns(struct kt_server *s, void *ptr)
{
	int i;

	if (ptr == &s->kind)
		return true;
	for (i = 0; i < s->nc; i++)
		if (ptr == s->c[i])
			return true;
	return false;
}

void kt_server_tick(struct kt_server *s)
{
	__u64 now = kt_monotonic_ns(), perf = now_perf(s);
	int i, j;

	s->wall_off = wall_offset(s);
	kt_history_trim(&s->hist, s->o.history_max,
			perf > s->o.history_age ? perf - s->o.history_age : 0);
	for (i = 0; i < s->nc; i++) {
		if (s->c[i]->state != C_HELLO || now < s->c[i]->deadline)
			continue;
		/* The handshake may have come while the daemon was busy (a
		 * resync reads all of /proc/kallsyms): what is there counts. */
		on_readable(s, s->c[i]);
		if (s->c[i]->state == C_HELLO) {
			s->c[i]->in[s->c[i]->inlen] = 0;
			/* Said nothing (or half a line): the defaults, or why not. */
			hello_line(s, s->c[i], s->c[i]->in, NULL, 0);
		}
	}
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
	return wake;
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

int kt_server_open(struct kt_server **out, const struct kt_serve_opts *o, struct kt_pipeline *p,
		   int epfd, char *why, size_t why_size)
{
	struct kt_server *s = calloc(1, sizeof(*s));
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	if (!s) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	s->o = *o;
	s->p = p;
	s->epfd = epfd;
	s->kind = KIND_LISTEN;
	s->sink.name = "socket clients";
	s->sink.record = sink_record;
	s->sink.flush = sink_flush;
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
	ev.data.ptr = &s->kind;
	err = epoll_ctl(epfd, EPOLL_CTL_ADD, s->lfd, &ev) ? -errno :
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
	s->wall_off = wall_offset(s);
	*out = s;
	return 0;
}

void kt_server_stop_accepting(struct kt_server *s)
{
	if (s->lfd < 0)
		return;
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->lfd, NULL);
	close(s->lfd);
	s->lfd = -1;
	kt_unlink_ours(s->o.path, s->ino);
}

void kt_server_shutdown(struct kt_server *s, int timeout_ms)
{
	__u64 end = kt_monotonic_ns() + (__u64)timeout_ms * 1000000;
	struct epoll_event evs[64];
	unsigned long long lost;
	int i, n, busy;

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
		n = epoll_wait(s->epfd, evs, 64, 50);
		for (i = 0; i < n; i++)
			if (evs[i].data.ptr != &s->kind && kt_server_owns(s, evs[i].data.ptr) &&
			    (evs[i].events & (EPOLLHUP | EPOLLERR)))
				drop(s, evs[i].data.ptr, KT_DISC_PEER, NULL);
	}
	for (i = 0; i < s->nc; i++)
		drop(s, s->c[i], KT_DISC_SHUTDOWN, NULL);
	kt_server_tick(s);
}

void kt_server_free(struct kt_server *s)
{
	if (!s)
		return;
	kt_server_stop_accepting(s);
	kt_history_fini(&s->hist);
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
}

const struct kt_history *kt_server_history(const struct kt_server *s)
{
	return &s->hist;
}
