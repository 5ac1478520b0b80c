// SPDX-License-Identifier: GPL-2.0
/*
 * The snapshot's kernel side: one run of a BPF_PROG_TYPE_SYSCALL program that
 * walks the lists /proc/kallsyms itself is made from, to learn what kallsyms
 * does not say: where each image ends.
 *
 * - bpf_kallsyms (kernel/bpf/core.c): every struct bpf_ksym, in the order
 *   bpf_get_kallsym() lists them.  For programs (ksym->prog) the loader wants
 *   only the name kallsyms shows (lengths and ids come from bpf_prog_info):
 *   reading it here spares reading the [bpf] part of /proc/kallsyms, which
 *   costs the kernel O(programs^2) (bpf_get_kallsym() walks this list from its
 *   head for every line).  The rest are trampolines, dispatchers and struct_ops
 *   images, and [start, end) is their real extent; on 6.12 trampolines are
 *   packed and end - start is far below the page the kernel's own KSYMBOL
 *   reports (docs/kernel-facts.md).
 * - ftrace_ops_trampoline_list (kernel/trace/ftrace.c, 5.9+): every ftrace_ops
 *   with an allocated trampoline, as ftrace_get_trampoline_kallsym() lists
 *   them; trampoline_size is what ftrace_update_trampoline() reports to perf.
 * - kprobe_insn_slots, kprobe_optinsn_slots (kernel/kprobes.c): their pages,
 *   as kprobe_cache_get_kallsym() lists them, under the cache's name.
 *
 * The list heads are static data, so their addresses come from kallsyms
 * (CONFIG_KALLSYMS_ALL=y, both Debian kernels), by bpf_kallsyms_lookup_name()
 * (5.16+, SYSCALL programs only), which since 60443c88f3a8 (6.2) is a binary
 * search over the sorted names: no pass over /proc/kallsyms at all.  Not
 * __ksym externs: libbpf would read all of /proc/kallsyms to resolve them.
 * Tests that point ksymtap at a kallsyms file of their own have the loader
 * fill heads[] in from it instead.
 *
 * The walk reads with bpf_probe_read_kernel() and without the lists' locks or
 * RCU (bpf_rcu_read_lock() is 6.2+, and sleepable programs cannot hold RCU on
 * 6.1): an entry removed mid-walk may end the walk early, which the loader sees
 * as KT_SNAP_*_UNFINISHED and answers from /proc/kallsyms instead.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "kt_snapshot.h"

char LICENSE[] SEC("license") = "GPL";

/* Not in the BTF of kernels built without CONFIG_KPROBES (the dev host's). */
struct kprobe_insn_cache___kt {
	const char *sym;
	struct list_head pages;
} __attribute__((preserve_access_index));

struct kprobe_insn_page___kt {
	struct list_head list;
	void *insns;
} __attribute__((preserve_access_index));

/* More than any list holds; bpf_loop() allows 1 << 23. */
#define MAX_STEPS (1 << 20)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct kt_snap_state);
} walker SEC(".maps");

static __always_inline struct kt_snap_state *state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&walker, &zero);
}

struct walk {
	__u64 head;
	__u64 node;
	const char *sym; /* kprobe pages: their cache's name */
	__u32 kind;
	__u32 seen;
	__u32 skip;
	bool done; /* back at the head */
	bool full; /* images[] is full: stop everything */
};

/* One image into images[]: 1 stored, 0 images[] is full (more is set).
 * For a program's image (aux set), the program's identity too. */
static __always_inline int put_image(__u32 kind, __u64 start, __u64 end, const char *name,
				     struct bpf_prog_aux *aux)
{
	struct bpf_prog *prog;
	struct kt_snap_state *st = state();
	struct kt_snap_image *img;
	__u32 idx;
	long n;

	if (!st)
		return 0;
	idx = st->nimages;
	if (idx >= KT_SNAP_MAX_IMAGES) {
		st->more = 1;
		return 0;
	}
	img = &st->images[idx];
	img->start = start;
	img->end = end;
	img->kind = kind;
	img->flags = 0;
	img->name[0] = 0;
	img->group = 0;
	img->prog_id = 0;
	img->func_idx = 0;
	__builtin_memset(img->tag, 0, sizeof(img->tag));
	img->prog_name[0] = 0;
	if (aux) {
		prog = BPF_CORE_READ(aux, prog);
		img->prog_id = BPF_CORE_READ(aux, id);
		img->group = (__u64)BPF_CORE_READ(aux, func);
		img->func_idx = BPF_CORE_READ(aux, func_idx);
		if (prog) {
			bpf_probe_read_kernel(img->tag, sizeof(img->tag), &prog->tag);
			if (BPF_CORE_READ_BITFIELD_PROBED(prog, is_func))
				img->flags |= KT_SNAP_F_FUNC;
		}
		bpf_probe_read_kernel(img->prog_name, sizeof(img->prog_name), &aux->name);
	}
	if (name) {
		n = bpf_probe_read_kernel_str(img->name, sizeof(img->name), name);
		if (n < 0)
			img->name[0] = 0;
		else if (n == sizeof(img->name))
			img->flags |= KT_SNAP_F_TRUNCATED;
	}
	st->nimages = idx + 1;
	return 1;
}

/* The entry at a list node of the given kind: 1 stored (or nothing to
 * store), 0 images[] is full. */
static __always_inline int visit(__u32 kind, __u64 node, const char *sym)
{
	struct kprobe_insn_page___kt *kip;
	struct bpf_ksym *k;
	struct ftrace_ops *op;
	unsigned long tramp;

	if (kind == KT_SNAP_BPF_IMAGE) {
		k = (void *)(node - bpf_core_field_offset(struct bpf_ksym, lnode));
		if (BPF_CORE_READ(k, prog))
			return put_image(KT_SNAP_BPF_PROG, BPF_CORE_READ(k, start),
					 BPF_CORE_READ(k, end), k->name,
					 (void *)((__u64)k - bpf_core_field_offset(struct bpf_prog_aux,
										  ksym)));
		return put_image(KT_SNAP_BPF_IMAGE, BPF_CORE_READ(k, start), BPF_CORE_READ(k, end),
				 k->name, NULL);
	}
	if (kind == KT_SNAP_FTRACE) {
		op = (void *)(node - bpf_core_field_offset(struct ftrace_ops, list));
		tramp = BPF_CORE_READ(op, trampoline);
		/* ftrace_get_trampoline_kallsym() skips these too. */
		if (!tramp)
			return 1;
		return put_image(KT_SNAP_FTRACE, tramp, tramp + BPF_CORE_READ(op, trampoline_size),
				 NULL, NULL);
	}
	if (bpf_core_type_exists(struct kprobe_insn_page___kt)) {
		kip = (void *)(node - bpf_core_field_offset(struct kprobe_insn_page___kt, list));
		tramp = (unsigned long)BPF_CORE_READ(kip, insns);
		return put_image(KT_SNAP_KPROBE, tramp, tramp + 4096, sym, NULL);
	}
	return 1;
}

static long walk_one(__u32 i, void *data)
{
	struct walk *w = data;
	struct list_head *node = (void *)w->node;

	if (!w->node || w->node == w->head) {
		w->done = true;
		return 1;
	}
	/* Entries earlier runs returned: only follow the list. */
	if (w->seen >= w->skip && !visit(w->kind, w->node, w->sym)) {
		w->full = true;
		return 1;
	}
	w->seen++;
	w->node = (__u64)BPF_CORE_READ(node, next);
	return 0;
}

static __always_inline int walk_list(struct walk *w, const void *head, __u32 kind, int unfinished)
{
	struct list_head *h = (void *)head;

	w->head = (__u64)head;
	w->node = (__u64)BPF_CORE_READ(h, next);
	w->kind = kind;
	w->done = false;
	bpf_loop(MAX_STEPS, walk_one, w, 0);
	return w->done || w->full ? 0 : unfinished;
}

static const char sym_bpf_kallsyms[] = "bpf_kallsyms";
static const char sym_ftrace_list[] = "ftrace_ops_trampoline_list";
static const char sym_insn_slots[] = "kprobe_insn_slots";
static const char sym_optinsn_slots[] = "kprobe_optinsn_slots";

/* The address of a static symbol, 0 if kallsyms lacks it. */
static __always_inline __u64 lookup(const char *name, int size)
{
	__u64 addr = 0;

	if (bpf_kallsyms_lookup_name(name, size, 0, &addr))
		return 0;
	return addr;
}

/* On the first run only (before 6.2 each lookup scans all symbols), unless
 * the loader filled heads[] in itself. */
static __always_inline void resolve(struct kt_snap_state *st)
{
	if (st->heads_resolved)
		return;
	st->heads_resolved = 1;
	st->heads[0] = lookup(sym_bpf_kallsyms, sizeof(sym_bpf_kallsyms));
	st->heads[1] = lookup(sym_ftrace_list, sizeof(sym_ftrace_list));
	st->heads[2] = lookup(sym_insn_slots, sizeof(sym_insn_slots));
	st->heads[3] = lookup(sym_optinsn_slots, sizeof(sym_optinsn_slots));
}

SEC("syscall")
int walk_images(void *ctx)
{
	struct kprobe_insn_cache___kt *c;
	struct kt_snap_state *st = state();
	struct walk w = {};
	int ret = KT_SNAP_OK, i;
	__u64 heads[4];

	if (!st)
		return KT_SNAP_NO_BPF_LIST | KT_SNAP_NO_FTRACE_LIST | KT_SNAP_NO_KPROBE_LIST;
	st->nimages = 0;
	st->more = 0;
	w.skip = st->skip;
	resolve(st);
	for (i = 0; i < 4; i++)
		heads[i] = st->heads[i];
	if (heads[0])
		ret |= walk_list(&w, (const void *)heads[0], KT_SNAP_BPF_IMAGE,
				 KT_SNAP_BPF_UNFINISHED);
	else
		ret |= KT_SNAP_NO_BPF_LIST;
	if (w.full)
		return ret;
	if (heads[1])
		ret |= walk_list(&w, (const void *)heads[1], KT_SNAP_FTRACE,
				 KT_SNAP_FTRACE_UNFINISHED);
	else
		ret |= KT_SNAP_NO_FTRACE_LIST;
	if (w.full)
		return ret;
	/* Known at load time: a kernel without kprobes never reaches the
	 * relocations below (the verifier drops them as dead code). */
	if (!bpf_core_type_exists(struct kprobe_insn_cache___kt) || !heads[2])
		return ret | KT_SNAP_NO_KPROBE_LIST;
	for (i = 0; i < 2; i++) {
		c = (void *)heads[2 + i];
		if (!c)
			continue;
		w.sym = BPF_CORE_READ(c, sym);
		ret |= walk_list(&w, &c->pages, KT_SNAP_KPROBE, KT_SNAP_KPROBE_UNFINISHED);
		if (w.full)
			return ret;
	}
	return ret;
}

/*
 * The same walk for kernels before 5.16: BPF_PROG_TYPE_SYSCALL is 5.14+
 * (commit 79a7f8bdb159), bpf_kallsyms_lookup_name() 5.16+ (commit
 * d6aef08a872b) and bpf_loop() 5.17+.  A raw tracepoint program instead,
 * which BPF_PROG_TEST_RUN runs since 5.10 (commit 1b4d60ec162f); the list
 * heads from the loader (from /proc/kallsyms); and instead of bpf_loop() a
 * bounded loop of LEGACY_STEPS calls of a global function (checked once by
 * the verifier, 5.6+), which resumes where the last run stopped
 * (kt_snap_state.cur_*): a run that follows earlier runs' entries again,
 * as walk_images does, would never get past LEGACY_STEPS of them.
 */
#define LEGACY_STEPS 1024

/* One step: 0 go on, 1 stop this run (all lists done, or images[] full). */
__noinline int kt_walk_step_legacy(void)
{
	struct kprobe_insn_cache___kt *c;
	struct kt_snap_state *st = state();
	const char *sym = NULL;
	struct list_head *n;
	__u64 head, node;
	__u32 list, kind;

	if (!st)
		return 1;
	list = st->cur_list;
	if (list >= 4)
		return 1;
	head = st->heads[list & 3];
	if (list >= 2) {
		/* No kprobes (no such type in this kernel's BTF), or no cache. */
		if (!bpf_core_type_exists(struct kprobe_insn_cache___kt) || !head) {
			st->cur_list = list + 1;
			st->cur_node = 0;
			return 0;
		}
		c = (void *)head;
		sym = BPF_CORE_READ(c, sym);
		head = (__u64)&c->pages;
	}
	node = st->cur_node;
	if (!node && head) {
		n = (void *)head;
		node = (__u64)BPF_CORE_READ(n, next);
	}
	if (!head || !node || node == head) {
		st->cur_list = list + 1;
		st->cur_node = 0;
		return 0;
	}
	kind = list == 0 ? KT_SNAP_BPF_IMAGE : list == 1 ? KT_SNAP_FTRACE : KT_SNAP_KPROBE;
	if (!visit(kind, node, sym))
		return 1;
	n = (void *)node;
	st->cur_node = (__u64)BPF_CORE_READ(n, next);
	return 0;
}

SEC("raw_tp")
int walk_images_legacy(void *ctx)
{
	struct kt_snap_state *st = state();
	int ret = KT_SNAP_OK, i;

	if (!st)
		return KT_SNAP_NO_BPF_LIST | KT_SNAP_NO_FTRACE_LIST | KT_SNAP_NO_KPROBE_LIST;
	st->nimages = 0;
	st->more = 0;
	if (!st->heads[0])
		ret |= KT_SNAP_NO_BPF_LIST;
	if (!st->heads[1])
		ret |= KT_SNAP_NO_FTRACE_LIST;
	if (!bpf_core_type_exists(struct kprobe_insn_cache___kt) || !st->heads[2])
		ret |= KT_SNAP_NO_KPROBE_LIST;
	for (i = 0; i < LEGACY_STEPS; i++)
		if (kt_walk_step_legacy())
			break;
	/* Out of steps, or images[] full (put_image() set more): again. */
	if (st->cur_list < 4)
		st->more = 1;
	return ret;
}
