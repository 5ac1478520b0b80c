// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksymtap compare: both backends at once over the same window, then a record
 * by record match of ksymtap's stream (bpf) against the kernel's (native).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "backend/open.h"
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "util/clock.h"
#include "record/compare.h"
#include "encode/encode.h"
#include "encode/json_writer.h"
#include "util/log.h"
#include "util/loop.h"
#include "util/spawn.h"
#include "record/symtab.h"

static const char compare_help[] =
	"Usage: ksymtap compare [OPTIONS] [-- CMD [ARGS...]]\n"
	"\n"
	"Run ksymtap's BPF backend and the kernel's own perf records (native backend)\n"
	"at the same time, over --duration seconds, while CMD runs, or until SIGINT,\n"
	"then match the two streams record by record: KSYMBOLs by addr, type, flags\n"
	"and name (then len), BPF_EVENTs by type and id (then flags and tag), each\n"
	"record at most once.  Known kernel deviations are listed apart as\n"
	"'explained', each with its reason (docs/compare.md).  The report is the\n"
	"only thing on stdout: CMD's stdout goes to stderr.\n"
	"\n"
	"Exit status: 0 if nothing is unexplained, 1 if something is (or records were\n"
	"lost, so the comparison is incomplete), 2 on usage, set-up or run-time errors\n"
	"(as diff(1)).\n"
	"\n"
	"Options:\n";

static const char compare_more[] =
	"\n"
	"Examples:\n"
	"  ksymtap compare -d 10\n"
	"  ksymtap compare -f json -- bpftool prog load prog.o /sys/fs/bpf/p\n"
	"  ksymtap compare --disable-hook bpf_ksym_add -- ./workload   # must exit 1\n";

struct side {
	struct kt_compare *cmp;
	/* bpf: the table that completes unloads (user/record/symtab.c restore_loader()) */
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

/* A record's JSON object as a value (its encoding without the newline). */
static void json_record(struct kt_jw *w, const struct kt_record *r)
{
	char buf[KT_ENCODE_MAX];
	ssize_t n = r ? kt_encode_json(r, buf, sizeof(buf)) : -1;

	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n > 0)
		kt_jw_raw(w, buf, n);
	else
		kt_jw_null(w);
}

static void print_json(const struct kt_compare *c, double secs, unsigned long long lost[2], bool ok)
{
	struct kt_jw w;
	ssize_t n;
	size_t i;

	kt_jw_init_dyn(&w);
	kt_jw_obj_begin(&w);
	KT_JW_FIELD(kt_jw_double, &w, "window_seconds", secs, 3);
	KT_JW_FIELD(kt_jw_u64, &w, "matched", c->count[KT_CMP_MATCHED]);
	KT_JW_FIELD(kt_jw_u64, &w, "only_native", c->count[KT_CMP_ONLY_NATIVE]);
	KT_JW_FIELD(kt_jw_u64, &w, "only_bpf", c->count[KT_CMP_ONLY_BPF]);
	KT_JW_FIELD(kt_jw_u64, &w, "field_mismatches", c->count[KT_CMP_MISMATCH]);
	KT_JW_FIELD(kt_jw_u64, &w, "explained", c->count[KT_CMP_EXPLAINED]);
	KT_JW_FIELD(kt_jw_u64, &w, "outside_window", c->outside);
	KT_JW_FIELD(kt_jw_u64, &w, "lost_native", lost[0]);
	KT_JW_FIELD(kt_jw_u64, &w, "lost_bpf", lost[1]);
	KT_JW_FIELD(kt_jw_bool, &w, "unexplained", !ok);
	kt_jw_key(&w, "differences");
	kt_jw_arr_begin(&w);
	for (i = 0; i < c->nitems; i++) {
		const struct kt_cmp_item *it = &c->items[i];

		kt_jw_obj_begin(&w);
		KT_JW_FIELD(kt_jw_str, &w, "kind", kt_cmp_kind_name(it->kind));
		if (it->field)
			KT_JW_FIELD(kt_jw_str, &w, "field", it->field);
		if (it->reason)
			KT_JW_FIELD(kt_jw_str, &w, "reason", it->reason);
		KT_JW_FIELD(json_record, &w, "native", it->native);
		KT_JW_FIELD(json_record, &w, "bpf", it->bpf);
		kt_jw_obj_end(&w);
	}
	kt_jw_arr_end(&w);
	kt_jw_obj_end(&w);
	KT_JW_LIT(&w, "\n");
	n = kt_jw_end(&w);
	if (n < 0)
		kt_err("compare: %s", strerror((int)-n));
	else
		fwrite(w.p, 1, n, stdout);
	kt_jw_free(&w);
}

static int compare_opt(void *ctx, int opt, const char *arg)
{
	char *end;

	switch (opt) {
	case 'b':
		kt_err("compare always runs both backends; drop --backend");
		return -1;
	case 'f':
		if (!strcmp(arg, "raw")) {
			kt_err("--format: the report is text or json");
			return -1;
		}
		return 0;
	case OPT_GRACE:
		*(double *)ctx = strtod(arg, &end);
		if (end == arg || *end || *(double *)ctx < 0) {
			kt_err("--grace: '%s' is not a number of seconds", arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

/* One comparison: both backends, the window, CMD. */
struct run {
	struct kt_backend *bpf, *nat;
	struct side sides[2]; /* [0] native, [1] bpf */
	struct kt_compare cmp;
	double grace;
	char **cmd; /* CMD and its arguments, or NULL */
	pid_t child;
	__s64 off; /* perf clock - CLOCK_MONOTONIC */
	__u64 t0, t1; /* the window, on perf's clock */
	/* The window's loop: both backends, its end, CMD's end, the signals. */
	struct kt_loop *l;
	struct kt_watch w[2]; /* [0] bpf, [1] native */
	struct kt_timer end;
	struct kt_stop_signals sig;
};

/* Open both backends; what each queued before the window is drained. */
static int compare_open(struct run *r, const struct kt_common *c)
{
	char why[256], sources[128];
	int err;

	/* bpf first: its own attach makes trampolines the native side must not
	 * see, since the bpf side cannot see those it makes before ksym_add. */
	err = kt_backend_open_one(&kt_bpf_backend, &c->bo, collect, &r->sides[1], &r->bpf, why,
				  sizeof(why));
	if (err) {
		kt_err("bpf backend: %s", why);
		return err;
	}
	err = kt_backend_open_one(&kt_native_backend, &c->bo, collect, &r->sides[0], &r->nat, why,
				  sizeof(why));
	if (err) {
		kt_err("native backend: %s", why);
		return err;
	}
	if (kt_perf_clock_offset(&r->off))
		kt_warn("perf clock unavailable; the window edges are approximate");
	err = kt_drain(r->bpf, NULL, NULL);
	if (!err)
		err = kt_drain(r->nat, NULL, NULL);
	if (!err)
		err = r->bpf->ops->start(r->bpf);
	if (!err)
		err = r->nat->ops->start(r->nat);
	if (err) {
		kt_err("compare: %s", strerror(-err));
		return err;
	}
	r->bpf->ops->describe(r->bpf, sources, sizeof(sources));
	kt_info("ready: comparing bpf (sources: %s) with native", sources);
	return 0;
}

static void poll_side(struct run *r, struct kt_backend *b)
{
	int err = b->ops->poll(b, 0);

	if (err < 0)
		kt_loop_exit(r->l, err);
}

static void on_bpf(struct kt_watch *w, unsigned int what)
{
	struct run *r = container_of(w, struct run, w[0]);

	poll_side(r, r->bpf);
}

static void on_native(struct kt_watch *w, unsigned int what)
{
	struct run *r = container_of(w, struct run, w[1]);

	poll_side(r, r->nat);
}

static void on_end(struct kt_timer *t)
{
	kt_loop_exit(container_of(t, struct run, end)->l, 0);
}

/* CMD's end: the window closes after the grace period (trampolines are
 * freed after an RCU grace period). */
static void child_ended(struct run *r)
{
	int status;

	if (r->child <= 0 || waitpid(r->child, &status, WNOHANG) != r->child)
		return;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		kt_warn("%s exited with status %d", r->cmd[0], kt_wait_status(status));
	r->child = -1;
	kt_timer_at(&r->end, kt_monotonic_ns() + (__u64)(r->grace * 1e9));
}

static void on_sig(struct kt_stop_signals *set, int sig)
{
	struct run *r = container_of(set, struct run, sig);

	if (sig == SIGCHLD) {
		child_ended(r);
		return;
	}
	kt_stop = 1;
	kt_loop_exit(r->l, 0);
}

static int window_loop(struct run *r, double duration)
{
	int err;

	err = kt_loop_new(&r->l);
	if (err)
		return err;
	err = kt_watch_start(r->l, &r->w[0], r->bpf->ops->fd(r->bpf), KT_IN, on_bpf)		?:
		      kt_watch_start(r->l, &r->w[1], r->nat->ops->fd(r->nat), KT_IN, on_native) ?:
		      kt_timer_init(r->l, &r->end, on_end);
	if (!err)
		err = kt_stop_signals_start(r->l, &r->sig, true, on_sig);
	if (!err) {
		if (duration > 0)
			kt_timer_at(&r->end, kt_monotonic_ns() + (__u64)(duration * 1e9));
		/* CMD may have ended before SIGCHLD was the loop's; a signal
		 * may have come before its handlers were. */
		child_ended(r);
		if (kt_stop)
			kt_loop_exit(r->l, 0);
		err = kt_loop_run(r->l);
	}
	kt_stop_signals_stop(&r->sig);
	kt_timer_fini(&r->end);
	kt_watch_stop(&r->w[0]);
	kt_watch_stop(&r->w[1]);
	kt_loop_free(r->l);
	return err;
}

/* Collect until SIGINT/SIGTERM, the duration, or CMD's end plus the grace
 * period; then drain both: the rings hold everything up to t1 by then. */
static int compare_window(struct run *r, double duration)
{
	int err;

	r->t0 = kt_monotonic_ns() + r->off;
	if (r->cmd) {
		err = kt_spawn(r->cmd, true, &r->child);
		if (err) {
			kt_err("cannot run '%s': %s", r->cmd[0], strerror(-err));
			r->child = -1;
			return err;
		}
	}
	err = window_loop(r, duration);
	r->t1 = kt_monotonic_ns() + r->off;
	if (!err)
		err = kt_drain(r->bpf, NULL, NULL);
	if (!err)
		err = kt_drain(r->nat, NULL, NULL);
	if (!err)
		return 0;
	kt_err("compare: %s", strerror(-err));
	return err;
}

/* Match, print; the exit status (diff's: 0 same, 1 differences). */
static int compare_report(struct run *r, enum kt_format fmt)
{
	unsigned long long lost[2] = { r->sides[0].lost, r->sides[1].lost };
	int err = kt_compare_run(&r->cmp, r->t0, r->t1);
	bool ok;

	if (err) {
		kt_err("compare: %s", strerror(-err));
		return KT_EXIT_USAGE;
	}
	ok = !r->cmp.count[KT_CMP_ONLY_NATIVE] && !r->cmp.count[KT_CMP_ONLY_BPF] &&
	     !r->cmp.count[KT_CMP_MISMATCH] && !lost[0] && !lost[1];
	if (fmt == KT_FMT_JSON)
		print_json(&r->cmp, (r->t1 - r->t0) / 1e9, lost, ok);
	else
		print_text(&r->cmp, (r->t1 - r->t0) / 1e9, lost);
	fflush(stdout);
	return ok ? KT_EXIT_OK : KT_EXIT_FAIL;
}

int cmd_compare(int argc, char **argv)
{
	struct run r = { .sides = { { .origin = KT_ORIGIN_NATIVE }, { .origin = KT_ORIGIN_BPF } },
			 .grace = 1.0,
			 .child = -1 };
	/* CMD's own options stay its own. */
	const struct kt_cmd cmd = {
		.name = "compare",
		.opts = kt_opts_compare,
		.args = KT_ARGS_CMD_AFTER_DASHDASH,
		.usage = compare_help,
		.more = compare_more,
		.opt = compare_opt,
		.ctx = &r.grace,
	};
	struct kt_common c;
	int first, ret;

	kt_common_init(&c);
	first = kt_cmd_parse(&cmd, &c, argc, argv, &ret);
	if (first < 0)
		return ret;
	r.cmd = first < argc ? argv + first : NULL;
	kt_compare_init(&r.cmp, sysconf(_SC_PAGESIZE));
	r.sides[0].cmp = r.sides[1].cmp = &r.cmp;
	r.sides[1].tab = kt_symtab_new();
	if (!r.sides[1].tab) {
		kt_err("out of memory");
		return KT_EXIT_USAGE;
	}
	kt_install_signals();
	/* Trouble (2) unless the report ran, as diff(1) has it. */
	ret = KT_EXIT_USAGE;
	if (!compare_open(&r, &c) && !compare_window(&r, c.duration)) {
		r.nat->ops->close(r.nat);
		r.nat = NULL;
		ret = compare_report(&r, c.fmt);
	}
	if (r.child > 0) {
		kill(r.child, SIGTERM);
		waitpid(r.child, NULL, 0);
	}
	if (r.nat)
		r.nat->ops->close(r.nat);
	if (r.bpf)
		r.bpf->ops->close(r.bpf);
	kt_compare_fini(&r.cmp);
	kt_symtab_free(r.sides[1].tab);
	return ret;
}
