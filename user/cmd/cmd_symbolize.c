// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap symbolize: name the dynamic-code addresses in text, at the time
 * each line says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "util/log.h"
#include "run/lookup.h"
#include "history/symbolize.h"

static const char symbolize_help[] =
	"Usage: ksymtap symbolize (-i FILE | -s SOCKET) [-t|--at TIME]\n"
	"\n"
	"Copy text from stdin to stdout, naming each kernel address in it that fell\n"
	"in dynamic code (from the history a 'ksymtap record' FILE holds, one node's\n"
	"OTLP logs a collector stored, or a 'ksymtap serve' daemon keeps), at the\n"
	"time the text gives it:\n"
	"\n"
	"  dmesg, oops and WARN lines   '[<ffffffffc0...>]', '0xffffffffc0...', at the\n"
	"                               line's '[seconds]' (printk's clock is perf's)\n"
	"  perf script output           '[unknown]' frames, at their sample's time\n"
	"  bpftrace and bcc stacks      bare addresses, at --at (default: now, the\n"
	"                               end of FILE, or the daemon's present)\n"
	"\n"
	"A named address gets ' NAME+0xOFF/0xLEN [MODULE]' after it (replacing a\n"
	"following '[unknown]'); one nothing held at that time is left as it is.\n"
	"Lines are flushed as they come, so it works on a live stream.\n"
	"\n"
	"Options:\n";

static const char symbolize_more[] =
	"\n"
	"Exit status: 0, 1 a FILE that cannot be read, a daemon that is gone (the\n"
	"rest of the text is copied as it is) or an output error, 2 usage.\n"
	"\n"
	"Examples:\n"
	"  dmesg | ksymtap symbolize -i ksym.data\n"
	"  perf script | ksymtap symbolize -i ksym.data\n"
	"  dmesg -w | ksymtap symbolize -s /run/ksymtap.sock\n";

static const struct kt_cmd symbolize_cmd = {
	.name = "symbolize",
	.opts = kt_opts_symbolize,
	.usage = symbolize_help,
	.more = symbolize_more,
	.args = KT_ARGS_NONE,
};

static int name(void *ctx, __u64 addr, __u64 t, char *buf, size_t size)
{
	return kt_lookup_name(ctx, addr, t, buf, size);
}

int cmd_symbolize(int argc, char **argv)
{
	struct kt_lookup l;
	kt_name_fn fn = name;
	char *line = NULL;
	size_t cap = 0;
	__u64 dflt, cur, t;
	int status;

	if (kt_lookup_start(&symbolize_cmd, argc, argv, &l, &dflt, &status) < 0) {
		kt_lookup_fini(&l);
		return status;
	}
	cur = dflt;
	while (!status && getline(&line, &cap, stdin) > 0) {
		if (kt_perf_script_time(line, &t))
			cur = t;
		if (!kt_dmesg_time(line, &t))
			t = cur;
		if (fn && kt_symbolize_line(fn, &l, line, t, stdout) < 0) {
			/* The daemon is gone (said once): the rest goes through as is. */
			fn = NULL;
		} else if (!fn) {
			fputs(line, stdout);
		}
		if (fflush(stdout))
			break;
	}
	free(line);
	if (!status && !fn)
		status = KT_EXIT_FAIL;
	if (!status && ferror(stdout)) {
		kt_err("writing to stdout: %m");
		status = KT_EXIT_FAIL;
	}
	kt_lookup_fini(&l);
	return status;
}
