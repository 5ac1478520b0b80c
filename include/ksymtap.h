/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Event layout shared by bpf/ksymtap.bpf.c and the loader.  No includes and only
 * fixed-width types, so it works after vmlinux.h on the BPF side and after
 * <linux/types.h> on the user side (the libbpf-bootstrap convention).
 */
#ifndef KSYMTAP_H
#define KSYMTAP_H

/* KSYM_NAME_LEN is 512 since 6.1 (commit b8a94bfb3395 "kallsyms: increase maximum
 * kernel symbol length to 512"); struct bpf_ksym.name has that size. */
#define KT_NAME_MAX 512
#define KT_COMM_LEN 16
#define KT_TAG_SIZE 8
/* BPF_MAX_SUBPROGS in include/linux/bpf_verifier.h. */
#define KT_MAX_SUBPROGS 256

/* uapi perf_event.h values, repeated because this header has no includes. */
#define KT_RECORD_LOST 2
#define KT_RECORD_KSYMBOL 17
#define KT_RECORD_BPF_EVENT 18

#define KT_KSYM_TYPE_UNKNOWN 0
#define KT_KSYM_TYPE_BPF 1
#define KT_KSYM_TYPE_OOL 2
#define KT_KSYM_FLAG_UNREGISTER 1

#define KT_BPF_EVENT_PROG_LOAD 1
#define KT_BPF_EVENT_PROG_UNLOAD 2

/* Where a symbol comes from; one bit each in the "sources live" mask. */
enum kt_source {
	KT_SRC_UNKNOWN = 0,
	KT_SRC_BPF_PROG = 1, /* JITed programs and subprograms, BPF_EVENTs */
	KT_SRC_BPF_IMAGE = 2, /* trampolines, dispatchers, struct_ops */
	KT_SRC_FTRACE = 3, /* ftrace trampolines */
	KT_SRC_KPROBE = 4, /* kprobe (opt)insn pages */
	KT_SRC_MAX,
};

/* Which BPF program produced an event (the hook); indexes ksymtap_bpf's hook
 * table in user/backend/hooks.c. */
enum kt_hook {
	KT_HOOK_PROG_ADD = 0,
	KT_HOOK_PROG_DEL,
	KT_HOOK_KSYM_ADD,
	KT_HOOK_KSYM_DEL,
	KT_HOOK_MODULE_ALLOC,
	KT_HOOK_MODULE_MEMFREE,
	KT_HOOK_EXECMEM_ALLOC,
	KT_HOOK_EXECMEM_FREE,
	KT_HOOK_INSN_SLOT,
	KT_HOOK_MAX,
};

/* kt_event.ev_flags */
#define KT_EVF_LOADER_IDENTITY 0x1 /* pid/comm/cgroup are the loader's, kept from load */
/* This KSYMBOL event also carries its program's BPF_EVENT (bpf_type, prog_id,
 * tag, prog_name): the loader emits that record right after the KSYMBOL.  One
 * ring record per load or unload of a single-function program, not two. */
#define KT_EVF_BPF_EVENT 0x2
#define KT_PROG_NAME_LEN 16 /* BPF_OBJ_NAME_LEN */

/*
 * One event pushed into the ring buffer.  Variable length: only
 * offsetof(name) + name_len + 1 bytes (rounded up to 8) are sent.
 */
struct kt_event {
	__u64 time; /* bpf_ktime_get_ns() */
	__u64 cgroup_id;
	__u64 addr; /* KSYMBOL */
	__u32 len;
	__u16 ksym_type;
	__u16 flags;
	__u32 prog_id; /* BPF_EVENT */
	__u16 bpf_type;
	__u16 bpf_flags;
	__u8 tag[KT_TAG_SIZE];
	__u32 pid; /* tgid */
	__u32 tid;
	__u32 cpu;
	__u16 record_type; /* KT_RECORD_KSYMBOL or KT_RECORD_BPF_EVENT */
	__u8 source; /* enum kt_source */
	__u8 hook; /* enum kt_hook */
	__u16 ev_flags; /* KT_EVF_* */
	__u16 name_len; /* strlen(name) */
	char comm[KT_COMM_LEN];
	char prog_name[KT_PROG_NAME_LEN]; /* with KT_EVF_BPF_EVENT */
	char name[KT_NAME_MAX];
};

/* __builtin_offsetof: the null-pointer form is undefined behaviour (UBSan). */
#define KT_EVENT_HDR_SIZE ((unsigned long)__builtin_offsetof(struct kt_event, name))

/*
 * Who made a symbol (bpf/ksymtap.bpf.c's owners map, keyed by the kernel
 * object).  Here so that the loader can seed it with the ftrace trampolines
 * and kprobe pages its start-up snapshot found: their frees are recognized only
 * by address, so without an entry the death of one born before the hooks
 * would go unreported.  Seeded entries have pid 0 (no task known).
 */
struct kt_owner {
	__u64 cgroup_id;
	__u32 pid;
	__u32 tid;
	__u32 prog_id;
	__u32 len;
	__u8 source;
	__u8 pad[3];
	char comm[KT_COMM_LEN];
	char name[24]; /* OOL names: ftrace_trampoline, kprobe_(opt)insn_page */
};

/* Caller ranges the loader resolves from /proc/kallsyms for 6.1's module_alloc(),
 * which serves ftrace trampolines, kprobe pages and everything else alike. */
struct kt_range {
	__u64 start;
	__u64 end;
};

/*
 * The code of a program user space did not read while it lived (issue 32),
 * copied by the unload hook from the kernel's own structures while
 * bpf_prog_kallsyms_del_all() still holds them: a META record, then each
 * part in chunks, then END; all in the events ring, before the program's
 * unregister KSYMBOLs.  Not a perf record type: the loader's own, and never
 * written out as such (user/backend/code_capture.c assembles the parts).
 */
#define KT_RECORD_CODE 0x4b43

enum kt_code_part {
	KT_CODE_META = 0, /* data: struct kt_code_meta */
	KT_CODE_IMAGE, /* function index's JITed bytes; faddr its address */
	KT_CODE_TAG, /* function index's tag (8 bytes) */
	KT_CODE_LINFO, /* aux->linfo: struct bpf_line_info[nr_linfo] */
	KT_CODE_JLINFO, /* aux->jited_linfo: u64[nr_linfo] */
	KT_CODE_FINFO, /* aux->func_info: struct bpf_func_info[nr_finfo] */
	KT_CODE_BTF, /* the program's BTF object as loaded (btf->data) */
	KT_CODE_END, /* data: none; index: parts that did not fit */
	KT_CODE_PARTS,
};

/* A chunk's room in the ring, the smallest of these that holds it (a
 * reservation's size is a constant to the verifier): with its header, 256
 * bytes, 1 KiB, 2 KiB or a page. */
#define KT_CODE_SMALL 192
#define KT_CODE_MID 960
#define KT_CODE_LARGE 1984
#define KT_CODE_CHUNK 4032
/* Chunks per part at most (252 KiB): a larger part makes the copy incomplete. */
#define KT_CODE_CHUNKS 64

/* record_type at the offset it has in struct kt_event (the reader tells the
 * two apart by it). */
struct kt_code_rec {
	__u64 key; /* the program's bpf_func: jited_ksyms[0] */
	__u64 load_time; /* aux->load_time: bpf_prog_info.load_time */
	__u64 faddr; /* KT_CODE_IMAGE: the function's address */
	__u32 part; /* enum kt_code_part */
	__u32 index; /* the function (IMAGE, TAG); END: parts lost */
	__u32 off; /* of this chunk in its part */
	__u32 len; /* bytes in data */
	__u32 total; /* the whole part's size */
	__u32 pad0;
	__u32 pad1[3];
	__u16 record_type; /* KT_RECORD_CODE */
	__u16 pad2;
	__u8 data[];
};

struct kt_code_meta {
	__u32 prog_type;
	__u32 nfuncs; /* func_cnt, or 1 */
	__u32 nr_linfo;
	__u32 nr_finfo;
	__u32 btf_id; /* 0: none */
	__u32 btf_size;
	__u8 tag[KT_TAG_SIZE];
	char name[KT_PROG_NAME_LEN];
};

/* code_stats' slots (per CPU). */
enum kt_code_stat {
	KT_CODE_ST_HELD = 0, /* user space had it: nothing copied */
	KT_CODE_ST_COPIED, /* copied whole */
	KT_CODE_ST_ROOM, /* not copied: the ring was more than an eighth full */
	KT_CODE_ST_PARTIAL, /* copied, but a part did not fit */
	KT_CODE_ST_MAX,
};

#endif /* KSYMTAP_H */
