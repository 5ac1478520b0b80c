/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Layout shared by bpf/snapshot.bpf.c and user/snapshot/snapshot_walk.c: the BPF ksyms
 * (programs, trampolines, dispatchers, struct_ops), ftrace trampolines and
 * kprobe pages the one-shot walker finds in the kernel's own lists.  Same conventions as
 * ksymtap.h: no includes, fixed-width types only.
 */
#ifndef KT_SNAPSHOT_LAYOUT_H
#define KT_SNAPSHOT_LAYOUT_H

/* Images per run of the walker; the loader runs it again from where it
 * stopped (kt_snap_skip) while kt_snap_more says there are more. */
#define KT_SNAP_MAX_IMAGES 256
/* bpf_ksym.name is KSYM_NAME_LEN (512); image names are far shorter
 * (bpf_trampoline_<u64 key>, bpf_dispatcher_xdp, bpf__<struct_ops>_<member>).
 * A name that fills the buffer is marked truncated and taken from kallsyms. */
#define KT_SNAP_NAME_LEN 128

/* kt_snap_image.kind */
#define KT_SNAP_BPF_IMAGE 1 /* struct bpf_ksym on bpf_kallsyms, !prog */
#define KT_SNAP_FTRACE 2 /* struct ftrace_ops on ftrace_ops_trampoline_list */
#define KT_SNAP_BPF_PROG 3 /* struct bpf_ksym on bpf_kallsyms, prog: its name */
#define KT_SNAP_KPROBE 4 /* struct kprobe_insn_page on a kprobe_insn_cache */

/* kt_snap_image.flags */
#define KT_SNAP_F_TRUNCATED 0x1
#define KT_SNAP_F_FUNC 0x2 /* KT_SNAP_BPF_PROG: a subprogram's image (is_func) */

/* Return values of the walker program (its retval) */
#define KT_SNAP_OK 0
#define KT_SNAP_NO_BPF_LIST 0x1 /* bpf_kallsyms did not resolve */
#define KT_SNAP_NO_FTRACE_LIST 0x2 /* ftrace_ops_trampoline_list did not resolve */
#define KT_SNAP_BPF_UNFINISHED 0x4 /* bpf_kallsyms did not lead back to its head */
#define KT_SNAP_FTRACE_UNFINISHED 0x8
#define KT_SNAP_NO_KPROBE_LIST 0x10 /* kprobe_insn_slots did not resolve */
#define KT_SNAP_KPROBE_UNFINISHED 0x20

struct kt_snap_image {
	__u64 start;
	__u64 end;
	__u32 kind;
	__u32 flags;
	/* KT_SNAP_BPF_PROG: the program behind the image, from its
	 * bpf_prog_aux, so that the snapshot can list programs without
	 * bpf_prog_get_next_id() (CAP_SYS_ADMIN): its id (0 for subprograms),
	 * its function array (shared by a program and its subprograms; 0
	 * without subprograms), the function's index, tag and aux->name. */
	__u64 group;
	__u32 prog_id;
	__u32 func_idx;
	__u8 tag[8];
	char prog_name[16];
	char name[KT_SNAP_NAME_LEN];
};

/* The walker's one-entry array map (BPF_F_MMAPABLE): the loader writes skip
 * and reads the rest through its mapping between runs. */
struct kt_snap_state {
	__u32 skip; /* in: images earlier runs already returned */
	__u32 nimages; /* out: entries filled in images[] */
	__u32 more; /* out: images[] filled up before the end */
	__u32 heads_resolved; /* heads[] looked up (the first run) */
	__u64 heads[4]; /* bpf_kallsyms, ftrace list, kprobe_insn/optinsn_slots */
	/* The legacy walker's place between runs (it resumes there instead of
	 * following the lists past skip entries): the list (0..3, 4: done) and
	 * the next node in it (0: its head's first).  The loader zeroes both
	 * before the first run. */
	__u32 cur_list;
	__u32 cur_pad;
	__u64 cur_node;
	struct kt_snap_image images[KT_SNAP_MAX_IMAGES];
};

#endif
