// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap stream: records on stdout as they happen. */
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

static const char stream_help[] =
	"Usage: ksymtap [stream] [OPTIONS]\n"
	"\n"
	"Print every dynamic kernel symbol as it is registered and unregistered: JITed\n"
	"BPF programs and subprograms, BPF trampolines and dispatchers, ftrace\n"
	"trampolines, kprobe instruction pages.  Records are PERF_RECORD_KSYMBOL and\n"
	"PERF_RECORD_BPF_EVENT, the same the kernel sends to perf, but taken by\n"
	"ksymtap's own BPF programs, so they exist without a perf listener.\n"
	"\n"
	"Data goes to stdout, diagnostics to stderr.  Once every hook is attached,\n"
	"what already exists is listed first (the snapshot, marked like perf's\n"
	"synthesized records), then stderr gets one line starting with\n"
	"'ksymtap: ready'.  SIGINT or SIGTERM drain what the kernel already\n"
	"produced, flush, and exit 0.\n"
	"\n"
	"Options:\n";

static const char stream_examples[] =
	"\n"
	"Examples:\n"
	"  ksymtap                          perf script style lines until ^C\n"
	"  ksymtap -f json | jq .name       JSON lines\n"
	"  ksymtap -f raw > ksym.bin        binary perf records\n"
	"  ksymtap -v -d 10                 10 seconds, listing every hook\n"
	"  ksymtap --no-snapshot            only what happens from now on\n"
	"  ksymtap --kallsyms /run/ksyms > /dev/null\n"
	"                                   keep /run/ksyms for perf report --kallsyms\n";

int cmd_stream(int argc, char **argv)
{
	static const struct kt_cmd cmd = {
		.name = "stream",
		.opts = kt_opts_stream,
		.usage = stream_help,
		.more = stream_examples,
	};
	struct kt_common c;
	struct kt_pipeline p;
	struct kt_output_sink out;
	struct kt_kallsyms_file kf = { .err = 0 };
	struct kt_backend *b = NULL;
	int err, status;

	if (kt_cmd_start_stdout(&cmd, &c, argc, argv, &p, &out, &status) < 0)
		return status;
	c.otlp_ok = true;
	kt_install_signals();
	err = kt_open_backend(&c, &p, &b);
	if (err) {
		kt_output_fini(&out.out);
		kt_pipeline_fini(&p);
		return KT_EXIT_FAIL;
	}
	err = kt_live_start(&c, &p, b, &kf);
	if (err)
		goto out;
	err = kt_run(b, c.duration, &p, NULL);
	if (!err)
		err = kt_pipeline_flush(&p);
	if (err)
		kt_report(&p, err, "reading records");
out:
	kt_live_stop(&c);
	b->ops->close(b);
	kt_output_fini(&out.out);
	kt_pipeline_fini(&p);
	return err ? KT_EXIT_FAIL : KT_EXIT_OK;
}
