// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksymtap compare: both backends at once over the same window, then a record
 * by record match of ksymtap's stream (bpf) against the kernel's (native).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cli.h"
#include "clock.h"
#include "compare.h"
#include "encode.h"
#include "log.h"
#include "symtab.h"

static const char compare_help[] =
	"Usage: ksymtap compare [OPTIONS] [-- CMD [ARGS...]]\n"
	"\n"
	"Run ksymtap's BPF backend and the kernel's own perf records (native backend)\n"
	"at the same time, over --duration seconds, while CMD runs, or until SIGINT,\n"
	"then match the two streams record by record: KSYMBOLs by addr, type, flags\n"
	"and name (then len), BPF_EVENTs by type and id (then flags and tag), each\n"
	"record at most once.  Known kernel deviations are listed apart as\n"
	"'explained', each with its reason (docs/compare.md).\n"
	"\n"
	"Exit status: 0 if nothing is unexplained, 1 if something is (or records were\n"
	"lost, so the comparison is incomplete), 2 on usage or set-up errors.\n"
	"\n"
	"Options:\n"
	"  -d, --duration SEC   compare over SEC seconds\n"
	"      --grace SEC      after CMD exits, keep listening SEC seconds (default 1):\n"
	"                       trampolines are freed after an RCU grace period\n"
	"  -f, --format text|json\n"
	"                       the report: text (default) or one JSON document\n"
	"      --ringbuf-size SIZE\n"
	"                       BPF ring buffer size, as for 'ksymtap stream'\n"
	"      --native-pages N data pages per CPU of the native rings, as for stream\n"
	"      --wakeup-ms MS   the BPF side's reader wakeups, as for stream\n"
	"      --disable-hook NAME\n"
	"                       do not attach hook NAME (repeatable), as for stream\n"
	"  -v, --verbose        every hook and why any is off; -vv libbpf's debug output\n"
	"  -h, --help           this text\n"
	"\n"
	"Examples:\n"
	"  ksymtap compare -d 10\n"
	"  ksymtap compare -f json -- bpftool prog load prog.o /sys/fs/bpf/p\n"
	"  ksymtap compare --disable-hook bpf_ksym_add -- ./workload   # must exit 1\n";

struct side {
	struct kt_compare *cmp;
	/* bpf: the table that completes unloads (user/symtab.c restore_loader()) */
	struct kt_symtab *tab;
	unsigned long long lost;
	int origin;
	int err;
};

static int collect(void *ctx, struct kt_record *r)
{
	struct side *s = ctx;

	r->origin = s->origin;
	if (r->type == KT_RECORD_LOST) {
		s->lost += r->lost;
		return 0;
	}
	if (s->tab)
		kt_symtab_apply(s->tab, r);
	return kt_compare_add(s->cmp, r);
}

static pid_t spawn(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, "ksymtap: error: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static void describe(const struct kt_record *r, char *buf, size_t size)
{
	int i, n;

	if (r->type == KT_RECORD_KSYMBOL) {
		snprintf(buf, size, "ksymbol addr %" PRIx64 " len %u type %u flags 0x%x name %s",
			 (uint64_t)r->addr, r->len, r->ksym_type, r->flags, r->name);
		return;
	}
	n = snprintf(buf, size, "bpf_event type %u, flags %u, id %u, tag ", r->bpf_type,
		     r->bpf_flags, r->prog_id);
	for (i = 0; i < KT_TAG_SIZE && n > 0 && (size_t)n + 2 < size; i++)
		n += snprintf(buf + n, size - n, "%02x", r->tag[i]);
}

static void print_text(const struct kt_compare *c, double secs, unsigned long long lost[2])
{
	static const enum kt_cmp_kind order[] = { KT_CMP_ONLY_NATIVE, KT_CMP_ONLY_BPF,
						  KT_CMP_MISMATCH, KT_CMP_EXPLAINED };
	const char *reasons[8];
	size_t i, k, nreasons = 0, r;
	char a[700], b[700];

	printf("compare: bpf (ksymtap) vs native (kernel perf records) over %.2f s\n", secs);
	printf("  matched          %zu\n", c->count[KT_CMP_MATCHED]);
	printf("  only-native      %zu\n", c->count[KT_CMP_ONLY_NATIVE]);
	printf("  only-bpf         %zu\n", c->count[KT_CMP_ONLY_BPF]);
	printf("  field mismatches %zu\n", c->count[KT_CMP_MISMATCH]);
	printf("  explained        %zu\n", c->count[KT_CMP_EXPLAINED]);
	printf("  outside window   %zu (not compared)\n", c->outside);
	if (lost[0] || lost[1])
		printf("  lost             native %llu, bpf %llu (comparison incomplete)\n",
		       lost[0], lost[1]);
	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		if (!c->count[order[k]])
			continue;
		printf("%s:\n", kt_cmp_kind_name(order[k]));
		for (i = 0; i < c->nitems; i++) {
			const struct kt_cmp_item *it = &c->items[i];

			if (it->kind != order[k])
				continue;
			describe(it->native ? it->native : it->bpf, a, sizeof(a));
			if (it->native && it->bpf && it->field) {
				describe(it->bpf, b, sizeof(b));
				printf("  %s differs:\n    native %s\n    bpf    %s\n", it->field,
				       a, b);
			} else {
				printf("  %s%s\n", it->native ? "native " : "bpf    ", a);
			}
			if (it->reason) {
				for (r = 0; r < nreasons && reasons[r] != it->reason; r++)
					;
				if (r == nreasons && nreasons < 8)
					reasons[nreasons++] = it->reason;
				printf("    (reason %zu)\n", r + 1);
			}
		}
	}
	for (r = 0; r < nreasons; r++)
		printf("reason %zu: %s\n", r + 1, reasons[r]);
}

static void json_record(const struct kt_record *r)
{
	char buf[KT_ENCODE_MAX];
	ssize_t n = kt_encode_json(r, buf, sizeof(buf));

	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = 0;
	fputs(n > 0 ? buf : "null", stdout);
}

static void print_json(const struct kt_compare *c, double secs, unsigned long long lost[2], bool ok)
{
	char esc[512];
	size_t i;

	printf("{\"window_seconds\":%.3f,\"matched\":%zu,\"only_native\":%zu,\"only_bpf\":%zu,"
	       "\"field_mismatches\":%zu,\"explained\":%zu,\"outside_window\":%zu,"
	       "\"lost_native\":%llu,\"lost_bpf\":%llu,\"unexplained\":%s,\"differences\":[",
	       secs, c->count[KT_CMP_MATCHED], c->count[KT_CMP_ONLY_NATIVE],
	       c->count[KT_CMP_ONLY_BPF], c->count[KT_CMP_MISMATCH], c->count[KT_CMP_EXPLAINED],
	       c->outside, lost[0], lost[1], ok ? "false" : "true");
	for (i = 0; i < c->nitems; i++) {
		const struct kt_cmp_item *it = &c->items[i];

		printf("%s{\"kind\":\"%s\"", i ? "," : "", kt_cmp_kind_name(it->kind));
		if (it->field)
			printf(",\"field\":\"%s\"", it->field);
		if (it->reason && kt_json_str(esc, sizeof(esc), it->reason) > 0)
			printf(",\"reason\":%s", esc);
		printf(",\"native\":");
		if (it->native)
			json_record(it->native);
		else
			fputs("null", stdout);
		printf(",\"bpf\":");
		if (it->bpf)
			json_record(it->bpf);
		else
			fputs("null", stdout);
		putchar('}');
	}
	printf("]}\n");
}

/* Drain a backend completely; returns the first error. */
static int drain(struct kt_backend *b)
{
	int n;

	do {
		n = b->ops->poll(b, 0);
	} while (n > 0);
	return n < 0 ? n : 0;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = { KT_COMMON_LONGOPTS,
						  { "grace", required_argument, NULL, OPT_GRACE },
						  { NULL, 0, NULL, 0 } };
	struct kt_backend *bpf = NULL, *nat = NULL;
	struct side sides[2] = { { .origin = KT_ORIGIN_NATIVE }, { .origin = KT_ORIGIN_BPF } };
	unsigned long long lost[2];
	struct kt_compare cmp;
	struct kt_common c;
	char why[256], sources[128];
	__s64 off = 0;
	__u64 t0, t1, start, until = 0;
	double grace = 1.0;
	char *end;
	pid_t child = -1;
	int opt, r, err, status, ret = KT_EXIT_USAGE;
	bool ok;

	kt_common_init(&c);
	/* '+': stop at the first non-option, so CMD's own options stay its own. */
	while ((opt = getopt_long(argc, argv, "+" KT_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
		r = kt_common_opt(&c, opt, optarg);
		if (r < 0)
			return KT_EXIT_USAGE;
		if (r) {
			if (opt == 'b') {
				kt_err("compare always runs both backends; drop --backend");
				return KT_EXIT_USAGE;
			}
			if (opt == 'f' && c.fmt == KT_FMT_RAW) {
				kt_err("--format: the report is text or json");
				return KT_EXIT_USAGE;
			}
			continue;
		}
		if (opt == OPT_GRACE) {
			grace = strtod(optarg, &end);
			if (end == optarg || *end || grace < 0) {
				kt_err("--grace: '%s' is not a number of seconds", optarg);
				return KT_EXIT_USAGE;
			}
			continue;
		}
		if (opt == 'h') {
			printf("%s", compare_help);
			return KT_EXIT_OK;
		}
		fprintf(stderr, "Try 'ksymtap compare --help'.\n");
		return KT_EXIT_USAGE;
	}
	if (optind < argc && strcmp(argv[optind - 1], "--")) {
		kt_err("unexpected argument '%s' (a command goes after --)", argv[optind]);
		return KT_EXIT_USAGE;
	}
	kt_compare_init(&cmp, sysconf(_SC_PAGESIZE));
	sides[0].cmp = sides[1].cmp = &cmp;
	sides[1].tab = kt_symtab_new();
	if (!sides[1].tab) {
		kt_err("out of memory");
		return KT_EXIT_USAGE;
	}
	kt_install_signals();

	/* bpf first: its own attach makes trampolines the native side must not
	 * see, since the bpf side cannot see those it makes before ksym_add. */
	err = kt_bpf_backend.open(&bpf, &c.bo, collect, &sides[1], why, sizeof(why));
	if (err) {
		kt_err("bpf backend: %s", why);
		goto out;
	}
	err = kt_native_backend.open(&nat, &c.bo, collect, &sides[0], why, sizeof(why));
	if (err) {
		kt_err("native backend: %s", why);
		goto out;
	}
	if (kt_perf_clock_offset(&off))
		kt_warn("perf clock unavailable; the window edges are approximate");
	/* Whatever was already queued belongs to before the window. */
	if ((err = drain(bpf)) || (err = drain(nat)))
		goto runtime;
	start = kt_monotonic_ns();
	t0 = start + off;
	bpf->ops->describe(bpf, sources, sizeof(sources));
	kt_info("ready: comparing bpf (sources: %s) with native", sources);
	if (optind < argc) {
		child = spawn(argv + optind);
		if (child < 0) {
			kt_err("fork: %s", strerror(errno));
			goto out;
		}
	}

	while (!kt_stop) {
		struct pollfd pfd[2] = { { .fd = bpf->ops->fd(bpf), .events = POLLIN },
					 { .fd = nat->ops->fd(nat), .events = POLLIN } };

		if (c.duration > 0 && kt_monotonic_ns() - start >= (__u64)(c.duration * 1e9))
			break;
		if (until && kt_monotonic_ns() >= until)
			break;
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				kt_warn("%s exited with status %d", argv[optind],
					WIFEXITED(status) ? WEXITSTATUS(status) :
							    128 + WTERMSIG(status));
			child = -1;
			until = kt_monotonic_ns() + (__u64)(grace * 1e9);
		}
		poll(pfd, 2, bpf->poll_ms ? (int)bpf->poll_ms : 100);
		if ((err = bpf->ops->poll(bpf, 0)) < 0 || (err = nat->ops->poll(nat, 0)) < 0)
			goto runtime;
	}
	t1 = kt_monotonic_ns() + off;
	/* Both rings hold everything up to t1 by now; take it all. */
	if ((err = drain(bpf)) || (err = drain(nat)))
		goto runtime;
	nat->ops->close(nat);
	nat = NULL;

	err = kt_compare_run(&cmp, t0, t1);
	if (err)
		goto runtime;
	lost[0] = sides[0].lost;
	lost[1] = sides[1].lost;
	ok = !cmp.count[KT_CMP_ONLY_NATIVE] && !cmp.count[KT_CMP_ONLY_BPF] &&
	     !cmp.count[KT_CMP_MISMATCH] && !lost[0] && !lost[1];
	if (c.fmt == KT_FMT_JSON)
		print_json(&cmp, (t1 - t0) / 1e9, lost, ok);
	else
		print_text(&cmp, (t1 - t0) / 1e9, lost);
	fflush(stdout);
	ret = ok ? KT_EXIT_OK : KT_EXIT_FAIL;
	goto out;
runtime:
	kt_err("compare: %s", strerror(-err));
	ret = KT_EXIT_USAGE;
out:
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	if (nat)
		nat->ops->close(nat);
	if (bpf)
		bpf->ops->close(bpf);
	kt_compare_fini(&cmp);
	kt_symtab_free(sides[1].tab);
	return ret;
}
