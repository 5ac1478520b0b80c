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
 * (CONFIG_KALLSYMS_ALL=y, both Debian kernels): by default from
 * bpf_kallsyms_lookup_name() (5.16+, SYSCALL programs only), which since
 * 60443c88f3a8 (6.2) is a binary search over the sorted names, so the walker
 * needs no pass over /proc/kallsyms at all; or from the loader (resolve_heads
 * off: tests that point ksymtap at a kallsyms file of their own).  Not __ksym
 * externs: libbpf would read all of /proc/kallsyms to resolve them.
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

/* Addresses of the kernel's static list heads, 0 if absent; with
 * resolve_heads, looked up here instead. */
const volatile bool resolve_heads = true;
const volatile __u64 bpf_kallsyms_addr = 0;
const volatile __u64 ftrace_list_addr = 0;
const volatile __u64 kprobe_caches[2] = {}; /* kprobe_insn_slots, kprobe_optinsn_slots */

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

struct kt_snap_image images[KT_SNAP_MAX_IMAGES];
__u32 nimages; /* out: entries filled in images[] */
__u32 more; /* out: images[] filled up before the end */
__u32 skip; /* in: images earlier runs already returned */

struct walk {
	__u64 head;
	__u64 node;
	const char *sym; /* kprobe pages: their cache's name */
	__u32 kind;
	__u32 seen;
	bool done; /* back at the head */
	bool full; /* images[] is full: stop everything */
};

static __always_inline bool store(struct walk *w, __u32 kind, __u64 start, __u64 end,
				  const char *name)
{
	struct kt_snap_image *img;
	__u32 idx;
	long n;

	idx = nimages;
	if (idx >= KT_SNAP_MAX_IMAGES) {
		more = 1;
		w->full = true;
		return false;
	}
	w->seen++;
	img = &images[idx];
	img->start = start;
	img->end = end;
	img->kind = kind;
	img->flags = 0;
	img->name[0] = 0;
	if (name) {
		n = bpf_probe_read_kernel_str(img->name, sizeof(img->name), name);
		if (n < 0)
			img->name[0] = 0;
		else if (n == sizeof(img->name))
			img->flags |= KT_SNAP_F_TRUNCATED;
	}
	nimages = idx + 1;
	return true;
}

static long walk_one(__u32 i, void *data)
{
	struct walk *w = data;
	struct list_head *node = (void *)w->node;
	struct kprobe_insn_page___kt *kip;
	struct bpf_ksym *k;
	struct ftrace_ops *op;
	unsigned long tramp;
	bool stored = true;

	if (!w->node || w->node == w->head) {
		w->done = true;
		return 1;
	}
	/* Entries earlier runs returned: only follow the list. */
	if (w->seen < skip) {
		w->seen++;
		w->node = (__u64)BPF_CORE_READ(node, next);
		return 0;
	}
	if (w->kind == KT_SNAP_BPF_IMAGE) {
		k = (void *)(w->node - bpf_core_field_offset(struct bpf_ksym, lnode));
		stored = store(w, BPF_CORE_READ(k, prog) ? KT_SNAP_BPF_PROG : KT_SNAP_BPF_IMAGE,
			       BPF_CORE_READ(k, start), BPF_CORE_READ(k, end), k->name);
	} else if (w->kind == KT_SNAP_FTRACE) {
		op = (void *)(w->node - bpf_core_field_offset(struct ftrace_ops, list));
		tramp = BPF_CORE_READ(op, trampoline);
		/* ftrace_get_trampoline_kallsym() skips these too. */
		if (tramp)
			stored = store(w, KT_SNAP_FTRACE, tramp,
				       tramp + BPF_CORE_READ(op, trampoline_size), NULL);
		else
			w->seen++;
	} else {
		kip = (void *)(w->node - bpf_core_field_offset(struct kprobe_insn_page___kt, list));
		tramp = (unsigned long)BPF_CORE_READ(kip, insns);
		stored = store(w, KT_SNAP_KPROBE, tramp, tramp + 4096, w->sym);
	}
	if (!stored)
		return 1;
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

/* Resolved on the first run (a linear scan of all symbols before 6.2). */
__u64 heads[4]; /* bpf_kallsyms, ftrace list, the two kprobe caches */
bool heads_resolved;

/* The address of a static symbol, 0 if kallsyms lacks it. */
static __always_inline __u64 lookup(const char *name, int size)
{
	__u64 addr = 0;

	if (bpf_kallsyms_lookup_name(name, size, 0, &addr))
		return 0;
	return addr;
}

static __always_inline void resolve(void)
{
	if (heads_resolved)
		return;
	heads_resolved = true;
	if (!resolve_heads) {
		heads[0] = bpf_kallsyms_addr;
		heads[1] = ftrace_list_addr;
		heads[2] = kprobe_caches[0];
		heads[3] = kprobe_caches[1];
		return;
	}
	heads[0] = lookup(sym_bpf_kallsyms, sizeof(sym_bpf_kallsyms));
	heads[1] = lookup(sym_ftrace_list, sizeof(sym_ftrace_list));
	heads[2] = lookup(sym_insn_slots, sizeof(sym_insn_slots));
	heads[3] = lookup(sym_optinsn_slots, sizeof(sym_optinsn_slots));
}

SEC("syscall")
int walk_images(void *ctx)
{
	struct kprobe_insn_cache___kt *c;
	struct walk w = {};
	int ret = KT_SNAP_OK, i;

	nimages = 0;
	more = 0;
	resolve();
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
	if (!heads[2])
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
