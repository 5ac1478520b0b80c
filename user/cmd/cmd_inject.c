// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap inject: ksymtap's symbol records into perf's own perf.data. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "history/inject_stream.h"
#include "util/log.h"

static const char inject_help[] =
	"Usage: ksymtap inject -i IN -o OUT --symbols FILE [-v] [--force]\n"
	"\n"
	"Copy IN, a perf.data written by 'perf record', to OUT with the\n"
	"PERF_RECORD_KSYMBOL and PERF_RECORD_BPF_EVENT records of FILE (written by\n"
	"'ksymtap record' beside it) that IN lacks, so that perf report, perf script\n"
	"and perf annotate name the frames that fall in dynamic kernel code perf\n"
	"never heard of: ftrace trampolines, kprobe pages, struct_ops trampolines,\n"
	"code that existed before perf started, sources without native records.\n"
	"Each added record goes in time order on perf's clock, with the sample_id\n"
	"trailer IN's own attrs ask for; every byte of IN's records and feature\n"
	"sections is kept.  Where IN names a symbol differently from the kernel\n"
	"(perf's synthesized func[0] tag for a program's main image) or gives it a\n"
	"page where it is smaller (trampolines of 6.12+), ksymtap's record is the\n"
	"one a later lookup finds: perf's map is unregistered, ksymtap's registered.\n"
	"The programs' code goes in too (file mode): FILE's programs and BTF objects\n"
	"that IN's HEADER_BPF_PROG_INFO and HEADER_BPF_BTF lack (one gone before\n"
	"perf's side-band thread fetched it) are added to them.\n"
	"\n"
	"IN is read twice and OUT written to a temporary file that is renamed at the\n"
	"end: OUT is never left half-written.  With -i -, IN is perf's pipe format\n"
	"on stdin ('perf record -o -'), read once, and OUT gets the pipe format\n"
	"(-o -: stdout).  A FILE from another host, kernel or clock (perf record -k)\n"
	"or with no symbol in common with IN (another boot) is refused, unless\n"
	"--force.  docs/inject.md says how records are placed.\n"
	"\n"
	"As root, perf reads /proc/kcore when its kallsyms is /proc/kallsyms, and\n"
	"then drops every symbol that is not a BPF program (trampolines, ftrace and\n"
	"kprobe code), its own and injected ones alike: read OUT through 'ksymtap\n"
	"report', which gives perf a copy of /proc/kallsyms instead (where\n"
	"/proc/kcore is readable, inject says so in one line).\n"
	"\n"
	"Options:\n";

static const char inject_more[] =
	"\n"
	"Exit status: 0 done, 1 bad input or an output error (one line on stderr),\n"
	"2 usage.\n"
	"\n"
	"Example:\n"
	"  ksymtap record -o ksym.data &          # first, so it sees what perf sees\n"
	"  perf record -a -g -o perf.data -- ./workload\n"
	"  kill -INT %1; wait\n"
	"  ksymtap inject -i perf.data -o perf.ksym.data --symbols ksym.data\n"
	"  ksymtap report -- perf report -i perf.ksym.data\n";

struct inject_opts {
	struct kt_inject_args a;
	bool verbose;
};

static int inject_opt(void *ctx, int opt, const char *arg)
{
	struct inject_opts *o = ctx;

	switch (opt) {
	case 'i':
		o->a.in = arg;
		return 1;
	case 'o':
		o->a.out = arg;
		return 1;
	case 's':
		o->a.file = arg;
		return 1;
	case 'v':
		o->verbose = true;
		return 1;
	case OPT_FORCE:
		o->a.force = true;
		return 1;
	}
	return 0;
}

static int check_args(const struct kt_inject_args *a)
{
	const char *missing = !a->in   ? "-i IN" :
			      !a->out  ? "-o OUT" :
			      !a->file ? "--symbols FILE" :
					 NULL;

	if (missing) {
		kt_err("inject needs %s (try 'ksymtap inject --help')", missing);
		return -1;
	}
	if (!strcmp(a->out, "-") && strcmp(a->in, "-")) {
		kt_err("-o - writes perf's pipe format, which needs a pipe-format input (-i -)");
		return -1;
	}
	return 0;
}

/* perf as root reads /proc/kcore and drops what was injected outside BPF
 * programs (cmd_report.c): say how to read OUT where that will happen. */
static void kcore_hint(const char *out)
{
	int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	close(fd);
	kt_info("perf as root drops injected trampolines for /proc/kcore: read with 'ksymtap report -- perf report -i %s' (docs/inject.md)",
		out);
}

int cmd_inject(int argc, char **argv)
{
	struct inject_opts o = { 0 };
	const struct kt_cmd cmd = {
		.name = "inject",
		.opts = kt_opts_inject,
		.usage = inject_help,
		.more = inject_more,
		.opt = inject_opt,
		.ctx = &o,
	};
	struct kt_inject ij;
	struct kt_common c;
	char why[512] = "";
	int err, status;

	kt_common_init(&c);
	if (kt_cmd_parse(&cmd, &c, argc, argv, &status) < 0)
		return status;
	if (check_args(&o.a))
		return KT_EXIT_USAGE;
	kt_inject_init(&ij, o.verbose);
	err = kt_inject_run(&o.a, &ij, why, sizeof(why));
	if (err) {
		kt_err("%s", why[0] ? why : strerror(-err));
	} else {
		kt_info("injected %llu records (%llu KSYMBOL, %llu BPF_EVENT; %llu of perf's replaced), %llu of FILE's already in IN",
			o.a.emitted, ij.added_ksym, ij.added_bpf, ij.replaced, ij.present);
		if (o.a.code_progs || o.a.code_btfs)
			kt_info("and the code of %llu programs (%llu BTF objects) that IN lacks",
				o.a.code_progs, o.a.code_btfs);
		if (ij.f_lost)
			kt_warn("%s says ksymtap lost %llu records while recording: symbols of that time may be missing",
				o.a.file, ij.f_lost);
		kcore_hint(o.a.out);
	}
	kt_inject_fini(&ij);
	return err ? KT_EXIT_FAIL : KT_EXIT_OK;
}
