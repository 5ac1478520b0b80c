// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reader thread and its queue (pump.h says why).  The thread sleeps in
 * epoll_wait() on the wrapped backend's fd with no timeout unless that
 * backend asked for one (its wake_ns: the drop counters after a batch,
 * --wakeup-ms, a CPU scan), so an idle ksymtap still never wakes.  It wakes
 * the run loop through an eventfd only when the queue goes from empty to
 * not empty: one wake-up per batch, as the kernel's ring gives it one.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include "backend/pump.h"
#include "util/clock.h"
#include "util/fifo.h"
#include "util/log.h"

struct kt_pump {
	struct kt_backend base;
	struct kt_backend_ops ops; /* kt_pump_backend's, named as in's */
	struct kt_backend *in;
	kt_emit_fn emit; /* the pipeline's, on the run loop's thread */
	void *ctx;
	struct kt_fifo q;
	int efd; /* readable: records queued (the run loop's fd) */
	int kick; /* the thread's: stop, or drain now */
	int epfd; /* the thread's: in's fd and kick */
	pthread_t thread;
	bool started;
	bool wake; /* this batch made the queue non-empty */
	pthread_mutex_t m;
	pthread_cond_t cv;
	unsigned long sync_req, sync_done; /* under m */
	bool stop, dead; /* under m */
	int err; /* the thread's error, once dead */
	/* Written by the thread: records not yet in a LOST record; the run loop
	 * reads it to kick the thread once it has made room. */
	unsigned long long lost_pending;
	unsigned long long lost; /* atomic: records the queue had no room for */
	__s64 clock_off; /* to perf's clock, for the LOST record's time */
	bool have_clock;
};

static size_t rec_size(const struct kt_record *r)
{
	return offsetof(struct kt_record, name) + strnlen(r->name, sizeof(r->name) - 1) + 1;
}

static void queued(struct kt_pump *p, bool was_empty)
{
	p->wake |= was_empty;
}

/* The LOST record for what the queue could not take: when it fits, so that
 * a queue that stays full makes one, not one per record; force: in any case
 * (a drain's end, which the run loop waits for). */
static void push_lost(struct kt_pump *p, bool force)
{
	struct kt_record r;
	bool was_empty;

	if (!p->lost_pending)
		return;
	memset(&r, 0, offsetof(struct kt_record, name));
	r.name[0] = 0;
	r.type = KT_RECORD_LOST;
	r.origin = KT_ORIGIN_QUEUE;
	r.rflags = KT_RF_NO_TASK;
	if (!p->have_clock && kt_perf_clock_offset(&p->clock_off))
		p->clock_off = 0;
	p->have_clock = true;
	r.time = kt_monotonic_ns() + p->clock_off;
	r.lost = p->lost_pending;
	if (kt_fifo_push(&p->q, &r, rec_size(&r), force, &was_empty))
		return; /* still full, or no memory: said at the next chance */
	kt_warn("reader queue full: %llu records lost (ksymtap's output fell behind; raise "
		"--queue-size)",
		p->lost_pending);
	__atomic_store_n(&p->lost_pending, 0, __ATOMIC_RELAXED);
	queued(p, was_empty);
}

/* The wrapped backend's emit: into the queue once started, else straight on. */
int kt_pump_emit(void *ctx, struct kt_record *r)
{
	struct kt_pump *p = ctx;
	bool was_empty;
	int err;

	if (!p->started)
		return p->emit(p->ctx, r);
	push_lost(p, false);
	/* A backend's own LOST record always goes in: it says what was lost. */
	err = p->lost_pending && r->type != KT_RECORD_LOST ?
		      -ENOSPC :
		      kt_fifo_push(&p->q, r, rec_size(r), r->type == KT_RECORD_LOST, &was_empty);
	if (err) {
		__atomic_add_fetch(&p->lost_pending, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&p->lost, 1, __ATOMIC_RELAXED);
		return 0;
	}
	queued(p, was_empty);
	return 0;
}

static void signal_main(struct kt_pump *p)
{
	__u64 one = 1;

	if (!p->wake)
		return;
	p->wake = false;
	if (write(p->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		kt_warn("reader: waking the run loop: %s", strerror(errno));
}

/* One pass: what the kernel has, into the queue; all of it when draining
 * (until a poll finds nothing, which also reads the drop counters). */
static int pass(struct kt_pump *p, bool drain)
{
	int n;

	do {
		n = p->in->ops->poll(p->in, 0);
	} while (n > 0 && drain);
	push_lost(p, drain);
	signal_main(p);
	return n < 0 ? n : 0;
}

/* A drain (a resync's, the run's last): what the wrapped backend wants to
 * do within 200 ms (a loss it must confirm, the drop counters after the
 * last batch) is done too. */
static int last_passes(struct kt_pump *p)
{
	__u64 now, wake;
	int i, err = 0;

	for (i = 0; i < 3 && !err; i++) {
		wake = p->in->wake_ns;
		now = kt_monotonic_ns();
		if (!wake || wake > now + 200000000ULL)
			break;
		if (wake > now)
			usleep((wake - now) / 1000 + 1);
		err = pass(p, true);
	}
	return err;
}

static void *pump_thread(void *arg)
{
	struct kt_pump *p = arg;
	struct epoll_event ev[2];
	unsigned long req;
	__u64 v;
	bool stop, drain;
	int n, err = 0;

	for (;;) {
		n = epoll_wait(p->epfd, ev, 2,
			       kt_wake_timeout_ms(p->in->wake_ns, kt_monotonic_ns()));
		if (n < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		if (read(p->kick, &v, sizeof(v)) < 0 && errno != EAGAIN) {
			err = -errno;
			break;
		}
		pthread_mutex_lock(&p->m);
		req = p->sync_req;
		stop = p->stop;
		pthread_mutex_unlock(&p->m);
		drain = req != p->sync_done || stop;
		err = pass(p, drain);
		if (!err && drain)
			err = last_passes(p);
		pthread_mutex_lock(&p->m);
		p->sync_done = req;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->m);
		if (stop || err)
			break;
	}
	pthread_mutex_lock(&p->m);
	p->err = err;
	p->dead = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->m);
	p->wake = true;
	signal_main(p);
	return NULL;
}

static int kick(struct kt_pump *p)
{
	__u64 one = 1;

	return write(p->kick, &one, sizeof(one)) < 0 && errno != EAGAIN ? -errno : 0;
}

static int pump_start(struct kt_backend *kb)
{
	struct kt_pump *p = (struct kt_pump *)kb;
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t all, old;
	int err;

	if (p->started)
		return 0;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->in->ops->fd(p->in), &ev) ||
	    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->kick, &ev))
		return -errno;
	/* Signals are the run loop's (epoll_pwait()'s mask): none here. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	p->started = true;
	err = -pthread_create(&p->thread, NULL, pump_thread, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		p->started = false;
	else
		kt_trace("reader thread started");
	return err;
}

/* Everything the kernel made before this call is in the queue afterwards. */
static int pump_sync(struct kt_backend *kb)
{
	struct kt_pump *p = (struct kt_pump *)kb;
	unsigned long req;
	int err;

	if (!p->started)
		return 0;
	pthread_mutex_lock(&p->m);
	req = ++p->sync_req;
	pthread_mutex_unlock(&p->m);
	err = kick(p);
	if (err)
		return err;
	pthread_mutex_lock(&p->m);
	while (p->sync_done != req && !p->dead)
		pthread_cond_wait(&p->cv, &p->m);
	err = p->dead ? p->err : 0;
	pthread_mutex_unlock(&p->m);
	return err;
}

/* The run loop's poll: everything queued, through the pipeline. */
static int pump_poll(struct kt_backend *kb, int timeout_ms)
{
	struct kt_pump *p = (struct kt_pump *)kb;
	struct kt_fifo_batch b;
	struct kt_record r;
	const void *e;
	size_t len;
	__u64 v;
	int n = 0, err = 0;

	if (!p->started) {
		n = p->in->ops->poll(p->in, timeout_ms);
		p->base.wake_ns = p->in->wake_ns;
		return n;
	}
	/* Before the take: a push after it wakes us again. */
	if (read(p->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return -errno;
	kt_fifo_take(&p->q, &b);
	while (!err && (e = kt_fifo_next(&b, &len))) {
		memcpy(&r, e, len);
		r.attrib = NULL;
		err = p->emit(p->ctx, &r);
		n++;
	}
	kt_fifo_release(&p->q, &b);
	if (err)
		return err;
	/* Room now for the LOST record the thread holds back: the thread makes
	 * it at once, not at the kernel's next record. */
	if (n && __atomic_load_n(&p->lost_pending, __ATOMIC_RELAXED) && (err = kick(p)))
		return err;
	pthread_mutex_lock(&p->m);
	if (p->dead && p->err)
		err = p->err;
	pthread_mutex_unlock(&p->m);
	return err ? err : n;
}

static int pump_fd(struct kt_backend *kb)
{
	return ((struct kt_pump *)kb)->efd;
}

static void pump_queue(struct kt_backend *kb, struct kt_queue_stats *st)
{
	struct kt_pump *p = (struct kt_pump *)kb;

	kt_fifo_usage(&p->q, &st->bytes, &st->peak);
	st->bound = p->q.bound;
	st->lost = __atomic_load_n(&p->lost, __ATOMIC_RELAXED);
}

static void pump_describe(struct kt_backend *kb, char *buf, size_t size)
{
	struct kt_pump *p = (struct kt_pump *)kb;

	p->in->ops->describe(p->in, buf, size);
}

static void pump_sources(struct kt_backend *kb, struct kt_source_report *r)
{
	struct kt_pump *p = (struct kt_pump *)kb;

	if (p->in->ops->sources)
		p->in->ops->sources(p->in, r);
	else
		memset(r, 0, sizeof(*r));
}

static unsigned long pump_hooks(struct kt_backend *kb)
{
	struct kt_pump *p = (struct kt_pump *)kb;

	return p->in->ops->hooks ? p->in->ops->hooks(p->in) : 0;
}

static int pump_adopt(struct kt_backend *kb, const struct kt_record *r)
{
	struct kt_pump *p = (struct kt_pump *)kb;

	return p->in->ops->adopt ? p->in->ops->adopt(p->in, r) : 0;
}

static int pump_walker(struct kt_backend *kb, struct kt_walker *out)
{
	struct kt_pump *p = (struct kt_pump *)kb;

	return p->in->ops->walker ? p->in->ops->walker(p->in, out) : -ENOENT;
}

static unsigned long long pump_dropped(struct kt_backend *kb, bool native)
{
	struct kt_pump *p = (struct kt_pump *)kb;

	return p->in->ops->dropped ? p->in->ops->dropped(p->in, native) : 0;
}

static unsigned long long pump_missed(struct kt_backend *kb)
{
	struct kt_pump *p = (struct kt_pump *)kb;

	return p->in->ops->missed ? p->in->ops->missed(p->in) : 0;
}

static unsigned long long pump_skipped(struct kt_backend *kb, unsigned long long *made_up)
{
	struct kt_pump *p = (struct kt_pump *)kb;

	*made_up = 0;
	return p->in->ops->skipped ? p->in->ops->skipped(p->in, made_up) : 0;
}

void kt_pump_free(struct kt_pump *p)
{
	if (!p)
		return;
	if (p->efd >= 0)
		close(p->efd);
	if (p->kick >= 0)
		close(p->kick);
	if (p->epfd >= 0)
		close(p->epfd);
	kt_fifo_fini(&p->q);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->m);
	free(p);
}

static void pump_close(struct kt_backend *kb)
{
	struct kt_pump *p = (struct kt_pump *)kb;

	if (!p)
		return;
	if (p->started) {
		pthread_mutex_lock(&p->m);
		p->stop = true;
		pthread_mutex_unlock(&p->m);
		if (!kick(p))
			pthread_join(p->thread, NULL);
		else
			pthread_detach(p->thread);
	}
	p->in->ops->close(p->in);
	kt_pump_free(p);
}

static const struct kt_backend_ops kt_pump_backend = {
	.name = "pump",
	.fd = pump_fd,
	.poll = pump_poll,
	.describe = pump_describe,
	.sources = pump_sources,
	.hooks = pump_hooks,
	.adopt = pump_adopt,
	.walker = pump_walker,
	.dropped = pump_dropped,
	.missed = pump_missed,
	.skipped = pump_skipped,
	.start = pump_start,
	.sync = pump_sync,
	.queue = pump_queue,
	.close = pump_close,
};

int kt_pump_new(struct kt_pump **out, size_t queue_size, kt_emit_fn emit, void *ctx)
{
	struct kt_pump *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return -ENOMEM;
	p->efd = p->kick = p->epfd = -1;
	p->emit = emit;
	p->ctx = ctx;
	p->base.ops = &kt_pump_backend;
	err = kt_fifo_init(&p->q, queue_size);
	if (!err)
		err = -pthread_mutex_init(&p->m, NULL);
	if (!err)
		err = -pthread_cond_init(&p->cv, NULL);
	if (err) {
		free(p);
		return err;
	}
	p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (p->efd < 0 || p->kick < 0 || p->epfd < 0) {
		err = -errno;
		kt_pump_free(p);
		return err;
	}
	*out = p;
	return 0;
}

struct kt_backend *kt_pump_wrap(struct kt_pump *p, struct kt_backend *inner)
{
	p->in = inner;
	/* The name users see is the wrapped one's (the ready line, metrics). */
	p->ops = kt_pump_backend;
	p->ops.name = inner->ops->name;
	p->base.ops = &p->ops;
	p->base.wake_ns = inner->wake_ns;
	return &p->base;
}
