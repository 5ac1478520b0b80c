/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one event loop of every command (issue 31): libevent's event_base,
 * the reactor C daemons use, behind three kinds of event an owner embeds in
 * its own state and recovers with container_of() in the callback:
 *
 *   kt_watch   an fd (readable, writable)
 *   kt_timer   "wake me at T" (CLOCK_MONOTONIC ns; 0: not armed)
 *   kt_signal  a signal (SIGINT, SIGTERM, SIGCHLD), run as a callback of
 *              the loop, not in a handler
 *
 * With nothing armed but fds, the loop sleeps in epoll_wait() without a
 * timeout: nothing wakes an idle ksymtap.
 */
#ifndef KT_LOOP_H
#define KT_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "util/base.h"

struct event;
struct kt_loop;

#define KT_IN 0x1
#define KT_OUT 0x2

struct kt_watch {
	struct event *ev;
	int fd;
	void (*fn)(struct kt_watch *w, unsigned int what); /* KT_IN | KT_OUT */
};

struct kt_timer {
	struct event *ev;
	__u64 at;
	void (*fn)(struct kt_timer *t);
};

struct kt_signal {
	struct event *ev;
	void (*fn)(struct kt_signal *s, int sig);
};

int kt_loop_new(struct kt_loop **out);
void kt_loop_free(struct kt_loop *l);
/* Run until kt_loop_exit(); its err, or -errno of the loop itself. */
int kt_loop_run(struct kt_loop *l);
/* Call fn(ctx) after each round of kt_loop_run() and kt_loop_once(): what
 * fired has run (the commands' common work: the backend's records, the
 * pipeline's tick, the next wake-up). */
void kt_loop_after(struct kt_loop *l, void (*fn)(void *ctx), void *ctx);
/* One round: wait up to timeout_ms for what is armed (0: not at all), run
 * what fired. */
int kt_loop_once(struct kt_loop *l, int timeout_ms);
/* End kt_loop_run() after the current callback; the first err is kept. */
void kt_loop_exit(struct kt_loop *l, int err);
bool kt_loop_exiting(const struct kt_loop *l);

/* Watch fd for what (KT_IN, KT_OUT or both); 0 or -errno. */
int kt_watch_start(struct kt_loop *l, struct kt_watch *w, int fd, unsigned int what,
		   void (*fn)(struct kt_watch *w, unsigned int what));
/* Watch for something else (0: nothing, the fd stays ours). */
int kt_watch_set(struct kt_watch *w, unsigned int what);
void kt_watch_stop(struct kt_watch *w);

int kt_timer_init(struct kt_loop *l, struct kt_timer *t, void (*fn)(struct kt_timer *t));
/* Fire at CLOCK_MONOTONIC ns at (in the past: at once); 0 disarms. */
void kt_timer_at(struct kt_timer *t, __u64 at);
void kt_timer_fini(struct kt_timer *t);

int kt_signal_start(struct kt_loop *l, struct kt_signal *s, int sig,
		    void (*fn)(struct kt_signal *s, int sig));
void kt_signal_stop(struct kt_signal *s);

/* What every command stops on, SIGINT and SIGTERM, and with child SIGCHLD
 * (record -- CMD, compare -- CMD): one callback, the set embedded in its
 * owner (container_of(set, struct owner, field)). */
struct kt_stop_signals {
	struct kt_signal s[3];
	void (*fn)(struct kt_stop_signals *set, int sig);
};

int kt_stop_signals_start(struct kt_loop *l, struct kt_stop_signals *set, bool child,
			  void (*fn)(struct kt_stop_signals *set, int sig));
void kt_stop_signals_stop(struct kt_stop_signals *set);

#endif
