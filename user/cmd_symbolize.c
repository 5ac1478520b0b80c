// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap symbolize: name the dynamic-code addresses in text, at the time
 * each line says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cmd_opts.h"
#include "log.h"
#include "resolve.h"
#include "symbolize.h"

static const char symbolize_help[] =
	"Usage: ksymtap symbolize -i FILE [-t|--at TIME]\n"
	"\n"
	"Copy text from stdin to stdout, naming each kernel address in it that fell\n"
	"in dynamic code (from the history a 'ksymtap record' FILE holds), at the\n"
	"time the text gives it:\n"
	"\n"
	"  dmesg, oops and WARN lines   '[<ffffffffc0...>]', '0xffffffffc0...', at the\n"
	"                               line's '[seconds]' (printk's clock is perf's)\n"
	"  perf script output           '[unknown]' frames, at their sample's time\n"
	"  bpftrace and bcc stacks      bare addresses, at --at (default: now, the\n"
	"                               end of FILE)\n"
	"\n"
	"A named address gets ' NAME+0xOFF/0xLEN [MODULE]' after it (replacing a\n"
	"following '[unknown]'); one nothing held at that time is left as it is.\n"
	"Lines are flushed as they come, so it works on a live stream.\n"
	"\n"
	"Options:\n"
	"  -i, --input FILE     a 'ksymtap record' file\n"
	"  -t, --at TIME        the time of lines that carry none\n"
	"  -h, --help           this text\n"
	"\n"
	"Exit status: 0, 1 a FILE that cannot be read or an output error, 2 usage.\n"
	"\n"
	"Examples:\n"
	"  dmesg | ksymtap symbolize -i ksym.data\n"
	"  perf script | ksymtap symbolize -i ksym.data\n";

static void symbolize_usage(void)
{
	fputs(symbolize_help, stdout);
}

int cmd_symbolize(int argc, char **argv)
{
	static const struct option longopts[] = { KT_HISTORY_LONGOPTS };
	struct kt_history_opts o = { 0 };
	const struct kt_cmd cmd = {
		.name = "symbolize",
		.shortopts = "i:t:h",
		.longopts = longopts,
		.help = symbolize_usage,
		.opt = kt_history_opt,
		.ctx = &o,
	};
	struct kt_history h;
	struct kt_common c;
	char *line = NULL;
	size_t cap = 0;
	__u64 dflt, cur, t;
	int status;

	kt_common_init(&c);
	if (kt_cmd_parse(&cmd, &c, argc, argv, &status) < 0)
		return status;
	status = kt_history_setup(&o, "symbolize", &h, &dflt);
	cur = dflt;
	while (!status && getline(&line, &cap, stdin) > 0) {
		if (kt_perf_script_time(line, &t))
			cur = t;
		if (!kt_dmesg_time(line, &t))
			t = cur;
		kt_symbolize_line(&h, line, t, stdout);
		if (fflush(stdout))
			break;
	}
	free(line);
	if (!status && ferror(stdout)) {
		kt_err("writing to stdout: %m");
		status = KT_EXIT_FAIL;
	}
	kt_history_fini(&h);
	return status;
}
