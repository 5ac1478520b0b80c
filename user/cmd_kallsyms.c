// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap kallsyms: the dynamic symbols of a moment, as /proc/kallsyms
 * prints them. */
#include <stdio.h>
#include "cli.h"
#include "cmd_opts.h"
#include "kallsyms.h"
#include "log.h"
#include "resolve.h"

static const char kallsyms_help[] =
	"Usage: ksymtap kallsyms -i FILE [-t|--at TIME]\n"
	"\n"
	"Print the dynamic kernel symbols that existed at TIME, from the history a\n"
	"'ksymtap record' FILE holds, in /proc/kallsyms's format ('ADDR t NAME\\t[MODULE]',\n"
	"by address), for tools that read a kallsyms file: perf report --kallsyms,\n"
	"blazesym, bpftrace.  TIME is nanoseconds on perf's clock, seconds as perf\n"
	"script prints them (12.345678), or now: the end of FILE (the default).\n"
	"\n"
	"Options:\n"
	"  -i, --input FILE     a 'ksymtap record' file\n"
	"  -t, --at TIME        the moment\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: 0, 1 a FILE that cannot be read, 2 usage.\n"
	"\n"
	"Example:\n"
	"  (grep -v -e '\\[bpf\\]' -e '\\[__builtin' /proc/kallsyms; ksymtap kallsyms -i ksym.data) >ks\n"
	"  perf report --kallsyms ks\n";

static void kallsyms_usage(void)
{
	fputs(kallsyms_help, stdout);
}

static int print_one(void *ctx, const struct kt_hsym *s)
{
	char line[KT_NAME_MAX + 64];

	(void)ctx;
	if (kt_kallsyms_format(line, sizeof(line), s->addr, s->name, s->source) > 0)
		fputs(line, stdout);
	return 0;
}

int cmd_kallsyms(int argc, char **argv)
{
	static const struct option longopts[] = { KT_HISTORY_LONGOPTS };
	struct kt_history_opts o = { 0 };
	const struct kt_cmd cmd = {
		.name = "kallsyms",
		.shortopts = "i:t:h",
		.longopts = longopts,
		.help = kallsyms_usage,
		.opt = kt_history_opt,
		.ctx = &o,
	};
	struct kt_history h;
	struct kt_common c;
	int status;
	__u64 t;

	kt_common_init(&c);
	if (kt_cmd_parse(&cmd, &c, argc, argv, &status) < 0)
		return status;
	status = kt_history_setup(&o, "kallsyms", &h, &t);
	if (!status) {
		kt_history_each_at(&h, t, print_one, NULL);
		if (fflush(stdout) || ferror(stdout)) {
			kt_err("writing to stdout: %m");
			status = KT_EXIT_FAIL;
		}
	}
	kt_history_fini(&h);
	return status;
}
