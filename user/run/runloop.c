// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The run loop of stream and record (user/util/loop.h), and the drain. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include "run/cli.h"
#include "util/clock.h"
#include "util/loop.h"

volatile sig_atomic_t kt_stop;

static void on_signal(int sig)
{
	(void)sig;
	kt_stop = 1;
}

void kt_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	/* Until a loop takes SIGINT and SIGTERM as its own events, they set
	 * kt_stop (start-up), which the loop looks at as it starts. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* kt_run()'s state: the loop and what it watches. */
struct run {
	struct kt_loop *l;
	struct kt_backend *b;
	struct kt_pipeline *p;
	volatile sig_atomic_t *done;
	struct kt_watch backend;
	struct kt_timer wake, end;
	struct kt_stop_signals sig;
};

/* What every wake-up does: the backend's records, then the pipeline's
 * tick; then the next time something asked to be woken at. */
static void run_round(struct run *r)
{
	int n = r->b->ops->poll(r->b, 0);

	if (n < 0) {
		kt_loop_exit(r->l, n);
		return;
	}
	n = kt_pipeline_tick(r->p);
	if (n) {
		kt_loop_exit(r->l, n);
		return;
	}
	kt_timer_at(&r->wake, kt_wake_min(r->b->wake_ns, kt_pipeline_wake_ns(r->p)));
}

static void on_backend(struct kt_watch *w, unsigned int what)
{
	run_round(container_of(w, struct run, backend));
}

static void on_wake(struct kt_timer *t)
{
	run_round(container_of(t, struct run, wake));
}

static void on_end(struct kt_timer *t)
{
	kt_loop_exit(container_of(t, struct run, end)->l, 0);
}

static void on_sig(struct kt_stop_signals *set, int sig)
{
	struct run *r = container_of(set, struct run, sig);

	if (sig == SIGCHLD) {
		if (!r->done)
			return;
		*r->done = 1;
	} else {
		kt_stop = 1;
	}
	kt_loop_exit(r->l, 0);
}

/* The backend's fd, the pipeline's wake-up, --duration's end, SIGINT and
 * SIGTERM (and SIGCHLD for record -- CMD) as events of one loop. */
int kt_run(struct kt_backend *b, double duration, struct kt_pipeline *p,
	   volatile sig_atomic_t *done)
{
	struct run r = { .b = b, .p = p, .done = done };
	int err;

	err = kt_loop_new(&r.l);
	if (err)
		return err;
	err = kt_watch_start(r.l, &r.backend, b->ops->fd(b), KT_IN, on_backend) ?:
		      kt_timer_init(r.l, &r.wake, on_wake)			?:
		      kt_timer_init(r.l, &r.end, on_end);
	/* SIGCHLD only for record -- CMD: its end ends the run. */
	if (!err)
		err = kt_stop_signals_start(r.l, &r.sig, done, on_sig);
	if (!err) {
		if (duration > 0)
			kt_timer_at(&r.end, kt_monotonic_ns() + (__u64)(duration * 1e9));
		/* A signal before the loop's own handlers came in. */
		if (kt_stop || (done && *done))
			kt_loop_exit(r.l, 0);
		else
			run_round(&r);
		err = kt_loop_run(r.l);
	}
	kt_stop_signals_stop(&r.sig);
	kt_timer_fini(&r.wake);
	kt_timer_fini(&r.end);
	kt_watch_stop(&r.backend);
	kt_loop_free(r.l);
	/* Whatever the kernel already produced is ours to deliver. */
	return err ? err : kt_drain(b, kt_pipeline_tick, p);
}

int kt_drain(struct kt_backend *b, int (*tick)(void *ctx), void *ctx)
{
	int n, err;

	/* The reader thread first moves what the kernel has into its queue. */
	if (b->ops->sync && (err = b->ops->sync(b)))
		return err;
	do {
		n = b->ops->poll(b, 0);
		if (n < 0)
			return n;
		if (tick && (err = tick(ctx)))
			return err;
	} while (n > 0);
	return 0;
}
