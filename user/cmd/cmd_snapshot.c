// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap snapshot: what exists now, and exit.  No hooks: it runs wherever
 * bpf() can enumerate programs, also where tracing programs are refused. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "util/log.h"
#include "sink/output.h"
#include "sink/pipeline.h"

static const char snapshot_help[] =
	"Usage: ksymtap snapshot [OPTIONS]\n"
	"\n"
	"Print the dynamic kernel symbols that exist now and exit: every BPF program\n"
	"(its image, its subprograms, then a BPF_EVENT PROG_LOAD with its id and tag),\n"
	"then BPF trampolines, dispatchers and struct_ops images, ftrace trampolines\n"
	"and kprobe instruction pages.  These are the records that stream and the\n"
	"other live commands print first; they are marked as perf marks the records\n"
	"it synthesizes at start-up (text: swapper 0 [000] 0.000000; json:\n"
	"\"snapshot\":true; raw: an all-zero sample_id).  Names are /proc/kallsyms's.\n"
	"\n"
	"Needs CAP_SYS_ADMIN (bpf_prog_get_next_id), but no tracing programs.\n"
	"\n"
	"Options:\n";

static const char snapshot_more[] =
	"\n"
	"Examples:\n"
	"  ksymtap snapshot                     perf script style lines\n"
	"  ksymtap snapshot -f json | jq -r 'select(.kind==\"ksymbol\") | .name'\n";

int cmd_snapshot(int argc, char **argv)
{
	static const struct kt_cmd cmd = {
		.name = "snapshot",
		.opts = kt_opts_snapshot,
		.usage = snapshot_help,
		.more = snapshot_more,
	};
	struct kt_kallsyms_file kf;
	struct kt_output_sink out;
	struct kt_pipeline p;
	struct kt_common c;
	int err, status;

	if (kt_cmd_start_stdout(&cmd, &c, argc, argv, &p, &out, &status) < 0)
		return status;
	signal(SIGPIPE, SIG_IGN);
	err = kt_emit_snapshot(&p, NULL);
	if (!err) {
		err = kt_pipeline_flush(&p);
		if (err)
			kt_report(&p, err, "snapshot");
	}
	if (!err && c.kallsyms) {
		kt_kallsyms_file_init(&kf, c.kallsyms, p.tab);
		err = kt_kallsyms_file_sync(&kf);
		if (err)
			kt_err("%s", kf.sink.why);
	}
	kt_output_fini(&out.out);
	kt_pipeline_fini(&p);
	return err ? KT_EXIT_FAIL : KT_EXIT_OK;
}
