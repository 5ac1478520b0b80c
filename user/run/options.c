// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The shared options, and getopt's tables, --help and the man pages' OPTIONS
 * sections made from an option table.  libc only (options.h says why). */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include "run/options.h"

const struct kt_optdef kt_opt_backend =
	KT_OPT('b', "backend", "bpf|native|auto",
	       "bpf: ksymtap's fentry/fexit programs; native: the kernel's own perf records; "
	       "auto (default): bpf, else native, saying why on stderr");
const struct kt_optdef kt_opt_format =
	KT_OPT('f', "format", "text|json|raw",
	       "text (default): perf script --show-bpf-events lines; json: one object per line; "
	       "raw: binary perf records");
const struct kt_optdef kt_opt_duration =
	KT_OPT('d', "duration", "SEC", "stop after SEC seconds (default: SIGINT/SIGTERM)");
const struct kt_optdef kt_opt_ringbuf_size =
	KT_OPT(OPT_RINGBUF_SIZE, "ringbuf-size", "SIZE",
	       "BPF ring buffer size, a power of two (default: 512K per online CPU, at least 1M; "
	       "mapped into ksymtap, so it is that much of its memory)");
const struct kt_optdef kt_opt_queue_size =
	KT_OPT(OPT_QUEUE_SIZE, "queue-size", "SIZE",
	       "most records waiting between the reader thread, which empties the kernel's ring, "
	       "and the output (default 16M; memory only as used); records beyond it are lost and "
	       "reported");
const struct kt_optdef kt_opt_native_pages =
	KT_OPT(OPT_NATIVE_PAGES, "native-pages", "N",
	       "data pages per CPU of the native rings, a power of two (default: 512K per CPU, as "
	       "perf record's)");
const struct kt_optdef kt_opt_wakeup_ms =
	KT_OPT(OPT_WAKEUP_MS, "wakeup-ms", "MS",
	       "bpf: 0 (default): the kernel wakes the reader when a record comes and it had read "
	       "everything, and never while nothing happens; MS: the reader looks every MS ms (or "
	       "when a quarter of the ring is waiting), fewer wake-ups on the program-load path, "
	       "records up to MS ms late, and MS-periodic wake-ups when idle");
const struct kt_optdef kt_opt_disable_hook =
	KT_OPT(OPT_DISABLE_HOOK, "disable-hook", "NAME",
	       "do not attach hook NAME (program or kernel function name, see -v); repeatable");
const struct kt_optdef kt_opt_verbose =
	KT_OPT('v', "verbose", NULL,
	       "every hook and why any is off; libbpf's messages (-vv: start-up steps, timed, and "
	       "the verifier's account of each program; -vvv: every event of the BPF hooks, with "
	       "the hook that made it)");
const struct kt_optdef kt_opt_help = KT_OPT('h', "help", NULL, "this text");
const struct kt_optdef kt_opt_no_snapshot =
	KT_OPT(OPT_NO_SNAPSHOT, "no-snapshot", NULL,
	       "do not list what exists at start-up; only what is registered and unregistered "
	       "from then on");
const struct kt_optdef kt_opt_kallsyms =
	KT_OPT(OPT_KALLSYMS, "kallsyms", "FILE",
	       "keep FILE as a kallsyms-format list of the live dynamic symbols (perf report "
	       "--kallsyms FILE), replaced atomically on a change, at most every 100 ms");
const struct kt_optdef kt_opt_cgroup_root =
	KT_OPT(OPT_CGROUP_ROOT, "cgroup-root", "DIR",
	       "the host's cgroup2 mount, for JSON's cgroup paths (default /sys/fs/cgroup; in a "
	       "container, where the host's tree is mounted)");

const struct kt_optdef kt_opt_otlp_endpoint =
	KT_OPT(OPT_OTLP_ENDPOINT, "otlp-endpoint", "URL",
	       "also send every record as an OTLP log record over OTLP/HTTP to URL (/v1/logs "
	       "appended when it has no path); overrides OTEL_EXPORTER_OTLP_ENDPOINT and "
	       "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, which turn the export on as well; the other "
	       "OTEL_* variables as the OpenTelemetry specification gives them (docs/otlp.md)");
const struct kt_optdef kt_opt_otlp_spool =
	KT_OPT(OPT_OTLP_SPOOL, "otlp-spool", "DIR",
	       "keep the OTLP requests the collector does not take (no answer, 429, 502, 503, 504) "
	       "in DIR, made 0700 if missing, and send them in order when it answers again, after "
	       "a restart too (one ksymtap per DIR)");
const struct kt_optdef kt_opt_otlp_spool_size =
	KT_OPT(OPT_OTLP_SPOOL_SIZE, "otlp-spool-size", "SIZE",
	       "the most the spool holds on disk (default 64M); beyond it records are dropped, "
	       "counted and said");

const struct kt_optdef *kt_optdef_of(const struct kt_optdef *o)
{
	return o->use ? o->use : o;
}

static int has_short(const struct kt_optdef *o)
{
	return o->code > 0 && o->code < KT_OPT_LONG_ONLY;
}

int kt_opts_getopt(const struct kt_optdef *opts, int stop_at_arg, char *shortopts,
		   size_t short_size, struct option *longopts, size_t long_n)
{
	const struct kt_optdef *o;
	size_t s = 0, l = 0;

	if (stop_at_arg && s + 1 < short_size)
		shortopts[s++] = '+';
	for (; opts->code || opts->use; opts++) {
		o = kt_optdef_of(opts);
		if (l + 1 >= long_n || s + 3 >= short_size)
			return -ENOSPC;
		longopts[l++] = (struct option){ o->name, o->arg ? required_argument : no_argument,
						 NULL, o->code };
		if (!has_short(o))
			continue;
		shortopts[s++] = o->code;
		if (o->arg)
			shortopts[s++] = ':';
	}
	shortopts[s] = '\0';
	longopts[l] = (struct option){ NULL, 0, NULL, 0 };
	return 0;
}

#define HELP_COL 23
#define HELP_WIDTH 79

/* text from column col on, wrapped at word boundaries, each further line
 * indented to HELP_COL. */
static void print_wrapped(FILE *f, const char *text, int col)
{
	const char *w = text, *end;
	int len;

	while (*w) {
		while (*w == ' ')
			w++;
		end = w + strcspn(w, " ");
		len = end - w;
		if (col > HELP_COL && col + 1 + len > HELP_WIDTH) {
			fprintf(f, "\n%*s", HELP_COL, "");
			col = HELP_COL;
		} else if (col > HELP_COL) {
			fputc(' ', f);
			col++;
		}
		fwrite(w, 1, len, f);
		col += len;
		w = end;
	}
	fputc('\n', f);
}

void kt_opts_print_help(FILE *f, const struct kt_optdef *opts)
{
	const struct kt_optdef *o;
	int n;

	for (; opts->code || opts->use; opts++) {
		o = kt_optdef_of(opts);
		if (!o->help)
			continue;
		if (has_short(o))
			n = fprintf(f, "  -%c, --%s", o->code, o->name);
		else
			n = fprintf(f, "      --%s", o->name);
		if (o->arg)
			n += fprintf(f, " %s", o->arg);
		if (n >= HELP_COL) {
			fputc('\n', f);
			n = 0;
		}
		fprintf(f, "%*s", HELP_COL - n, "");
		print_wrapped(f, o->help, HELP_COL);
	}
}

/* scdoc(5) text: '*' and '_' would start bold and underline, '\' escapes. */
static void print_scdoc_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '*' || *s == '_' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
}

void kt_opts_print_scdoc(FILE *f, const struct kt_optdef *opts)
{
	const struct kt_optdef *o;
	int first = 1;

	for (; opts->code || opts->use; opts++) {
		o = kt_optdef_of(opts);
		if (!o->help)
			continue;
		if (!first)
			fputc('\n', f);
		if (has_short(o))
			fprintf(f, "*-%c*, ", o->code);
		fprintf(f, "*--%s*", o->name);
		if (o->arg) {
			fputs(" _", f);
			print_scdoc_text(f, o->arg);
			fputc('_', f);
		}
		fputs("\n\t", f);
		print_scdoc_text(f, o->help);
		fputc('\n', f);
		first = 0;
	}
}
