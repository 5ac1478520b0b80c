// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap tail: a serve client that prints what the daemon sends. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>
#include "cli.h"
#include "clock.h"
#include "log.h"
#include "output.h"
#include "serve_proto.h"
#include "serve_socket.h"

static const char tail_help[] =
	"Usage: ksymtap tail --socket PATH [OPTIONS]\n"
	"\n"
	"Connect to 'ksymtap serve' and copy what it sends to stdout: first the\n"
	"current table (records marked snapshot), then every change.  Ends when the\n"
	"daemon closes the connection (exit 0), on SIGINT/SIGTERM (exit 0), or after\n"
	"--duration.\n"
	"\n"
	"Options:\n"
	"  -s, --socket PATH    the daemon's socket (required)\n"
	"  -f, --format json|raw|text\n"
	"                       json (default): one object per line, with attribution;\n"
	"                       raw: binary perf records; text: perf script lines\n"
	"      --snapshot       only the current table, then exit\n"
	"  -d, --duration SEC   stop after SEC seconds\n"
	"  -h, --help           this text\n"
	"\n"
	"Examples:\n"
	"  ksymtap tail -s /run/ksymtap.sock\n"
	"  ksymtap tail -s /run/ksymtap.sock --snapshot -f text\n"
	"  ksymtap tail -s /run/ksymtap.sock -f raw > ksym.bin\n";

enum { OPT_SNAPSHOT = OPT_CMD_FIRST_FREE };

int cmd_tail(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "snapshot", no_argument, NULL, OPT_SNAPSHOT },
		{ "duration", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	struct kt_hello h;
	double duration = 0;
	char buf[65536], *end;
	bool first = true;
	int opt, fd, n, err;
	ssize_t got;

	kt_hello_default(&h);
	while ((opt = getopt_long(argc, argv, "s:f:d:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			path = optarg;
			break;
		case 'f':
			if (kt_format_parse(optarg, &h.fmt)) {
				kt_err("--format: '%s' is not json, raw or text", optarg);
				return KT_EXIT_USAGE;
			}
			break;
		case OPT_SNAPSHOT:
			h.snapshot_only = true;
			break;
		case 'd':
			errno = 0;
			duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || duration <= 0) {
				kt_err("--duration: '%s' is not a positive number of seconds",
				       optarg);
				return KT_EXIT_USAGE;
			}
			break;
		case 'h':
			printf("%s", tail_help);
			return KT_EXIT_OK;
		default:
			fprintf(stderr, "Try 'ksymtap tail --help'.\n");
			return KT_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		kt_err("unexpected argument '%s' (try 'ksymtap tail --help')", argv[optind]);
		return KT_EXIT_USAGE;
	}
	if (!path) {
		kt_err("tail: --socket PATH is required");
		return KT_EXIT_USAGE;
	}
	kt_install_signals();
	fd = kt_connect_unix(path);
	if (fd < 0) {
		kt_err("%s: %s (is 'ksymtap serve' running there?)", path, strerror(-fd));
		return KT_EXIT_FAIL;
	}
	n = kt_hello_format(&h, buf, sizeof(buf));
	err = kt_write_all(fd, buf, n);
	if (err) {
		kt_err("%s: sending the handshake: %s", path, strerror(-err));
		close(fd);
		return KT_EXIT_FAIL;
	}
	/* SIGALRM ends --duration; like SIGINT, it interrupts the read. */
	if (duration > 0) {
		struct sigaction sa;

		sigaction(SIGINT, NULL, &sa);
		sigaction(SIGALRM, &sa, NULL);
		/* setitimer(), not alarm(): fractions of a second count. */
		struct itimerval it = { .it_value = {
						.tv_sec = (time_t)duration,
						.tv_usec = (suseconds_t)((duration -
									  (time_t)duration) *
									 1e6),
					} };

		if (!it.it_value.tv_sec && !it.it_value.tv_usec)
			it.it_value.tv_usec = 1;
		setitimer(ITIMER_REAL, &it, NULL);
	}
	while (!kt_stop) {
		got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			kt_err("%s: %s", path, strerror(errno));
			close(fd);
			return KT_EXIT_FAIL;
		}
		if (got == 0)
			break;
		/* A refused handshake is one plain line before any data. */
		if (first && got >= 15 && !memcmp(buf, "ksymtap: error:", 15)) {
			fprintf(stderr, "%.*s", (int)got, buf);
			close(fd);
			return KT_EXIT_FAIL;
		}
		first = false;
		err = kt_write_all(STDOUT_FILENO, buf, got);
		if (err) {
			if (err != -EPIPE)
				kt_err("writing to stdout: %s", strerror(-err));
			close(fd);
			return err == -EPIPE ? KT_EXIT_OK : KT_EXIT_FAIL;
		}
	}
	close(fd);
	return KT_EXIT_OK;
}
