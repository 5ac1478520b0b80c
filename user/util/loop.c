// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The event loop (loop.h): libevent's event_base, with CLOCK_MONOTONIC
 * deadlines turned into the relative timeouts libevent takes. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <event2/event.h>
#include "util/clock.h"
#include "util/loop.h"

struct kt_loop {
	struct event_base *base;
	int err;
	bool exiting;
	void (*after)(void *ctx);
	void *after_ctx;
};

void kt_loop_after(struct kt_loop *l, void (*fn)(void *ctx), void *ctx)
{
	l->after = fn;
	l->after_ctx = ctx;
}

int kt_loop_new(struct kt_loop **out)
{
	struct kt_loop *l = calloc(1, sizeof(*l));
	struct event_config *cfg = event_config_new();

	if (!l || !cfg) {
		free(l);
		if (cfg)
			event_config_free(cfg);
		return -ENOMEM;
	}
	/* epoll; no lock (one thread runs it). */
	event_config_avoid_method(cfg, "select");
	event_config_avoid_method(cfg, "poll");
	event_config_set_flag(cfg, EVENT_BASE_FLAG_NOLOCK);
	/* Timers on the precise clock: the coarse one (libevent's default) lags
	 * by a tick, and a timer that fires before its time wakes us twice. */
	event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	l->base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	if (!l->base) {
		free(l);
		return -ENOMEM;
	}
	*out = l;
	return 0;
}

void kt_loop_free(struct kt_loop *l)
{
	if (!l)
		return;
	event_base_free(l->base);
	free(l);
}

void kt_loop_exit(struct kt_loop *l, int err)
{
	if (!l->exiting || (!l->err && err))
		l->err = err;
	l->exiting = true;
	event_base_loopbreak(l->base);
}

bool kt_loop_exiting(const struct kt_loop *l)
{
	return l->exiting;
}

int kt_loop_run(struct kt_loop *l)
{
	while (!l->exiting) {
		/* EVLOOP_ONCE: one wait, then what fired; breaks come back here. */
		if (event_base_loop(l->base, EVLOOP_ONCE | EVLOOP_NO_EXIT_ON_EMPTY) < 0)
			return l->err ? l->err : -EIO;
		if (l->after && !l->exiting)
			l->after(l->after_ctx);
	}
	return l->err;
}

int kt_loop_once(struct kt_loop *l, int timeout_ms)
{
	struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = timeout_ms % 1000 * 1000 };

	if (!timeout_ms && event_base_loop(l->base, EVLOOP_NONBLOCK) < 0)
		return -EIO;
	if (timeout_ms && (event_base_loopexit(l->base, &tv) ||
			   event_base_loop(l->base, EVLOOP_ONCE | EVLOOP_NO_EXIT_ON_EMPTY) < 0))
		return -EIO;
	if (l->after)
		l->after(l->after_ctx);
	return 0;
}

static void on_fd(evutil_socket_t fd, short ev, void *arg)
{
	struct kt_watch *w = arg;

	w->fn(w, (ev & EV_READ ? KT_IN : 0) | (ev & EV_WRITE ? KT_OUT : 0));
}

static short to_ev(unsigned int what)
{
	return EV_PERSIST | (what & KT_IN ? EV_READ : 0) | (what & KT_OUT ? EV_WRITE : 0);
}

int kt_watch_start(struct kt_loop *l, struct kt_watch *w, int fd, unsigned int what,
		   void (*fn)(struct kt_watch *w, unsigned int what))
{
	w->fd = fd;
	w->fn = fn;
	w->ev = event_new(l->base, fd, to_ev(what), on_fd, w);
	if (!w->ev)
		return -ENOMEM;
	if (what && event_add(w->ev, NULL)) {
		event_free(w->ev);
		w->ev = NULL;
		return -EIO;
	}
	return 0;
}

int kt_watch_set(struct kt_watch *w, unsigned int what)
{
	struct event_base *base = event_get_base(w->ev);

	/* An event's flags are fixed once assigned: assign anew (del first). */
	event_del(w->ev);
	if (event_assign(w->ev, base, w->fd, to_ev(what), on_fd, w))
		return -EINVAL;
	return what && event_add(w->ev, NULL) ? -EIO : 0;
}

/* Every watch, timer and signal ends the same way: its event freed once. */
static void free_event(struct event **ev)
{
	if (!*ev)
		return;
	event_free(*ev);
	*ev = NULL;
}

void kt_watch_stop(struct kt_watch *w)
{
	free_event(&w->ev);
}

static void on_timer(evutil_socket_t fd, short ev, void *arg)
{
	struct kt_timer *t = arg;

	t->at = 0;
	t->fn(t);
}

int kt_timer_init(struct kt_loop *l, struct kt_timer *t, void (*fn)(struct kt_timer *t))
{
	t->at = 0;
	t->fn = fn;
	t->ev = evtimer_new(l->base, on_timer, t);
	return t->ev ? 0 : -ENOMEM;
}

void kt_timer_at(struct kt_timer *t, __u64 at)
{
	__u64 now, d;
	struct timeval tv;

	if (at == t->at)
		return;
	t->at = at;
	if (!at) {
		evtimer_del(t->ev);
		return;
	}
	now = kt_monotonic_ns();
	d = at > now ? at - now : 0;
	/* Rounded up to the microsecond: never before the time asked for. */
	d = (d + 999) / 1000;
	tv.tv_sec = d / 1000000;
	tv.tv_usec = d % 1000000;
	evtimer_add(t->ev, &tv);
}

void kt_timer_fini(struct kt_timer *t)
{
	free_event(&t->ev);
}

static void on_signal(evutil_socket_t sig, short ev, void *arg)
{
	struct kt_signal *s = arg;

	s->fn(s, sig);
}

int kt_signal_start(struct kt_loop *l, struct kt_signal *s, int sig,
		    void (*fn)(struct kt_signal *s, int sig))
{
	s->fn = fn;
	s->ev = evsignal_new(l->base, sig, on_signal, s);
	if (!s->ev)
		return -ENOMEM;
	if (evsignal_add(s->ev, NULL)) {
		event_free(s->ev);
		s->ev = NULL;
		return -EIO;
	}
	return 0;
}

void kt_signal_stop(struct kt_signal *s)
{
	free_event(&s->ev);
}

static const int stop_sigs[3] = { SIGINT, SIGTERM, SIGCHLD };

static void on_stop_signal(struct kt_signal *s, int sig)
{
	int i = sig == SIGINT ? 0 : sig == SIGTERM ? 1 : 2;
	struct kt_stop_signals *set = container_of(s - i, struct kt_stop_signals, s[0]);

	set->fn(set, sig);
}

int kt_stop_signals_start(struct kt_loop *l, struct kt_stop_signals *set, bool child,
			  void (*fn)(struct kt_stop_signals *set, int sig))
{
	int i, err = 0;

	set->fn = fn;
	for (i = 0; !err && i < (child ? 3 : 2); i++)
		err = kt_signal_start(l, &set->s[i], stop_sigs[i], on_stop_signal);
	return err;
}

void kt_stop_signals_stop(struct kt_stop_signals *set)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(set->s); i++)
		kt_signal_stop(&set->s[i]);
}
