// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap record: records into a perf.data file (or perf's pipe format). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cli.h"
#include "log.h"
#include "perf_data.h"
#include "pipeline.h"

static const char record_help[] =
	"Usage: ksymtap record -o FILE|- [OPTIONS] [[--] CMD [ARGS...]]\n"
	"\n"
	"Record every dynamic kernel symbol that exists at the start (the snapshot,\n"
	"at time 0, as perf synthesizes what exists) or is registered or unregistered\n"
	"later (JITed BPF programs and subprograms, BPF trampolines and dispatchers,\n"
	"ftrace trampolines, kprobe pages) into a perf.data file that perf reads as if\n"
	"'perf record -e dummy -a' had written it: PERF_RECORD_KSYMBOL and\n"
	"PERF_RECORD_BPF_EVENT records with TID, TIME (perf's clock) and CPU, in time\n"
	"order, plus one PERF_RECORD_COMM per task so perf shows command names.\n"
	"\n"
	"With -o -, perf's pipe format goes to stdout, for 'perf script -i -'.  A\n"
	"FILE that is a FIFO also gets the pipe format.  A new FILE gets mode 0600,\n"
	"as perf record's do (kernel addresses); an existing one is truncated.\n"
	"Records are held up to 100 ms so that they leave in time order.\n"
	"\n"
	"With CMD, records while CMD runs and exits with CMD's status, like perf\n"
	"record; otherwise until SIGINT/SIGTERM or --duration, then exits 0 (a CMD\n"
	"still running then gets SIGTERM).  Either way the file is finalized.  Its\n"
	"header is patched as records are written, so that it covers what is on\n"
	"disk once a write has returned (docs/formats.md).  If the output\n"
	"fails (disk full, reader gone) the run stops with one line on stderr and\n"
	"exit status 1, leaving every whole record written before.\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE|-  where to write (required)\n"
	"      --no-snapshot    leave out what exists at the start\n";

static const char record_examples[] =
	"\n"
	"Examples:\n"
	"  ksymtap record -o ksym.data -d 10           10 seconds into ksym.data\n"
	"  perf script -i ksym.data --show-bpf-events  ...then read it\n"
	"  ksymtap record -o ksym.data -- ./load.sh    while ./load.sh runs\n"
	"  ksymtap record -o - | perf script -i - --show-bpf-events\n"
	"                                              live, through perf\n"
	"  perf record -a -o app.data & ksymtap record -o ksym.data\n"
	"                                              beside perf: same clock\n";

static volatile int child_done;

static void on_child(int sig)
{
	(void)sig;
	child_done = 1;
}

/*
 * Run CMD; the exec result comes back through a close-on-exec pipe, so a CMD
 * that cannot run is one error here rather than a child's message.
 */
static int start_child(char **argv, bool stdout_is_data, pid_t *pid)
{
	struct sigaction sa = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };
	int p[2], child_err = 0;
	ssize_t n;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	*pid = fork();
	if (*pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (!*pid) {
		/* kt_install_signals() ignores SIGPIPE; CMD must not inherit that. */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		close(p[0]);
		/* With -o -, stdout carries perf.data: CMD's output goes to stderr. */
		if (stdout_is_data && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		child_err = errno;
		/* Nothing to do if this fails: the parent then sees CMD exit 127. */
		if (write(p[1], &child_err, sizeof(child_err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	do
		n = read(p[0], &child_err, sizeof(child_err));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == sizeof(child_err)) {
		waitpid(*pid, NULL, 0);
		*pid = 0;
		return -child_err;
	}
	return 0;
}

/* CMD's exit status as a shell reports it; 0 if the recording ended first
 * (-d, SIGINT, SIGTERM) and CMD got SIGTERM from us. */
static int reap_child(pid_t pid)
{
	bool ours = !child_done;
	int st;

	if (ours)
		kill(pid, SIGTERM);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return KT_EXIT_FAIL;
	if (ours)
		return KT_EXIT_OK;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

static int open_output(const char *path, int *fd, bool *pipe)
{
	struct stat st;

	if (!strcmp(path, "-")) {
		*fd = STDOUT_FILENO;
		*pipe = true;
		return 0;
	}
	*fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (*fd < 0)
		return -errno;
	/* As perf does: something that cannot seek back to the header gets the
	 * stream format. */
	*pipe = !fstat(*fd, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
	return 0;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-snapshot", no_argument, NULL, OPT_NO_SNAPSHOT },
		KT_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL, *what;
	struct kt_backend *b = NULL;
	struct kt_perf_data pd;
	struct kt_pipeline p;
	struct kt_common c;
	int opt, err, r, fd, status = KT_EXIT_OK;
	pid_t child = 0;
	bool pipe_fmt = false;

	kt_common_init(&c);
	/* '+': stop at CMD, so its own options stay its own (perf record does so). */
	while ((opt = getopt_long(argc, argv, "+o:" KT_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		if (opt == 'o') {
			path = optarg;
			continue;
		}
		if (opt == 'f') {
			kt_err("--format: record always writes perf.data (-f is for stream)");
			return KT_EXIT_USAGE;
		}
		r = kt_common_opt(&c, opt, optarg);
		if (r < 0)
			return KT_EXIT_USAGE;
		if (r)
			continue;
		if (opt == 'h') {
			fputs(record_help, stdout);
			kt_print_common_help("-f,");
			fputs(record_examples, stdout);
			return KT_EXIT_OK;
		}
		fprintf(stderr, "Try 'ksymtap record --help'.\n");
		return KT_EXIT_USAGE;
	}
	if (!path) {
		kt_err("record: -o FILE or -o - is required (try 'ksymtap record --help')");
		return KT_EXIT_USAGE;
	}
	if (!strcmp(path, "-") && isatty(STDOUT_FILENO)) {
		kt_err("record: -o - writes binary perf.data; pipe it or redirect stdout");
		return KT_EXIT_USAGE;
	}
	what = strcmp(path, "-") ? path : "stdout";
	err = open_output(path, &fd, &pipe_fmt);
	if (err) {
		kt_err("cannot create %s: %s", path, strerror(-err));
		return KT_EXIT_FAIL;
	}
	err = kt_perf_data_open(&pd, fd, pipe_fmt, what);
	if (err) {
		kt_err("writing %s: %s", what, strerror(-err));
		return KT_EXIT_FAIL;
	}
	if (kt_pipeline_init(&p) || kt_pipeline_add_sink(&p, &pd.sink)) {
		kt_err("out of memory");
		return KT_EXIT_FAIL;
	}
	kt_install_signals();
	err = kt_backend_open(c.backend, &c.bo, kt_pipeline_emit, &p, &b);
	if (err) {
		kt_perf_data_close(&pd);
		kt_pipeline_fini(&p);
		return KT_EXIT_FAIL;
	}
	/* The snapshot at time 0, before the live records (no gap, no
	 * duplicate: docs/snapshot.md), then the ready line. */
	err = kt_live_start(&c, &p, b, NULL);
	/* An enumeration error was reported where it was decided; a write
	 * error (pd.err) is reported below, with what the file holds. */
	if (err && !pd.err)
		status = KT_EXIT_FAIL;

	if (!err && optind < argc) {
		err = start_child(argv + optind, fd == STDOUT_FILENO, &child);
		if (err) {
			kt_err("cannot run '%s': %s", argv[optind], strerror(-err));
			status = KT_EXIT_FAIL;
		}
	}
	if (!err && status == KT_EXIT_OK)
		err = kt_run(b, c.duration, kt_pipeline_tick, &p, child ? &child_done : NULL);
	b->ops->close(b);
	/* Reported once, here: an output error is sticky in pd, so close()
	 * returns it again rather than trying to write more. */
	if (!err || pd.err)
		err = kt_perf_data_close(&pd);
	else
		kt_perf_data_close(&pd);
	if (err && status == KT_EXIT_OK) {
		if (pd.err && pipe_fmt)
			kt_err("writing %s: %s (after %llu records)", what, strerror(-err),
			       pd.records);
		else if (pd.err)
			kt_err("writing %s: %s; it holds the %llu records written before", what,
			       strerror(-err), pd.records);
		else
			kt_err("recording stopped: %s", strerror(-err));
		status = KT_EXIT_FAIL;
	} else if (status == KT_EXIT_OK) {
		kt_info("wrote %llu records to %s", pd.records, what);
	}
	if (child) {
		r = reap_child(child);
		if (status == KT_EXIT_OK)
			status = r;
	}
	if (fd != STDOUT_FILENO && close(fd) && status == KT_EXIT_OK) {
		kt_err("writing %s: %s", what, strerror(errno));
		status = KT_EXIT_FAIL;
	}
	kt_pipeline_fini(&p);
	return status;
}
