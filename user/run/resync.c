// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Order matters: the backend is drained first, so that every record the
 * kernel made before the enumeration is in the table when it is compared.
 * A symbol born after the drain is listed by the enumeration too and its
 * register, still in flight, is then dropped as a duplicate (its task is
 * lost; the times are the enumeration's); one that dies after the drain is
 * unregistered here and its own unregister, in flight, dropped by the table
 * (kt_symtab_unmarked()).  Nothing is taken for dead from a source the
 * enumeration could not list whole (no /proc/kallsyms: BPF images, ftrace
 * trampolines and kprobe pages; no CAP_SYS_ADMIN: programs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run/cli.h"
#include "util/clock.h"
#include "util/log.h"
#include "run/resync.h"
#include "snapshot/snapshot.h"

/* A resync reads all of /proc/kallsyms, which costs the kernel O(programs^2)
 * (about a second with 10,000 programs, BENCHMARKS.md): at most one a second,
 * and at most a tenth of the time. */
#define MIN_GAP_NS 1000000000ULL
#define COST_SHARE 10

struct found {
	struct kt_pipeline *p;
	unsigned long long n;
};

/* One record of the enumeration: known (marked), or news. */
static int missing(void *ctx, struct kt_record *r)
{
	struct found *f = ctx;

	if (kt_symtab_mark(f->p->tab, r))
		return 0;
	/* Seen now, not at start-up: timed, so that perf.data sorts it
	 * among the live records (perf prints pid -1).  Timed when listed,
	 * not when the enumeration began: one under load took 1.5 s on 7.3,
	 * and a program born meanwhile was stamped before its birth, over a
	 * short-lived one at its address in between (inject_frames, 7.3). */
	r->rflags = KT_RF_NO_TASK;
	r->origin = KT_ORIGIN_RESYNC;
	r->time = kt_monotonic_ns() + f->p->resync.clock_off;
	f->n++;
	/* Its birth was lost: the backend needs to know it to see it go. */
	kt_backend_adopt(f->p->resync.backend, r);
	return kt_pipeline_emit(f->p, r);
}

/* Unregisters of what the enumeration no longer listed. */
static int gone(struct kt_pipeline *p, const struct kt_snapshot_stats *st, __u64 time,
		unsigned long long *count, char *why, size_t why_size)
{
	struct kt_record *v = NULL;
	size_t n = 0, i;
	int err;

	err = kt_symtab_unmarked(p->tab, st->listed, st->prog_ids, &v, &n);
	if (err) {
		snprintf(why, why_size, "comparing with the table: %s", strerror(-err));
		return err;
	}
	for (i = 0; !err && i < n; i++) {
		v[i].origin = KT_ORIGIN_RESYNC;
		v[i].time = time;
		err = kt_pipeline_emit(p, &v[i]);
	}
	*count = n;
	free(v);
	return err;
}

/* Once: the sources the enumeration cannot list whole here (it runs
 * unchanged for the life of the process). */
static void partial(struct kt_resync *rs, const struct kt_snapshot_stats *st)
{
	static const char *const why[KT_SRC_MAX] = {
		[KT_SRC_BPF_PROG] = "programs (no CAP_SYS_ADMIN to list them by id)",
		[KT_SRC_BPF_IMAGE] = "BPF images",
		[KT_SRC_FTRACE] = "ftrace trampolines",
		[KT_SRC_KPROBE] = "kprobe pages",
	};
	char list[256] = "";
	size_t n = 0;
	int i;

	if (rs->warned)
		return;
	rs->warned = true;
	for (i = 1; i < KT_SRC_MAX; i++)
		if (!(st->listed & (1u << i)) && n < sizeof(list))
			n += snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", why[i]);
	if (n)
		kt_warn("resync after lost records: %s%s cannot be listed here: those whose "
			"unregister was lost stay in the table",
			list,
			st->listed & (1u << KT_SRC_BPF_IMAGE) ?
				"" :
				" (/proc/kallsyms unreadable or hidden)");
}

static int resync(struct kt_pipeline *p, bool force)
{
	struct kt_resync *rs = &p->resync;
	struct kt_walker wk = {
		.prog_fd = -1, .map_fd = -1, .none = true, .kallsyms = getenv("KSYMTAP_KALLSYMS")
	};
	struct found f = { .p = p };
	struct kt_snapshot_stats st;
	unsigned long long dead = 0;
	__u64 t0 = kt_monotonic_ns(), took;
	char why[256] = "";
	int err;

	if (!force && t0 < rs->not_before)
		return 0;
	rs->wanted = false;
	err = kt_drain(rs->backend, NULL, NULL);
	if (err)
		return err;
	/* A loss the drain reported happened before the enumeration: this one
	 * covers it. */
	rs->wanted = false;
	if (!rs->have_clock) {
		if (kt_perf_clock_offset(&rs->clock_off))
			rs->clock_off = 0;
		rs->have_clock = true;
	}
	kt_symtab_mark_begin(p->tab);
	err = kt_snapshot(&wk, missing, &f, &st, why, sizeof(why));
	if (!err)
		err = gone(p, &st, kt_monotonic_ns() + rs->clock_off, &dead, why, sizeof(why));
	rs->runs++;
	rs->registered += f.n;
	rs->unregistered += dead;
	took = kt_monotonic_ns() - t0;
	rs->not_before = kt_monotonic_ns() +
			 (took * COST_SHARE > MIN_GAP_NS ? took * COST_SHARE : MIN_GAP_NS);
	if (err && why[0]) {
		kt_warn("resync after lost records: %s: symbols whose records were lost stay "
			"as they were",
			why);
		return 0;
	}
	if (err)
		return err; /* a sink's: it says why */
	partial(rs, &st);
	if (f.n || dead)
		kt_info("resync after lost records: %llu registered, %llu unregistered (%llu ms)",
			f.n, dead, (unsigned long long)(took / 1000000));
	else
		kt_debug("resync after lost records: nothing missed (%llu ms)",
			 (unsigned long long)(took / 1000000));
	return 0;
}

void kt_resync_init(struct kt_pipeline *p, struct kt_backend *b)
{
	p->resync.run = resync;
	p->resync.backend = b;
}
