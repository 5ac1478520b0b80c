// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap tail: a serve client that prints what the daemon sends. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/fileio.h"
#include "sink/output.h"
#include "serve/serve_proto.h"

static const char tail_help[] =
	"Usage: ksymtap tail --socket PATH [OPTIONS]\n"
	"\n"
	"Connect to 'ksymtap serve' and copy what it sends to stdout: first the\n"
	"current table (records marked snapshot), then every change.  Ends when the\n"
	"daemon closes the connection (exit 0), on SIGINT/SIGTERM (exit 0), or after\n"
	"--duration.\n"
	"\n"
	"Options:\n";

static const char tail_more[] = "\n"
				"Examples:\n"
				"  ksymtap tail -s /run/ksymtap.sock\n"
				"  ksymtap tail -s /run/ksymtap.sock --snapshot -f text\n"
				"  ksymtap tail -s /run/ksymtap.sock -f raw > ksym.bin\n";

struct tail_opts {
	const char *path;
	bool snapshot_only;
};

static int tail_opt(void *ctx, int opt, const char *arg)
{
	struct tail_opts *t = ctx;

	if (opt == 's')
		t->path = arg;
	else if (opt == OPT_SNAPSHOT)
		t->snapshot_only = true;
	else
		return 0;
	return 1;
}

/* SIGALRM ends --duration; like SIGINT, it interrupts the read.
 * setitimer(), not alarm(): fractions of a second count. */
static void arm_duration(double duration)
{
	struct itimerval it = { .it_value = {
					.tv_sec = (time_t)duration,
					.tv_usec =
						(suseconds_t)((duration - (time_t)duration) * 1e6),
				} };
	struct sigaction sa;

	sigaction(SIGINT, NULL, &sa);
	sigaction(SIGALRM, &sa, NULL);
	if (!it.it_value.tv_sec && !it.it_value.tv_usec)
		it.it_value.tv_usec = 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Copy the socket to stdout until EOF, a signal or the duration. */
static int copy_out(int fd, const char *path)
{
	char buf[65536];
	bool first = true;
	ssize_t got;
	int err;

	while (!kt_stop) {
		got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			kt_err("%s: %s", path, strerror(errno));
			return KT_EXIT_FAIL;
		}
		if (got == 0)
			break;
		/* A refused handshake is one plain line before any data. */
		if (first && got >= 15 && !memcmp(buf, "ksymtap: error:", 15)) {
			fprintf(stderr, "%.*s", (int)got, buf);
			return KT_EXIT_FAIL;
		}
		first = false;
		err = kt_write_all(STDOUT_FILENO, buf, got);
		if (err == -EPIPE)
			return KT_EXIT_OK; /* the reader has what it wanted */
		if (err) {
			kt_err("writing to stdout: %s", strerror(-err));
			return KT_EXIT_FAIL;
		}
	}
	return KT_EXIT_OK;
}

int cmd_tail(int argc, char **argv)
{
	struct tail_opts t = { .path = NULL };
	const struct kt_cmd cmd = {
		.name = "tail",
		.opts = kt_opts_tail,
		.usage = tail_help,
		.more = tail_more,
		.opt = tail_opt,
		.ctx = &t,
	};
	struct kt_common c;
	struct kt_hello h;
	char why[600];
	int fd, status;

	kt_common_init(&c);
	c.fmt = KT_FMT_JSON; /* the handshake's default */
	if (kt_cmd_parse(&cmd, &c, argc, argv, &status) < 0)
		return status;
	if (!t.path) {
		kt_err("tail: --socket PATH is required");
		return KT_EXIT_USAGE;
	}
	kt_hello_default(&h);
	h.fmt = c.fmt;
	h.mode = t.snapshot_only ? KT_MODE_SNAPSHOT : KT_MODE_STREAM;
	kt_install_signals();
	fd = kt_hello_connect(t.path, &h, why, sizeof(why));
	if (fd < 0) {
		kt_err("%s", why);
		return KT_EXIT_FAIL;
	}
	if (c.duration > 0)
		arm_duration(c.duration);
	status = copy_out(fd, t.path);
	close(fd);
	return status;
}
