// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The run loop of the live commands: signals, polling, the drain. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/epoll.h>
#include "run/cli.h"
#include "util/clock.h"

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
	/* No SA_RESTART: the poll loop must wake up to drain and exit. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void kt_block_signals(bool chld, sigset_t *old, sigset_t *waitmask)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (chld)
		sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	if (old)
		*old = *waitmask;
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
	if (chld)
		sigdelset(waitmask, SIGCHLD);
}

/*
 * Sleep in epoll_pwait() until the backend's fd fires, or the earliest of
 * the wake-up times something asked for (the backend's, the pipeline's, the
 * end of --duration); with none, until the fd fires: nothing wakes an idle
 * run.  SIGINT, SIGTERM and SIGCHLD (record -- CMD) are let in only while
 * it waits, so none falls between the check of the flags and a wait that
 * may last until the next record.
 */
int kt_run(struct kt_backend *b, double duration, struct kt_pipeline *p,
	   volatile sig_atomic_t *done)
{
	__u64 end = duration > 0 ? kt_monotonic_ns() + (__u64)(duration * 1e9) : 0, now;
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t old, waitmask;
	int epfd, n, err = 0;

	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, b->ops->fd(b), &ev)) {
		err = -errno;
		if (epfd >= 0)
			close(epfd);
		return err;
	}
	kt_block_signals(true, &old, &waitmask);
	while (!kt_stop && !(done && *done)) {
		now = kt_monotonic_ns();
		if (end && now >= end)
			break;
		n = epoll_pwait(epfd, &ev, 1,
				kt_wake_timeout_ms(kt_wake_min(kt_wake_min(b->wake_ns, end),
							       kt_pipeline_wake_ns(p)),
						   now),
				&waitmask);
		if (n < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		n = b->ops->poll(b, 0);
		if (n < 0) {
			err = n;
			break;
		}
		err = kt_pipeline_tick(p);
		if (err)
			break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(epfd);
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
