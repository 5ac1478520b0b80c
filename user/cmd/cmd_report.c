// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksymtap report: run perf report (script, top, diff) so that it keeps the
 * symbols an injected perf.data registers.  perf as root loads /proc/kcore
 * when its kallsyms is /proc/kallsyms and first drops every kernel map that
 * is not a BPF program (tools/perf/util/symbol.c, dso__load_kcore()); every
 * other way of finding the running kernel's symbols also ends at /proc/kcore
 * (dso__find_kallsyms()), so nothing left in a cache avoids it: only
 * --kallsyms does.  This command supplies it: a copy of /proc/kallsyms in a
 * directory of its own, without a kcore beside it, removed when perf ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "util/fileio.h"
#include "util/log.h"
#include "util/spawn.h"

static const char report_help[] =
	"Usage: ksymtap report [-v] [--] perf report|script|top|diff [ARGS...]\n"
	"\n"
	"Run a perf command so that it names the frames in dynamic kernel code that\n"
	"'ksymtap inject' added to a perf.data.  As root, perf loads /proc/kcore for\n"
	"kernel symbols whenever its kallsyms is /proc/kallsyms, and then drops every\n"
	"symbol that is not a BPF program: trampolines, dispatchers, ftrace\n"
	"trampolines and kprobe pages go [unknown], perf's own records and injected\n"
	"ones alike.  perf has no other way around it than --kallsyms FILE with a\n"
	"FILE that has no kcore beside it (docs/inject.md).\n"
	"\n"
	"So, where /proc/kcore is readable, report copies /proc/kallsyms into a\n"
	"directory of its own, runs the command with --kallsyms set to that copy\n"
	"(right after the perf subcommand), removes the copy when perf ends and exits\n"
	"with perf's status.  Where /proc/kcore is not readable, or ARGS already give\n"
	"--kallsyms or --vmlinux, the command runs as it is.  perf's terminal, stdin\n"
	"and stdout are its own.\n"
	"\n"
	"Options:\n";

static const char report_more[] =
	"\n"
	"Exit status: perf's; 1 if it could not be run (one line on stderr),\n"
	"2 usage.\n"
	"\n"
	"Examples:\n"
	"  ksymtap inject -i perf.data -o perf.ksym.data --symbols ksym.data\n"
	"  ksymtap report -- perf report -i perf.ksym.data\n"
	"  ksymtap report -- perf script -i perf.ksym.data -F ip,sym\n";

/* perf subcommands that take --kallsyms (perf 6.1; annotate has none). */
static bool takes_kallsyms(const char *sub)
{
	static const char *const subs[] = { "report", "script", "top", "diff" };
	size_t i;

	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		if (!strcmp(sub, subs[i]))
			return true;
	return false;
}

/* Does ARGS choose the kernel's symbols already? */
static bool has_symbol_source(char **argv)
{
	for (; *argv; argv++)
		if (!strncmp(*argv, "--kallsyms", 10) || !strncmp(*argv, "--vmlinux", 9) ||
		    !strcmp(*argv, "-k"))
			return true;
	return false;
}

/* The copy of /proc/kallsyms, in a new directory: its path in buf. */
static int copy_kallsyms(char *dir, char *buf, size_t size)
{
	char chunk[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	if (!mkdtemp(dir)) {
		err = -errno;
		close(in);
		return err;
	}
	snprintf(buf, size, "%s/proc-kallsyms", dir);
	out = open(buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0)
		err = -errno;
	while (!err && (n = read(in, chunk, sizeof(chunk))) != 0)
		err = n < 0 ? (errno == EINTR ? 0 : -errno) : kt_write_all(out, chunk, n);
	close(in);
	if (out >= 0 && close(out) && !err)
		err = -errno;
	if (err) {
		unlink(buf);
		rmdir(dir);
	}
	return err;
}

/* Run argv; perf's exit status, or -errno if it could not run. */
static int run(char **argv)
{
	int status;
	pid_t pid;
	int err;

	err = kt_spawn(argv, false, &pid);
	if (err)
		return err;
	/* ^C is perf's to handle: its terminal is ours. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return kt_wait_status(status);
}

/* The subcommand's index in argv (after perf's own options), or -1. */
static int subcommand(char **argv)
{
	int i;

	for (i = 1; argv[i]; i++)
		if (argv[i][0] != '-')
			return i;
	return -1;
}

/* argv with --kallsyms=COPY (a copy of /proc/kallsyms, removed after)
 * right after its subcommand at sub: perf's status, or -errno. */
static int run_with_copy(char **argv, int argc, int sub)
{
	char dir[] = "/tmp/ksymtap-report.XXXXXX", copy[64], opt[96], **args;
	int i, status;

	status = copy_kallsyms(dir, copy, sizeof(copy));
	if (status) {
		kt_err("report: copying /proc/kallsyms: %s", strerror(-status));
		return status;
	}
	args = calloc(argc + 2, sizeof(*args));
	if (!args) {
		status = -ENOMEM;
	} else {
		snprintf(opt, sizeof(opt), "--kallsyms=%s", copy);
		for (i = 0; i <= sub; i++)
			args[i] = argv[i];
		args[sub + 1] = opt;
		for (i = sub + 1; i < argc; i++)
			args[i + 1] = argv[i];
		kt_debug("report: running %s %s with %s", argv[0], argv[sub], opt);
		status = run(args);
		free(args);
		if (status < 0)
			kt_err("report: cannot run %s: %s", argv[0], strerror(-status));
	}
	unlink(copy);
	rmdir(dir);
	return status;
}

int cmd_report(int argc, char **argv)
{
	const struct kt_cmd cmd = {
		.name = "report",
		.opts = kt_opts_report,
		.args = KT_ARGS_CMD,
		.usage = report_help,
		.more = report_more,
	};
	struct kt_common c;
	int first, sub, fd, status;

	kt_common_init(&c);
	first = kt_cmd_parse(&cmd, &c, argc, argv, &status);
	if (first < 0)
		return status;
	if (first >= argc) {
		kt_err("report: no perf command (try 'ksymtap report -- perf report -i FILE')");
		return KT_EXIT_USAGE;
	}
	argv += first;
	argc -= first;
	sub = subcommand(argv);
	if (sub < 0 || !takes_kallsyms(argv[sub])) {
		kt_err("report: '%s' is not perf report, script, top or diff, which take --kallsyms",
		       sub < 0 ? argv[0] : argv[sub]);
		return KT_EXIT_USAGE;
	}
	/* perf reads kcore only where it can (root, CAP_SYS_RAWIO). */
	fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	if (fd >= 0 && !has_symbol_source(argv + sub + 1)) {
		status = run_with_copy(argv, argc, sub);
		return status < 0 ? KT_EXIT_FAIL : status;
	}
	kt_debug("report: running %s %s as it is (%s)", argv[0], argv[sub],
		 fd < 0 ? "/proc/kcore is not readable: perf keeps its kallsyms" :
			  "its arguments choose the kernel's symbols");
	status = run(argv);
	if (status >= 0)
		return status;
	kt_err("report: cannot run %s: %s", argv[0], strerror(-status));
	return KT_EXIT_FAIL;
}
