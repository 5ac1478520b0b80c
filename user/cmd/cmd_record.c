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
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "util/log.h"
#include "util/spawn.h"
#include "sink/perf_data.h"
#include "sink/pipeline.h"

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
	"FILE also keeps the code of each BPF program whose load it records (not\n"
	"with -o -): its bpf_prog_info (JIT image, instructions, function addresses,\n"
	"line and func info) and BTF, read by id as the load passes, written at the\n"
	"end as perf's HEADER_BPF_PROG_INFO and HEADER_BPF_BTF: perf report\n"
	"--header-only -I lists them, 'ksymtap disasm' shows the code at any address\n"
	"and time, 'ksymtap inject' adds what perf's own file lacks.  A program gone\n"
	"before it could be read (closed within a millisecond of its load) is\n"
	"copied by ksymtap's unload hook instead, while less than an eighth of the\n"
	"ring buffer is waiting; one neither read nor copied keeps its symbols only\n"
	"(counted at exit).  The bytes of trampolines, dispatchers, ftrace\n"
	"trampolines and kprobe pages are read from /proc/kcore 100 ms after they\n"
	"register, and follow each as a PERF_RECORD_TEXT_POKE.  The code is held in\n"
	"memory until the end (about 2 KiB per program): --no-code turns all of it\n"
	"off.\n"
	"\n"
	"Options:\n";

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

static volatile sig_atomic_t child_done;

static void on_child(int sig)
{
	(void)sig;
	child_done = 1;
}

/* CMD's end, for kt_run()'s done flag. */
static int start_child(char **argv, bool stdout_is_data, pid_t *pid)
{
	struct sigaction sa = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	/* With -o -, stdout carries perf.data: CMD's output goes to stderr. */
	return kt_spawn(argv, stdout_is_data, pid);
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
	return ours ? KT_EXIT_OK : kt_wait_status(st);
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

/* The output: -o's path, its fd and the perf.data writer on it. */
struct rec_out {
	const char *path, *what; /* what: for messages, "stdout" for -o - */
	int fd;
	bool pipe; /* perf's pipe format (not seekable) */
	struct kt_perf_data pd;
	struct kt_archive code; /* the programs' code, for the file format */
	struct kt_code_stage stage; /* the BPF side's copies at unload, for code */
	bool no_code; /* --no-code */
};

static int record_opt(void *ctx, int opt, const char *arg)
{
	struct rec_out *o = ctx;

	if (opt == 'o') {
		o->path = arg;
		return 1;
	}
	if (opt == OPT_NO_CODE) {
		o->no_code = true;
		return 1;
	}
	if (opt == 'f') {
		kt_err("--format: record always writes perf.data (-f is for stream)");
		return -1;
	}
	return 0;
}

static int record_open(struct rec_out *o)
{
	int err;

	if (!o->path) {
		kt_err("record: -o FILE or -o - is required (try 'ksymtap record --help')");
		return KT_EXIT_USAGE;
	}
	if (!strcmp(o->path, "-") && isatty(STDOUT_FILENO)) {
		kt_err("record: -o - writes binary perf.data; pipe it or redirect stdout");
		return KT_EXIT_USAGE;
	}
	o->what = strcmp(o->path, "-") ? o->path : "stdout";
	err = open_output(o->path, &o->fd, &o->pipe);
	if (err) {
		kt_err("cannot create %s: %s", o->path, strerror(-err));
		return KT_EXIT_FAIL;
	}
	err = kt_perf_data_open(&o->pd, o->fd, o->pipe, o->what);
	if (err) {
		kt_err("writing %s: %s", o->what, strerror(-err));
		if (o->fd != STDOUT_FILENO)
			close(o->fd);
		return KT_EXIT_FAIL;
	}
	if (!o->pipe && !o->no_code) {
		o->pd.archive = &o->code;
		o->pd.texts = true;
		o->code.stage = &o->stage;
	}
	return KT_EXIT_OK;
}

/* Finish the file (header patched, features written) and say how it went,
 * once: err is the run's error, status what the run decided so far. */
static int record_close(struct rec_out *o, int err, int status)
{
	/* An output error is sticky in pd, so close() returns it again rather
	 * than trying to write more. */
	if (!err || o->pd.err)
		err = kt_perf_data_close(&o->pd);
	else
		kt_perf_data_close(&o->pd);
	if (err && status == KT_EXIT_OK) {
		if (o->pd.err && o->pipe)
			kt_err("writing %s: %s (after %llu records)", o->what, strerror(-err),
			       o->pd.records);
		else if (o->pd.err)
			kt_err("writing %s: %s; it holds the %llu records written before", o->what,
			       strerror(-err), o->pd.records);
		else
			kt_err("recording stopped: %s", strerror(-err));
		status = KT_EXIT_FAIL;
	} else if (status == KT_EXIT_OK) {
		kt_info("wrote %llu records to %s", o->pd.records, o->what);
		if (o->pd.archive)
			kt_info("with the code of %zu programs (%zu KiB; %llu of them copied at "
				"their unload) and the bytes of %llu trampolines and other images",
				o->code.progs.n, o->code.bytes >> 10, o->code.caught,
				o->code.texts);
		if (o->code.texts_failed)
			kt_warn("the bytes of %llu trampolines and other images could not be read "
				"from /proc/kcore: %s",
				o->code.texts_failed,
				o->code.kcore_err ? strerror(-o->code.kcore_err) :
						    "outside its segments, or over 64 KiB");
		if (o->code.texts_gone)
			kt_warn("%llu trampolines and other images were unregistered before their "
				"bytes were read (within 100 ms): %s has their symbols only",
				o->code.texts_gone, o->what);
		/* Only where the code was written: after an output error the
		 * one line that says so is the whole report. */
		if (o->code.gone || o->code.failed)
			kt_warn("%llu programs were unloaded before their code could be read, "
				"%llu could not be read: %s has their symbols, not their code",
				o->code.gone, o->code.failed, o->what);
		if (o->stage.no_room || o->stage.partial || o->stage.unclaimed)
			kt_warn("of the programs read too late, %llu were not copied at their "
				"unload (over an eighth of the ring buffer was waiting), %llu copies were "
				"incomplete, %llu found no symbol",
				o->stage.no_room, o->stage.partial, o->stage.unclaimed);
	}
	kt_archive_free(&o->code);
	kt_stage_fini(&o->stage);
	if (o->fd != STDOUT_FILENO && close(o->fd) && status == KT_EXIT_OK) {
		kt_err("writing %s: %s", o->what, strerror(errno));
		status = KT_EXIT_FAIL;
	}
	return status;
}

/* Over 60 lines: parse, open, start, run, close, each with its error. */
int cmd_record(int argc, char **argv)
{
	struct rec_out o = { .path = NULL };
	struct kt_backend *b = NULL;
	struct kt_pipeline p;
	struct kt_common c;
	/* CMD's own options stay its own (perf record does so). */
	const struct kt_cmd cmd = {
		.name = "record",
		.opts = kt_opts_record,
		.args = KT_ARGS_CMD,
		.usage = record_help,
		.more = record_examples,
		.opt = record_opt,
		.ctx = &o,
	};
	int err, first, status;
	pid_t child = 0;

	kt_common_init(&c);
	first = kt_cmd_parse(&cmd, &c, argc, argv, &status);
	if (first < 0)
		return status;
	kt_stage_init(&o.stage);
	status = record_open(&o);
	if (status != KT_EXIT_OK) {
		kt_stage_fini(&o.stage);
		return status;
	}
	if (o.code.stage)
		c.bo.code_stage = &o.stage;
	if (kt_pipeline_init(&p) || kt_pipeline_add_sink(&p, &o.pd.sink)) {
		kt_err("out of memory");
		return record_close(&o, -ENOMEM, KT_EXIT_FAIL);
	}
	kt_install_signals();
	err = kt_open_backend(&c, &p, &b);
	if (err) {
		kt_pipeline_fini(&p);
		return record_close(&o, err, KT_EXIT_FAIL);
	}
	/* The snapshot at time 0, before the live records (no gap, no
	 * duplicate: docs/snapshot.md), then the ready line. */
	err = kt_live_start(&c, &p, b, NULL);
	if (err)
		status = KT_EXIT_FAIL; /* reported */
	if (!err && first < argc) {
		err = start_child(argv + first, o.fd == STDOUT_FILENO, &child);
		if (err) {
			kt_err("cannot run '%s': %s", argv[first], strerror(-err));
			status = KT_EXIT_FAIL;
		}
	}
	if (!err)
		err = kt_run(b, c.duration, &p, child ? &child_done : NULL);
	/* A resync still put off runs now (user/run/resync.c). */
	if (!err)
		err = kt_pipeline_flush(&p);
	b->ops->close(b);
	status = record_close(&o, err, status);
	if (child) {
		err = reap_child(child);
		if (status == KT_EXIT_OK)
			status = err;
	}
	kt_pipeline_fini(&p);
	return status;
}
