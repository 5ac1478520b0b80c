/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Loading and attaching bpf/ksymtap.bpf.c (and loading the snapshot's walker,
 * bpf/snapshot.bpf.c, linked into the same object), in a short-lived child
 * process.
 * libbpf parses the kernel's BTF for CO-RE (two copies of several MB while it
 * does, Debian's libbpf 1.1); doing that in a child keeps the long-running
 * process small (BENCHMARKS.md, peak RSS).  The child hands back the map and
 * link fds over a Unix socket (SCM_RIGHTS) and exits; the links stay attached
 * as long as the parent holds their fds.
 */
#ifndef KT_BPF_LOADER_H
#define KT_BPF_LOADER_H

#include <stdbool.h>
#include "backend/backend.h"
#include "ksymtap.h"

/* The fds the loading leaves behind, one array (sent, received and closed
 * by walking it).  -1: none. */
enum kt_bpf_fd {
	KT_FD_EVENTS,
	KT_FD_DROPPED,
	KT_FD_OWNERS,
	KT_FD_BACKUP_STATS, /* the twins' counters (bpf/ksymtap.bpf.c) */
	KT_FD_CODE_HAVE, /* bpf/code_copy.bpf.h's maps */
	KT_FD_CODE_STATS,
	KT_FD_WALKER, /* the snapshot's walker, and its map */
	KT_FD_WALKER_MAP,
	KT_FD_LINK, /* + hook: -1 when the hook is off (hook_why[]) */
	KT_FD_PROG = KT_FD_LINK + KT_HOOK_MAX, /* + hook: its program (recursion_misses) */
	/* + hook: its twins' links (bpf/ksymtap.bpf.c), -1 without */
	KT_FD_LINK_B = KT_FD_PROG + KT_HOOK_MAX,
	KT_FD_LINK_C = KT_FD_LINK_B + KT_HOOK_MAX,
	KT_FD_MAX = KT_FD_LINK_C + KT_HOOK_MAX,
};

struct kt_bpf_loaded {
	int err; /* 0, or -errno with why[] */
	char why[256];
	int fd[KT_FD_MAX];
	bool walker_legacy; /* the raw tracepoint twin: heads from kallsyms */
	char hook_why[KT_HOOK_MAX][96];
	bool hook_absent[KT_HOOK_MAX]; /* off because the kernel lacks its function */
	struct kt_range ftrace_caller, kprobe_caller;
	unsigned int page_size;
};

/* Load and attach; on failure out->err and out->why say why (nothing printed
 * but -v diagnostics). */
void kt_bpf_load(const struct kt_backend_opts *o, struct kt_bpf_loaded *out);
void kt_bpf_loaded_close(struct kt_bpf_loaded *l);

#endif
