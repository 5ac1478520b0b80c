// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap kallsyms: the dynamic symbols of a moment, as /proc/kallsyms
 * prints them. */
#include <stdio.h>
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "util/log.h"
#include "run/lookup.h"

static const char kallsyms_help[] =
	"Usage: ksymtap kallsyms (-i FILE | -s SOCKET) [-t|--at TIME]\n"
	"\n"
	"Print the dynamic kernel symbols that existed at TIME, from the history a\n"
	"'ksymtap record' FILE holds (or one node's OTLP logs a collector stored,\n"
	"--host/--boot) or a 'ksymtap serve' daemon keeps, in /proc/kallsyms's\n"
	"format ('ADDR t NAME\\t[MODULE]', by address), for tools that read a kallsyms file: perf report --kallsyms,\n"
	"blazesym, bpftrace.  TIME is nanoseconds on perf's clock, seconds as perf\n"
	"script prints them (12.345678), or now: the end of FILE, or the daemon's\n"
	"present (the default).\n"
	"\n"
	"Options:\n";

static const char kallsyms_more[] =
	"\n"
	"Exit status: 0, 1 a FILE that cannot be read or a daemon that is gone, 2 usage.\n"
	"\n"
	"Example:\n"
	"  (grep -v -e '\\[bpf\\]' -e '\\[__builtin' /proc/kallsyms; ksymtap kallsyms -i ksym.data) >ks\n"
	"  perf report --kallsyms ks\n";

static const struct kt_cmd kallsyms_cmd = {
	.name = "kallsyms",
	.opts = kt_opts_kallsyms,
	.usage = kallsyms_help,
	.more = kallsyms_more,
	.args = KT_ARGS_NONE,
};

int cmd_kallsyms(int argc, char **argv)
{
	struct kt_lookup l;
	int status;
	__u64 t;

	if (kt_lookup_start(&kallsyms_cmd, argc, argv, &l, &t, &status) >= 0)
		status = kt_lookup_kallsyms(&l, t, stdout);
	if (!status && (fflush(stdout) || ferror(stdout))) {
		kt_err("writing to stdout: %m");
		status = KT_EXIT_FAIL;
	}
	kt_lookup_fini(&l);
	return status;
}
