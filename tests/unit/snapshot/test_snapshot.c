// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The snapshot without a kernel: names as the kernel builds them, kallsyms
 * parsing, record order, length estimates, and how snapshot records and
 * racing live records meet in the symbol table.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "sink/pipeline.h"
#include "snapshot/merge.h"
#include "snapshot/snapshot.h"
#include "unit.h"

#define MAXR 32

struct rec_log {
	int n;
	struct kt_record r[MAXR];
};

static int log_emit(void *ctx, struct kt_record *r)
{
	struct rec_log *l = ctx;

	if (l->n < MAXR)
		l->r[l->n] = *r;
	l->n++;
	return 0;
}

struct log_sink {
	struct kt_sink sink;
	struct rec_log log;
};

static int log_sink_record(struct kt_sink *s, const struct kt_record *r)
{
	struct log_sink *ls = (struct log_sink *)s;

	return log_emit(&ls->log, (struct kt_record *)r);
}

static const char *write_tmp(const char *text)
{
	static char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/kt_unit_ksyms.XXXXXX");
	close(mkstemp(path));
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* A program with two subprograms, as bpf_prog_info describes it. */
static __u64 addrs[3] = { 0xffffffffc000068cULL, 0xffffffffc000070cULL, 0xffffffffc0000750ULL };
static __u32 lens[3] = { 46, 25, 38 };
static __u8 tags[3][KT_TAG_SIZE] = {
	{ 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11 }, /* func[0]: not the program's */
	{ 0xb8, 0xb7, 0x2c, 0x7f, 0x1c, 0xf5, 0xc9, 0x5f },
	{ 0xf1, 0x22, 0x9d, 0xa4, 0x7f, 0xff, 0xe9, 0xee },
};
static char *btf_names[3] = { "kt_sock_main", "kt_sub_one", "kt_sub_two" };

static struct kt_prog_desc desc(bool btf)
{
	struct kt_prog_desc d = {
		.id = 79,
		.tag = { 0xe8, 0x30, 0x0e, 0xe0, 0xa7, 0x3b, 0x0b, 0x01 },
		.name = "kt_sock_main",
		.nfuncs = 3,
		.addrs = addrs,
		.lens = lens,
		.tags = tags,
		.func_names = btf ? btf_names : NULL,
	};
	return d;
}

static struct kt_record reg(__u64 addr, const char *name, unsigned char source, __u16 flags,
			    __u32 tid)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_KSYMBOL;
	r.addr = addr;
	r.len = 40;
	r.ksym_type = source == KT_SRC_BPF_PROG || source == KT_SRC_BPF_IMAGE ? KT_KSYM_TYPE_BPF :
										KT_KSYM_TYPE_OOL;
	r.flags = flags;
	r.source = source;
	r.tid = r.pid = tid;
	r.rflags = KT_RF_TASK_AT_HAND; /* as the BPF backend's */
	snprintf(r.name, sizeof(r.name), "%s", name);
	return r;
}

static struct kt_record bev(__u16 type, __u32 id, const __u8 *tag, __u32 tid)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_BPF_EVENT;
	r.bpf_type = type;
	r.prog_id = id;
	memcpy(r.tag, tag, KT_TAG_SIZE);
	r.source = KT_SRC_BPF_PROG;
	r.tid = r.pid = tid;
	r.rflags = KT_RF_TASK_AT_HAND; /* as the BPF backend's */
	return r;
}

static void race_setup(struct kt_pipeline *p, struct log_sink *out)
{
	kt_pipeline_init(p);
	kt_pipeline_add_sink(p, &out->sink);
	memset(&out->log, 0, sizeof(out->log));
}

/* One program's live load (tid), or its unload (id 0, as the BPF backend's
 * for a program kallsyms lists), at addrs[] with the snapshot's names. */
static void live_prog(struct kt_recbuf *live, const struct rec_log *names, __u32 id,
		      const __u8 *tag, bool unload, __u32 tid)
{
	struct kt_record r;
	int i;

	for (i = 0; i < 3; i++) {
		r = reg(addrs[i], names->r[i].name, KT_SRC_BPF_PROG,
			unload ? KT_KSYM_FLAG_UNREGISTER : 0, tid);
		r.prog_id = unload ? 0 : id;
		kt_recbuf_push(live, &r);
	}
	r = bev(unload ? KT_BPF_EVENT_PROG_UNLOAD : KT_BPF_EVENT_PROG_LOAD, unload ? 0 : id, tag,
		tid);
	kt_recbuf_push(live, &r);
}

/* The snapshot of program id (desc(true) with that id), kept. */
static void snap_prog(struct kt_recbuf *snap, struct rec_log *names, __u32 id)
{
	struct kt_prog_desc d = desc(true);
	int i;

	d.id = id;
	memset(names, 0, sizeof(*names));
	kt_snapshot_prog_records(&d, NULL, log_emit, names);
	for (i = 0; i < names->n; i++)
		kt_recbuf_push(snap, &names->r[i]);
}

static int find_prog(void *ctx, struct kt_record *r)
{
	return r->type == KT_RECORD_BPF_EVENT && r->prog_id == *(__u32 *)ctx;
}

/* Whether the table holds program id (its walk stops there). */
static bool has_prog(struct kt_symtab *t, __u32 id)
{
	return kt_symtab_walk(t, find_prog, &id) == 1;
}

int main(void)
{
	struct kt_prog_desc d;
	struct kt_dynsyms ks;
	struct rec_log l;
	struct kt_pipeline p;
	struct log_sink out = { .sink = { .name = "log", .record = log_sink_record } };
	struct kt_record r;
	char name[KT_NAME_MAX], small[24];
	const char *path;
	__u64 addr;
	int i, n;

	if (unit_start("prog_ksym_name_like_the_kernel")) {
		d = desc(true);
		kt_bpf_prog_ksym_name(name, sizeof(name), d.tag, "kt_sock_main", "kt_sock_mai");
		ASSERT_STREQ(name, "bpf_prog_e8300ee0a73b0b01_kt_sock_main", "BTF name wins");
		kt_bpf_prog_ksym_name(name, sizeof(name), d.tag, NULL, "kt_sock_mai");
		ASSERT_STREQ(name, "bpf_prog_e8300ee0a73b0b01_kt_sock_mai", "else aux->name");
		kt_bpf_prog_ksym_name(name, sizeof(name), d.tag, NULL, "");
		ASSERT_STREQ(name, "bpf_prog_e8300ee0a73b0b01", "no name: the tag alone");
		n = kt_bpf_prog_ksym_name(small, sizeof(small), d.tag, "kt_sock_main", NULL);
		ASSERT_EQ(n, sizeof(small) - 1,
			  "truncated to the buffer, as the kernel's snprintf");
		ASSERT_STREQ(small, "bpf_prog_e8300ee0a73b0b", "truncated name");
		unit_end();
	}

	if (unit_start("prog_records_built_names_order")) {
		memset(&l, 0, sizeof(l));
		d = desc(true);
		ASSERT_EQ(kt_snapshot_prog_records(&d, NULL, log_emit, &l), 3, "three KSYMBOLs");
		ASSERT_EQ(l.n, 4, "three KSYMBOLs and a BPF_EVENT");
		ASSERT_STREQ(l.r[0].name, "bpf_prog_e8300ee0a73b0b01_kt_sock_main",
			     "main image under the program's tag, not prog_tags[0] (0108a4e9f358)");
		ASSERT_EQ(l.r[0].addr, addrs[0], "main address");
		ASSERT_EQ(l.r[0].len, 46, "main length");
		ASSERT_STREQ(l.r[1].name, "bpf_prog_b8b72c7f1cf5c95f_kt_sub_one", "func[1]");
		ASSERT_STREQ(l.r[2].name, "bpf_prog_f1229da47fffe9ee_kt_sub_two", "func[2]");
		ASSERT_EQ(l.r[3].type, KT_RECORD_BPF_EVENT, "BPF_EVENT last");
		ASSERT_EQ(l.r[3].bpf_type, KT_BPF_EVENT_PROG_LOAD, "PROG_LOAD");
		ASSERT_EQ(l.r[3].prog_id, 79, "id");
		ASSERT_MEMEQ(l.r[3].tag, d.tag, KT_TAG_SIZE, "program's tag");
		ASSERT_STREQ(l.r[3].name, "kt_sock_main", "prog name");
		for (i = 0; i < 4; i++) {
			ASSERT_TRUE(l.r[i].rflags & KT_RF_SNAPSHOT, "marked snapshot");
			ASSERT_EQ(l.r[i].origin, KT_ORIGIN_SNAPSHOT, "origin snapshot");
			ASSERT_EQ(l.r[i].time, 0, "time 0 like perf's synthesized records");
			ASSERT_EQ(l.r[i].source, KT_SRC_BPF_PROG, "source bpf_prog");
		}
		ASSERT_EQ(l.r[0].ksym_type, KT_KSYM_TYPE_BPF, "ksym type BPF");
		unit_end();
	}

	if (unit_start("prog_records_without_btf")) {
		memset(&l, 0, sizeof(l));
		d = desc(false);
		kt_snapshot_prog_records(&d, NULL, log_emit, &l);
		ASSERT_STREQ(l.r[0].name, "bpf_prog_e8300ee0a73b0b01_kt_sock_main",
			     "main: aux->name");
		ASSERT_STREQ(l.r[1].name, "bpf_prog_b8b72c7f1cf5c95f_F",
			     "subprogram: jit_subprogs()'s F");
		unit_end();
	}

	if (unit_start("prog_records_take_kallsyms_names")) {
		path = write_tmp(
			"ffffffff81000000 T _stext\n"
			"ffffffffc000070c t bpf_prog_b8b72c7f1cf5c95f_kt_sub_one_v2\t[bpf]\n"
			"ffffffffc000068c t bpf_trampoline_1\t[bpf]\n");
		ASSERT_EQ(kt_dynsyms_read(path, &ks), 0, "read");
		memset(&l, 0, sizeof(l));
		d = desc(true);
		kt_snapshot_prog_records(&d, &ks, log_emit, &l);
		ASSERT_STREQ(l.r[1].name, "bpf_prog_b8b72c7f1cf5c95f_kt_sub_one_v2",
			     "kallsyms's name is the kernel's truth");
		ASSERT_STREQ(
			l.r[0].name, "bpf_prog_e8300ee0a73b0b01_kt_sock_main",
			"an image (not a bpf_prog_ entry) at the address does not name a program");
		kt_dynsyms_free(&ks);
		unlink(path);
		addrs[1] = 0;
		memset(&l, 0, sizeof(l));
		ASSERT_EQ(kt_snapshot_prog_records(&d, NULL, log_emit, &l), 2,
			  "hidden address (kptr_restrict): no KSYMBOL");
		addrs[1] = 0xffffffffc000070cULL;
		unit_end();
	}

	if (unit_start("kallsyms_parse_dynamic")) {
		ASSERT_EQ(kt_kallsyms_parse_dynamic(
				  "ffffffffc0264654 t bpf_prog_a04f5eef06a7f555_x\t[bpf]\n", &addr,
				  name, sizeof(name)),
			  KT_SRC_BPF_PROG, "program");
		ASSERT_EQ(addr, 0xffffffffc0264654ULL, "address");
		ASSERT_STREQ(name, "bpf_prog_a04f5eef06a7f555_x", "name");
		ASSERT_EQ(kt_kallsyms_parse_dynamic(
				  "ffffffffc0467000 t bpf_trampoline_6442505800\t[bpf]\n", &addr,
				  name, sizeof(name)),
			  KT_SRC_BPF_IMAGE, "trampoline");
		ASSERT_EQ(kt_kallsyms_parse_dynamic("ffffffffc0264700 t bpf_dispatcher_xdp\t[bpf]",
						    &addr, name, sizeof(name)),
			  KT_SRC_BPF_IMAGE, "dispatcher, no newline");
		ASSERT_EQ(kt_kallsyms_parse_dynamic(
				  "ffffffffc046b000 t ftrace_trampoline\t[__builtin__ftrace]\n",
				  &addr, name, sizeof(name)),
			  KT_SRC_FTRACE, "ftrace trampoline");
		ASSERT_EQ(kt_kallsyms_parse_dynamic(
				  "ffffffffc0470000 t kprobe_insn_page\t[__builtin__kprobes]\n",
				  &addr, name, sizeof(name)),
			  KT_SRC_KPROBE, "kprobe page");
		ASSERT_EQ(kt_kallsyms_parse_dynamic("ffffffff81000000 T _stext\n", &addr, name,
						    sizeof(name)),
			  0, "core kernel");
		ASSERT_EQ(
			kt_kallsyms_parse_dynamic("ffffffffc0a00000 t nft_do_chain\t[nf_tables]\n",
						  &addr, name, sizeof(name)),
			0, "a module");
		ASSERT_EQ(kt_kallsyms_parse_dynamic("ffffffffc0a00000 t x\t[bpfx]\n", &addr, name,
						    sizeof(name)),
			  0, "a module whose name starts like bpf");
		ASSERT_EQ(kt_kallsyms_parse_dynamic("garbage\n", &addr, name, sizeof(name)), 0,
			  "garbage");
		ASSERT_EQ(kt_kallsyms_parse_dynamic(
				  "ffffffffc0467000 t bpf_trampoline_6442505800\t[bpf]\n", &addr,
				  small, 8),
			  -ENAMETOOLONG, "name too long for the buffer");
		unit_end();
	}

	if (unit_start("kallsyms_format_is_proc_kallsyms")) {
		n = kt_kallsyms_format(name, sizeof(name), 0xffffffffc046b000ULL,
				       "ftrace_trampoline", KT_SRC_FTRACE);
		ASSERT_STREQ(name, "ffffffffc046b000 t ftrace_trampoline\t[__builtin__ftrace]\n",
			     "line");
		ASSERT_EQ(n, strlen(name), "length");
		kt_kallsyms_format(name, sizeof(name), 0xc0000000ULL, "bpf_prog_aa",
				   KT_SRC_BPF_PROG);
		ASSERT_STREQ(name, "00000000c0000000 t bpf_prog_aa\t[bpf]\n", "16 digits like %px");
		ASSERT_EQ(kt_kallsyms_format(small, 8, 1, "kprobe_insn_page", KT_SRC_KPROBE),
			  -ENOSPC, "too small");
		ASSERT_EQ(kt_kallsyms_format(name, sizeof(name), 1, "x", KT_SRC_UNKNOWN), -EINVAL,
			  "no module");
		unit_end();
	}

	if (unit_start("dynsyms_read_find_next")) {
		path = write_tmp("ffffffff81000000 T _stext\n"
				 "ffffffffc0003000 t bpf_prog_bb_b\t[bpf]\n"
				 "ffffffffc0001000 t bpf_prog_aa_a\t[bpf]\n"
				 "ffffffffc0001100 t bpf_trampoline_7\t[bpf]\n"
				 "ffffffffc0a00000 t nft_do_chain\t[nf_tables]\n"
				 "ffffffffc0005000 t ftrace_trampoline\t[__builtin__ftrace]\n"
				 "ffffffffc0006000 t kprobe_insn_page\t[__builtin__kprobes]\n");
		ASSERT_EQ(kt_dynsyms_read(path, &ks), 0, "read");
		ASSERT_EQ(ks.n, 5, "five dynamic entries");
		ASSERT_STREQ(ks.v[0].name, "bpf_prog_bb_b", "file order kept");
		ASSERT_TRUE(kt_dynsyms_find(&ks, 0xffffffffc0001100ULL, KT_SRC_BPF_IMAGE) != NULL,
			    "find");
		ASSERT_TRUE(kt_dynsyms_find(&ks, 0xffffffffc0001100ULL, KT_SRC_BPF_PROG) == NULL,
			    "find by source");
		ASSERT_EQ(kt_dynsyms_next(&ks, 0xffffffffc0001000ULL), 0xffffffffc0001100ULL,
			  "next");
		ASSERT_EQ(kt_dynsyms_next(&ks, 0xffffffffc0006000ULL), 0, "nothing above");
		ASSERT_EQ(kt_snapshot_estimate_len(&ks, KT_SRC_BPF_PROG, 0xffffffffc0001000ULL,
						   4096),
			  0x100, "up to the next symbol");
		ASSERT_EQ(kt_snapshot_estimate_len(&ks, KT_SRC_BPF_IMAGE, 0xffffffffc0001100ULL,
						   4096),
			  4096, "at most a page");
		ASSERT_EQ(kt_snapshot_estimate_len(&ks, KT_SRC_FTRACE, 0xffffffffc0005040ULL, 4096),
			  4096 - 0x40, "ftrace: to the end of its page");
		kt_dynsyms_free(&ks);
		unlink(path);
		path = write_tmp("0000000000000000 t bpf_prog_aa_a\t[bpf]\n");
		ASSERT_EQ(kt_dynsyms_read(path, &ks), -EACCES, "hidden addresses");
		unlink(path);
		ASSERT_EQ(kt_dynsyms_read("/nonexistent/kallsyms", &ks), -ENOENT, "missing file");
		unit_end();
	}

	/* ---- snapshot and live records meeting in the table ---- */
	/* Each race case: its own pipeline logging what passes. */
	if (unit_start("race_in_flight_program_reported_once")) {
		race_setup(&p, &out);
		d = desc(true);
		kt_snapshot_prog_records(&d, NULL, kt_pipeline_emit, &p);
		/* The live backend saw the same load after its hooks attached. */
		for (i = 0; i < 3; i++) {
			r = reg(addrs[i], out.log.r[i].name, KT_SRC_BPF_PROG, 0, 42);
			kt_pipeline_emit(&p, &r);
		}
		r = bev(KT_BPF_EVENT_PROG_LOAD, 79, d.tag, 42);
		kt_pipeline_emit(&p, &r);
		ASSERT_EQ(out.log.n, 4, "only the snapshot's four records pass");
		ASSERT_EQ(p.dups, 4, "the live four are duplicates");
		ASSERT_EQ(kt_symtab_nsyms(p.tab), 3, "three live symbols");
		ASSERT_EQ(kt_symtab_nprogs(p.tab), 1, "one program");
		kt_pipeline_fini(&p);
		unit_end();
	}

	if (unit_start("race_snapshot_program_unloaded_after")) {
		/* Loaded before the hooks: the backend's unload has id 0 (the kernel
		 * freed the id first); the table fills it in from the snapshot. */
		race_setup(&p, &out);
		d = desc(true);
		kt_snapshot_prog_records(&d, NULL, kt_pipeline_emit, &p);
		for (i = 0; i < 3; i++) {
			r = reg(addrs[i], out.log.r[i].name, KT_SRC_BPF_PROG,
				KT_KSYM_FLAG_UNREGISTER, 7);
			kt_pipeline_emit(&p, &r);
		}
		r = bev(KT_BPF_EVENT_PROG_UNLOAD, 0, d.tag, 7);
		kt_pipeline_emit(&p, &r);
		ASSERT_EQ(out.log.n, 8, "the unload passes");
		ASSERT_EQ(out.log.r[7].prog_id, 79, "its id completed from the snapshot");
		ASSERT_EQ(kt_symtab_nsyms(p.tab), 0, "no live symbols");
		ASSERT_EQ(kt_symtab_nprogs(p.tab), 0, "no program");
		kt_pipeline_fini(&p);
		unit_end();
	}

	if (unit_start("race_died_before_enumeration")) {
		race_setup(&p, &out);
		/* Born before the hooks, died before the enumeration: only the live
		 * unregister exists, and it passes (perf's native stream has it too). */
		r = reg(0xffffffffc0009000ULL, "bpf_trampoline_9", KT_SRC_BPF_IMAGE,
			KT_KSYM_FLAG_UNREGISTER, 5);
		kt_pipeline_emit(&p, &r);
		ASSERT_EQ(out.log.n, 1, "passes");
		ASSERT_EQ(kt_symtab_nsyms(p.tab), 0, "nothing live");
		/* Born and died between the hooks and the enumeration: both pass. */
		r = reg(0xffffffffc000a000ULL, "bpf_trampoline_10", KT_SRC_BPF_IMAGE, 0, 5);
		kt_pipeline_emit(&p, &r);
		r.flags = KT_KSYM_FLAG_UNREGISTER;
		kt_pipeline_emit(&p, &r);
		ASSERT_EQ(out.log.n, 3, "register and unregister pass");
		ASSERT_EQ(kt_symtab_nsyms(p.tab), 0, "nothing live");
		kt_pipeline_fini(&p);
		unit_end();
	}

	if (unit_start("race_image_in_flight_and_dying")) {
		/* A trampoline the snapshot listed whose birth was also in flight, and
		 * which then went away. */
		race_setup(&p, &out);
		r = reg(0xffffffffc000b000ULL, "bpf_trampoline_11", KT_SRC_BPF_IMAGE, 0, 0);
		r.rflags = KT_RF_SNAPSHOT | KT_RF_NO_TASK;
		r.origin = KT_ORIGIN_SNAPSHOT;
		kt_pipeline_emit(&p, &r);
		r = reg(0xffffffffc000b000ULL, "bpf_trampoline_11", KT_SRC_BPF_IMAGE, 0, 5);
		kt_pipeline_emit(&p, &r);
		ASSERT_EQ(out.log.n, 1, "listed once");
		r.flags = KT_KSYM_FLAG_UNREGISTER;
		kt_pipeline_emit(&p, &r);
		ASSERT_EQ(out.log.n, 2, "its death passes");
		ASSERT_EQ(kt_symtab_nsyms(p.tab), 0, "nothing live");
		kt_pipeline_fini(&p);
		unit_end();
	}

	/* ---- the snapshot merged with the live records held meanwhile ---- */
	if (unit_start("merge_reload_at_the_same_address")) {
		/* Program 1036 born and gone after the attach, before the
		 * enumeration; 1040, the same program loaded again at the same
		 * addresses, seen by it (snapshot_start on 7.3, 2026-12-05). */
		struct kt_recbuf snap = {}, live = {};
		size_t left;

		race_setup(&p, &out);
		snap_prog(&snap, &l, 1040);
		d = desc(true);
		live_prog(&live, &l, 1036, d.tag, false, 30);
		live_prog(&live, &l, 1036, d.tag, true, 30);
		live_prog(&live, &l, 1040, d.tag, false, 31);
		ASSERT_EQ(kt_snapshot_emit_merged(&snap, &live, kt_pipeline_emit, &p, &left), 0,
			  "merged");
		ASSERT_EQ(left, 4, "the snapshot's four records of 1040 left out");
		ASSERT_EQ(out.log.n, 12, "every live record passes");
		ASSERT_EQ(out.log.r[7].prog_id, 1036, "the unload is 1036's");
		ASSERT_EQ(p.dups, 0, "no duplicates");
		ASSERT_EQ(kt_symtab_nsyms(p.tab), 3, "1040's three symbols");
		ASSERT_EQ(kt_symtab_nprogs(p.tab), 1, "one program");
		ASSERT_TRUE(has_prog(p.tab, 1040), "and it is 1040");
		kt_recbuf_free(&snap);
		kt_recbuf_free(&live);
		kt_pipeline_fini(&p);
		unit_end();
	}

	if (unit_start("merge_enumerated_then_replaced")) {
		/* Program 50, born before the attach and seen by the enumeration,
		 * goes; 51 comes at its addresses before the drain: 50 stands in
		 * the snapshot, its unload follows. */
		struct kt_recbuf snap = {}, live = {};
		size_t left;

		race_setup(&p, &out);
		snap_prog(&snap, &l, 50);
		d = desc(true);
		live_prog(&live, &l, 50, d.tag, true, 30);
		live_prog(&live, &l, 51, d.tag, false, 31);
		ASSERT_EQ(kt_snapshot_emit_merged(&snap, &live, kt_pipeline_emit, &p, &left), 0,
			  "merged");
		ASSERT_EQ(left, 0, "the whole snapshot stands");
		ASSERT_EQ(out.log.n, 12, "snapshot, then every live record");
		ASSERT_EQ(out.log.r[7].prog_id, 50, "the unload is 50's");
		ASSERT_EQ(kt_symtab_nsyms(p.tab), 3, "51's three symbols");
		ASSERT_TRUE(has_prog(p.tab, 51) && !has_prog(p.tab, 50), "51 is live, 50 is not");
		kt_recbuf_free(&snap);
		kt_recbuf_free(&live);
		kt_pipeline_fini(&p);
		unit_end();
	}

	if (unit_start("merge_born_after_the_attach_reported_live")) {
		struct kt_recbuf snap = {}, live = {};
		size_t left;

		race_setup(&p, &out);
		snap_prog(&snap, &l, 79);
		d = desc(true);
		live_prog(&live, &l, 79, d.tag, false, 42);
		ASSERT_EQ(kt_snapshot_emit_merged(&snap, &live, kt_pipeline_emit, &p, &left), 0,
			  "merged");
		ASSERT_EQ(left, 4, "the snapshot's copy left out");
		ASSERT_EQ(out.log.n, 4, "the live load passes, once");
		ASSERT_TRUE(!(out.log.r[0].rflags & KT_RF_SNAPSHOT), "with its task");
		ASSERT_EQ(p.dups, 0, "no duplicates");
		kt_recbuf_free(&snap);
		kt_recbuf_free(&live);
		kt_pipeline_fini(&p);
		unit_end();
	}

	return unit_exit();
}
