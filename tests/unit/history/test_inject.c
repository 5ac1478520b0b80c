// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What `ksymtap inject` decides to add to perf's file, against a model of
 * perf's maps (docs/inject.md). */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include "history/inject.h"
#include "unit.h"

/* One of IN's KSYMBOL records as perf.data holds it (no trailer needed). */
static void in_ksym(struct kt_inject *ij, __u64 t, __u64 off, __u64 addr, __u32 len, bool unreg,
		    const char *name)
{
	unsigned char rec[128];
	struct perf_event_header h = { .type = PERF_RECORD_KSYMBOL, .size = sizeof(rec) };
	__u16 flags = unreg ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0, type = 1;

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &addr, 8);
	memcpy(rec + 16, &len, 4);
	memcpy(rec + 20, &type, 2);
	memcpy(rec + 22, &flags, 2);
	snprintf((char *)rec + 24, sizeof(rec) - 24, "%s", name);
	kt_inject_add_in(ij, rec, t, off);
}

static void file_ksym(struct kt_inject *ij, __u64 t, __u64 addr, __u32 len, bool unreg,
		      const char *name)
{
	struct kt_record r = unit_ksym(t, addr, len, unreg, name);

	kt_inject_add_file(ij, &r);
}

static void decide_all(struct kt_inject *ij)
{
	kt_inject_in_done(ij);
	kt_inject_file_done(ij);
	kt_inject_decide(ij, ~0ULL, 0);
}

static void test_pages(void)
{
	struct kt_inject ij;

	if (unit_start("inject_page_sized_trampolines")) {
		kt_inject_init(&ij, false);
		/* perf's synthesis: three trampolines, each a page; the first
		 * map swallows the other two (machine.c). */
		in_ksym(&ij, 0, 100, 0x1000, 4096, false, "bpf_trampoline_1");
		in_ksym(&ij, 0, 200, 0x1100, 4096, false, "bpf_trampoline_2");
		in_ksym(&ij, 0, 300, 0x1200, 4096, false, "bpf_trampoline_3");
		file_ksym(&ij, 0, 0x1000, 0xd8, false, "bpf_trampoline_1");
		file_ksym(&ij, 0, 0x1100, 0xd8, false, "bpf_trampoline_2");
		file_ksym(&ij, 0, 0x1200, 0xd8, false, "bpf_trampoline_3");
		decide_all(&ij);
		ASSERT_EQ(ij.nj, 4, "records added");
		ASSERT_EQ(ij.j[0].r.flags, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
			  "first unregisters");
		ASSERT_EQ(ij.j[0].r.addr, 0x1000, "perf's first map");
		ASSERT_EQ(ij.j[0].dep, 300, "after the last record perf put into that map");
		ASSERT_EQ(ij.j[1].r.len, 0xd8, "then ksymtap's extent");
		ASSERT_EQ(ij.j[1].dep, 300, "in the same place");
		ASSERT_EQ(ij.j[2].r.addr, 0x1100, "the second, its own map now");
		ASSERT_EQ(ij.j[2].dep, KT_INJ_NO_DEP, "nothing of perf's left there");
		ASSERT_EQ(ij.j[3].r.addr, 0x1200, "the third");
		ASSERT_EQ(ij.replaced, 1, "perf's maps replaced");
		kt_inject_fini(&ij);
		unit_end();
	}
}

static void test_present(void)
{
	struct kt_inject ij;

	if (unit_start("inject_what_in_has")) {
		kt_inject_init(&ij, false);
		/* IN saw a program's life natively, 3 us after ksymtap. */
		in_ksym(&ij, 1003000, 100, 0x5000, 64, false, "bpf_prog_aa_x");
		in_ksym(&ij, 2003000, 200, 0x5000, 64, true, "bpf_prog_aa_x");
		file_ksym(&ij, 1000000, 0x5000, 64, false, "bpf_prog_aa_x");
		file_ksym(&ij, 2000000, 0x5000, 64, true, "bpf_prog_aa_x");
		/* ...and not the ftrace trampoline that existed before. */
		file_ksym(&ij, 0, 0x9000, 229, false, "ftrace_trampoline");
		decide_all(&ij);
		ASSERT_EQ(ij.nj, 1, "only what IN lacks");
		ASSERT_EQ(ij.j[0].r.addr, 0x9000, "the trampoline");
		ASSERT_EQ(ij.j[0].time, 0, "at time 0: it existed all along");
		ASSERT_EQ(ij.present, 2, "IN's copies found");
		ASSERT_TRUE(!kt_inject_strangers(&ij), "same boot");
		kt_inject_fini(&ij);
		unit_end();
	}
	if (unit_start("inject_snapshot_after_older_symbol")) {
		kt_inject_init(&ij, false);
		/* IN saw an older program at 0x5000 live and die before
		 * ksymtap started; ksymtap's snapshot has the newer one. */
		in_ksym(&ij, 500, 100, 0x5000, 64, false, "bpf_prog_old");
		in_ksym(&ij, 600, 200, 0x5000, 64, true, "bpf_prog_old");
		file_ksym(&ij, 0, 0x5000, 64, false, "bpf_prog_new");
		file_ksym(&ij, 900, 0x7000, 8, false, "bpf_prog_live");
		decide_all(&ij);
		ASSERT_EQ(ij.j[0].r.addr, 0x5000, "the newer one");
		ASSERT_EQ(ij.j[0].time, 600, "after the older one died, not at 0");
		ASSERT_TRUE(kt_inject_strangers(&ij), "no symbol in common");
		kt_inject_fini(&ij);
		unit_end();
	}
}

int main(void)
{
	test_pages();
	test_present();
	return unit_exit();
}
