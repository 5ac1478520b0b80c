// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap kallsyms: the dynamic symbols of a moment, as /proc/kallsyms
 * prints them. */
#include <stdio.h>
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "util/log.h"
#include "run/lookup.h"

static const char kallsyms_help[] =
	"Usage: ksymtap kallsyms (-i FILE | -s SOCKET) [-t|--at TIME]\n"
	"\n"
	"Print the dynamic kernel symbols that existed at TIME, from the history a\n"
	"'ksymtap record' FILE holds or a 'ksymtap serve' daemon keeps, in\n"
	"/proc/kallsyms's format ('ADDR t NAME\\t[MODULE]',\n"
	"by address), for tools that read a kallsyms file: perf report --kallsyms,\n"
	"blazesym, bpftrace.  TIME is nanoseconds on perf's clock, seconds as perf\n"
	"script prints them (12.345678), or now: the end of FILE, or the daemon's\n"
	"present (the default).\n"
	"\n"
	"Options:\n"
	"  -i, --input FILE     a 'ksymtap record' file\n"
	"  -s, --socket SOCKET  a 'ksymtap serve' daemon's socket\n"
	"  -t, --at TIME        the moment\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: 0, 1 a FILE that cannot be read or a daemon that is gone, 2 usage.\n"
	"\n"
	"Example:\n"
	"  (grep -v -e '\\[bpf\\]' -e '\\[__builtin' /proc/kallsyms; ksymtap kallsyms -i ksym.data) >ks\n"
	"  perf report --kallsyms ks\n";

static void kallsyms_usage(void)
{
	fputs(kallsyms_help, stdout);
}

int cmd_kallsyms(int argc, char **argv)
{
	struct kt_lookup l;
	int status;
	__u64 t;

	if (kt_lookup_start("kallsyms", kallsyms_usage, KT_ARGS_NONE, argc, argv, &l, &t,
			    &status) >= 0)
		status = kt_lookup_kallsyms(&l, t, stdout);
	if (!status && (fflush(stdout) || ferror(stdout))) {
		kt_err("writing to stdout: %m");
		status = KT_EXIT_FAIL;
	}
	kt_lookup_fini(&l);
	return status;
}
