// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The live symbol table: dedupe, completion of unloads, replay order. */
#include <stdlib.h>
#include "record/symtab.h"
#include "unit.h"

static struct kt_record ks(__u64 addr, const char *name, __u16 flags, __u32 tid)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_KSYMBOL;
	r.addr = addr;
	r.len = 40;
	r.ksym_type = KT_KSYM_TYPE_BPF;
	r.flags = flags;
	r.tid = r.pid = tid;
	r.rflags = KT_RF_TASK_AT_HAND; /* as the BPF backend's */
	r.source = kt_classify(r.ksym_type, name);
	snprintf(r.name, sizeof(r.name), "%s", name);
	return r;
}

static struct kt_record be(__u16 type, __u32 id, __u8 tagbyte, __u32 tid)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_BPF_EVENT;
	r.bpf_type = type;
	r.prog_id = id;
	memset(r.tag, tagbyte, KT_TAG_SIZE);
	r.tid = r.pid = tid;
	r.rflags = KT_RF_TASK_AT_HAND; /* as the BPF backend's */
	r.source = KT_SRC_BPF_PROG;
	return r;
}

struct walk {
	int n;
	struct kt_record recs[16];
};

static int collect(void *ctx, struct kt_record *r)
{
	struct walk *w = ctx;

	if (w->n < 16)
		w->recs[w->n] = *r;
	w->n++;
	return 0;
}

/* Program 7 (tag aa) with its image at 0x1000, loaded by task 10. */
static struct kt_symtab *loaded_prog7(void)
{
	struct kt_symtab *t = kt_symtab_new();
	struct kt_record r;

	r = ks(0x1000, "bpf_prog_aa_main", 0, 10);
	kt_symtab_apply(t, &r);
	r = be(KT_BPF_EVENT_PROG_LOAD, 7, 0xaa, 10);
	kt_symtab_apply(t, &r);
	return t;
}

int main(void)
{
	struct kt_symtab *t;
	struct kt_record r;
	struct walk w;

	if (unit_start("symtab_dedupes_live_registers")) {
		t = kt_symtab_new();
		r = ks(0x1000, "bpf_prog_aa_main", 0, 10);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_NEW, "first register");
		r = ks(0x1000, "bpf_prog_aa_main", 0, 10);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_DUP,
			  "second register of a live symbol");
		r = ks(0x1000, "bpf_prog_bb_other", 0, 10);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_NEW, "same address, other name");
		r = be(KT_BPF_EVENT_PROG_LOAD, 7, 0xaa, 10);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_NEW, "program load");
		r = be(KT_BPF_EVENT_PROG_LOAD, 7, 0xaa, 10);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_DUP, "same program again");
		ASSERT_EQ(kt_symtab_nsyms(t), 2, "two symbols");
		ASSERT_EQ(kt_symtab_nprogs(t), 1, "one program");
		kt_symtab_free(t);
		unit_end();
	}

	if (unit_start("symtab_completes_unload_id")) {
		t = loaded_prog7();
		r = ks(0x1000, "bpf_prog_aa_main", KT_KSYM_FLAG_UNREGISTER, 99);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_NEW, "unregister");
		ASSERT_EQ(r.prog_id, 7, "the image's program");
		ASSERT_EQ(r.tid, 10, "the image's loader, not the task unloading");
		ASSERT_TRUE(r.rflags & KT_RF_LOADER_IDENTITY, "marked as the loader's");
		r = be(KT_BPF_EVENT_PROG_UNLOAD, 0, 0xaa, 99);
		kt_symtab_apply(t, &r);
		ASSERT_EQ(r.prog_id, 7, "id filled in from the program's images");
		ASSERT_EQ(r.pid, 10, "the program's loader");
		ASSERT_EQ(kt_symtab_nprogs(t), 0, "program gone");
		kt_symtab_free(t);
		unit_end();
	}

	if (unit_start("symtab_native_unload_keeps_its_task")) {
		t = kt_symtab_new();
		r = ks(0x3000, "bpf_prog_ff_n", 0, 20);
		r.origin = KT_ORIGIN_NATIVE;
		r.rflags = 0; /* the kernel's records name the task that did it */
		kt_symtab_apply(t, &r);
		r = be(KT_BPF_EVENT_PROG_LOAD, 8, 0xff, 20);
		r.origin = KT_ORIGIN_NATIVE;
		r.rflags = 0; /* the kernel's records name the task that did it */
		kt_symtab_apply(t, &r);
		r = ks(0x3000, "bpf_prog_ff_n", KT_KSYM_FLAG_UNREGISTER, 30);
		r.origin = KT_ORIGIN_NATIVE;
		r.rflags = 0; /* the kernel's records name the task that did it */
		kt_symtab_apply(t, &r);
		ASSERT_EQ(r.tid, 30, "the kernel's record says who unloaded: kept");
		ASSERT_TRUE(!(r.rflags & KT_RF_LOADER_IDENTITY), "not the loader's");
		kt_symtab_free(t);
		unit_end();
	}

	if (unit_start("symtab_unknown_unregister_passes")) {
		t = loaded_prog7();
		r = ks(0x5000, "bpf_trampoline_1", KT_KSYM_FLAG_UNREGISTER, 1);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_NEW,
			  "born before we looked: still news");
		kt_symtab_free(t);
		unit_end();
	}

	if (unit_start("symtab_walk_programs_then_others")) {
		t = kt_symtab_new();
		r = ks(0x9000, "bpf_trampoline_6442505802", 0, 3);
		kt_symtab_apply(t, &r);
		r = ks(0x2000, "bpf_prog_cc_b", 0, 5);
		kt_symtab_apply(t, &r);
		r = ks(0x2100, "bpf_prog_dd_b_sub", 0, 5);
		kt_symtab_apply(t, &r);
		r = be(KT_BPF_EVENT_PROG_LOAD, 9, 0xcc, 5);
		kt_symtab_apply(t, &r);
		r = ks(0x1000, "bpf_prog_ee_a", 0, 6);
		kt_symtab_apply(t, &r);
		r = be(KT_BPF_EVENT_PROG_LOAD, 3, 0xee, 6);
		kt_symtab_apply(t, &r);
		memset(&w, 0, sizeof(w));
		kt_symtab_walk(t, collect, &w);
		ASSERT_EQ(w.n, 6, "six records");
		ASSERT_STREQ(w.recs[0].name, "bpf_prog_ee_a", "prog 3's image first");
		ASSERT_EQ(w.recs[1].prog_id, 3, "then prog 3's BPF_EVENT");
		ASSERT_STREQ(w.recs[2].name, "bpf_prog_cc_b", "prog 9's main image");
		ASSERT_STREQ(w.recs[3].name, "bpf_prog_dd_b_sub", "prog 9's subprogram, in order");
		ASSERT_EQ(w.recs[4].prog_id, 9, "prog 9's BPF_EVENT");
		ASSERT_STREQ(w.recs[5].name, "bpf_trampoline_6442505802", "other symbols last");
		ASSERT_TRUE(w.recs[0].rflags & KT_RF_SNAPSHOT,
			    "replayed records are marked snapshot");
		kt_symtab_free(t);
		unit_end();
	}

	/* The resync (user/run/resync.c): programs 7 and 8 and a trampoline were
	 * in the table; the enumeration lists program 7 and a kprobe page the
	 * table lacks, and could not list BPF images. */
	if (unit_start("symtab_resync_unregisters_what_is_gone")) {
		struct kt_record *v = NULL;
		size_t n = 0;

		t = loaded_prog7();
		r = ks(0x9000, "bpf_trampoline_1", 0, 3);
		kt_symtab_apply(t, &r);
		r = ks(0x8000, "bpf_prog_bb_gone", 0, 4);
		kt_symtab_apply(t, &r);
		r = be(KT_BPF_EVENT_PROG_LOAD, 8, 0xbb, 4);
		kt_symtab_apply(t, &r);
		kt_symtab_mark_begin(t);
		r = ks(0x1000, "bpf_prog_aa_main", 0, 0);
		ASSERT_TRUE(kt_symtab_mark(t, &r), "program 7's image is known");
		r = be(KT_BPF_EVENT_PROG_LOAD, 7, 0xaa, 0);
		ASSERT_TRUE(kt_symtab_mark(t, &r), "program 7 is known");
		r = ks(0xa000, "kprobe_insn_page", 0, 0);
		r.ksym_type = KT_KSYM_TYPE_OOL;
		r.source = KT_SRC_KPROBE;
		ASSERT_TRUE(!kt_symtab_mark(t, &r), "a page the table lacks");
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_NEW, "registered by the resync");
		/* Programs listed by id, BPF images not (no /proc/kallsyms). */
		ASSERT_EQ(kt_symtab_unmarked(t, 1u << KT_SRC_BPF_PROG | 1u << KT_SRC_KPROBE, true,
					     &v, &n),
			  0, "unmarked");
		ASSERT_EQ(n, 2, "program 8's image and its PROG_UNLOAD, not the trampoline");
		ASSERT_STREQ(v[0].name, "bpf_prog_bb_gone", "the image first");
		ASSERT_TRUE(v[0].flags & KT_KSYM_FLAG_UNREGISTER, "an unregister");
		ASSERT_TRUE(!(v[0].rflags & KT_RF_SNAPSHOT) && (v[0].rflags & KT_RF_NO_TASK),
			    "no task, not a snapshot record");
		ASSERT_EQ(v[1].type, KT_RECORD_BPF_EVENT, "then the program");
		ASSERT_EQ(v[1].bpf_type, KT_BPF_EVENT_PROG_UNLOAD, "its unload");
		ASSERT_EQ(v[1].prog_id, 8, "program 8");
		ASSERT_EQ(kt_symtab_apply(t, &v[0]), KT_SYMTAB_NEW, "applied: gone");
		ASSERT_EQ(kt_symtab_apply(t, &v[1]), KT_SYMTAB_NEW, "program gone");
		ASSERT_EQ(kt_symtab_nsyms(t), 3, "prog 7, trampoline, kprobe page");
		ASSERT_EQ(kt_symtab_nprogs(t), 1, "program 7");
		/* The kernel's own unregisters, in flight during the resync. */
		r = ks(0x8000, "bpf_prog_bb_gone", KT_KSYM_FLAG_UNREGISTER, 99);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_DUP, "late unregister dropped");
		r = be(KT_BPF_EVENT_PROG_UNLOAD, 0, 0xbb, 99);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_DUP, "late unload (id 0) dropped");
		r = ks(0x8000, "bpf_prog_bb_gone", KT_KSYM_FLAG_UNREGISTER, 99);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_NEW, "only once");
		free(v);
		kt_symtab_free(t);
		unit_end();
	}

	if (unit_start("symtab_resync_tomb_forgotten_on_register")) {
		struct kt_record *v = NULL;
		size_t n = 0;

		t = kt_symtab_new();
		r = ks(0x9000, "bpf_trampoline_1", 0, 3);
		kt_symtab_apply(t, &r);
		kt_symtab_mark_begin(t);
		ASSERT_EQ(kt_symtab_unmarked(t, 1u << KT_SRC_BPF_IMAGE, false, &v, &n), 0,
			  "unmarked");
		ASSERT_EQ(n, 1, "the trampoline");
		kt_symtab_apply(t, &v[0]);
		r = ks(0x9000, "bpf_trampoline_1", 0, 3);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_NEW, "born again at the same place");
		r = ks(0x9000, "bpf_trampoline_1", KT_KSYM_FLAG_UNREGISTER, 3);
		ASSERT_EQ(kt_symtab_apply(t, &r), KT_SYMTAB_NEW, "and its death is news");
		r = ks(0x9000, "bpf_trampoline_1", 0, 3);
		kt_symtab_apply(t, &r);
		kt_symtab_mark_begin(t);
		free(v);
		ASSERT_EQ(kt_symtab_unmarked(t, 0, false, &v, &n), 0, "nothing listed");
		ASSERT_EQ(n, 0, "no source listed whole: nothing taken for dead");
		free(v);
		kt_symtab_free(t);
		unit_end();
	}
	return unit_exit();
}
