// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The run loop of the live commands: signals, polling, the drain. */
#include <signal.h>
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

int kt_run(struct kt_backend *b, double duration, int (*tick)(void *ctx), void *ctx,
	   volatile sig_atomic_t *done)
{
	__u64 end = duration > 0 ? kt_monotonic_ns() + (__u64)(duration * 1e9) : 0;
	int n, err = 0, timeout;

	while (!kt_stop && !(done && *done)) {
		timeout = b->poll_ms ? (int)b->poll_ms : 100;
		if (end) {
			__u64 now = kt_monotonic_ns();

			if (now >= end)
				break;
			if ((end - now) / 1000000 < (__u64)timeout)
				timeout = (end - now) / 1000000 + 1;
		}
		n = b->ops->poll(b, timeout);
		if (n < 0)
			return n;
		if (tick && (err = tick(ctx)))
			return err;
	}
	/* Whatever the kernel already produced is ours to deliver. */
	return kt_drain(b, tick, ctx);
}

int kt_drain(struct kt_backend *b, int (*tick)(void *ctx), void *ctx)
{
	int n, err;

	do {
		n = b->ops->poll(b, 0);
		if (n < 0)
			return n;
		if (tick && (err = tick(ctx)))
			return err;
	} while (n > 0);
	return 0;
}
