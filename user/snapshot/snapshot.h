/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What already exists when ksymtap starts, as records marked KT_RF_SNAPSHOT
 * (origin KT_ORIGIN_SNAPSHOT), the way perf synthesizes them at start-up
 * (tools/perf/util/bpf-event.c) but with the names /proc/kallsyms has: every
 * BPF program by id (its own image, subprograms func[1..n-1], then BPF_EVENT
 * PROG_LOAD), then the other BPF images, ftrace trampolines and kprobe pages.
 * docs/snapshot.md says where each field comes from and how exact it is.
 */
#ifndef KT_SNAPSHOT_H
#define KT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include "record/record.h"
#include "record/kallsyms.h"

/* What one program's bpf_prog_info (+ BTF) says, enough for its records. */
struct kt_prog_desc {
	__u32 id;
	__u8 tag[KT_TAG_SIZE]; /* the program's own tag (info.tag) */
	char name[16]; /* BPF_OBJ_NAME_LEN: aux->name */
	__u32 nfuncs; /* nr_jited_ksyms: 1, or func_cnt with subprograms */
	__u64 *addrs; /* jited_ksyms */
	__u32 *lens; /* jited_func_lens */
	__u8 (*tags)[KT_TAG_SIZE]; /* prog_tags: func[i]'s tag */
	char **func_names; /* BTF name of func_info[i], or NULL (no BTF) */
};

void kt_prog_desc_free(struct kt_prog_desc *d);

/*
 * The kallsyms name the kernel gives an image of a program
 * (kernel/bpf/core.c bpf_prog_ksym_set_name()): "bpf_prog_" + hex tag, then
 * "_" + the BTF function name, else "_" + aux->name if that is set;
 * truncated to size - 1 as the kernel truncates to KSYM_NAME_LEN - 1.
 * Returns the length.
 */
int kt_bpf_prog_ksym_name(char *buf, size_t size, const __u8 *tag, const char *func_name,
			  const char *aux_name);

/* One program's KSYMBOLs then its BPF_EVENT PROG_LOAD.  Names are the kallsyms
 * entries at each address when ks has one, else built as the kernel builds
 * them.  Returns the number of KSYMBOLs, or emit's error. */
int kt_snapshot_prog_records(const struct kt_prog_desc *d, const struct kt_dynsyms *ks,
			     kt_emit_fn emit, void *ctx);

/* Every program the kernel has (bpf_prog_get_next_id), in id order; programs
 * that die while being read are skipped.  -errno if the enumeration itself
 * fails (EPERM: not root). */
int kt_snapshot_read_progs(struct kt_prog_desc **out, size_t *n);

/* The same from the walker's program entries (bpf_kallsyms, no
 * CAP_SYS_ADMIN needed): every program kallsyms lists, in id order. */
struct kt_snap_image;
int kt_snapshot_progs_from_walk(const struct kt_snap_image *v, size_t n, struct kt_prog_desc **out,
				size_t *count);

/* A walker already loaded (with the BPF backend's hooks, user/backend/bpf_loader.c):
 * its program and its state map (struct kt_snap_state), -1 if none. */
struct kt_walker {
	int prog_fd;
	int map_fd;
	/* walk_images_legacy (< 5.16): the list heads come from kallsyms, and
	 * it resumes from its cursor rather than following skip entries. */
	bool legacy;
	/* Run none (and load none): names and images from /proc/kallsyms
	 * alone.  The resync's (user/run/resync.c): loading a walker is a program
	 * load of its own, and after start-up none is loaded. */
	bool none;
	/* What the enumeration cannot list goes to -v, not a warning (the
	 * resync's, which says it once its own way). */
	bool quiet;
	/* Not NULL: names and list heads from this kallsyms file instead of
	 * /proc/kallsyms (tests: KSYMTAP_KALLSYMS, docs/snapshot.md). */
	const char *kallsyms;
};

void kt_walker_close(struct kt_walker *wk);
/* Bytes to map of the state map. */
size_t kt_walker_state_size(void);

/* Images with their extents from the one-shot walker (bpf/snapshot.bpf.c):
 * wk if given (closed afterwards), else one loaded for this.  It follows the
 * list heads in ks, or with ks NULL the ones it looks up.  *flags gets its
 * KT_SNAP_* result bits.  -errno if it cannot run here. */
struct kt_snap_image;
int kt_snapshot_walk(struct kt_walker *wk, const struct kt_dynsyms *ks, struct kt_snap_image **out,
		     size_t *n, int *flags);

/* The length of an image kallsyms lists at addr, where nothing better is
 * known: an upper bound (docs/snapshot.md). */
__u64 kt_snapshot_estimate_len(const struct kt_dynsyms *ks, unsigned int source, __u64 addr,
			       __u64 page);

struct kt_snapshot_stats {
	unsigned int progs, prog_ksyms, images, ftrace, kprobes;
	bool walked_bpf, walked_ftrace; /* lengths from the walker, not estimates */
	/* Sources listed whole, as 1 << source (of their KSYMBOLs), and
	 * whether every program's PROG_LOAD was (by id): what the resync may
	 * take an absence from as a death. */
	unsigned int listed;
	bool prog_ids;
};

/*
 * Enumerate and emit.  If the enumeration fails, why[] says in one line what
 * failed and nothing is printed; an error of emit is returned as it is, with
 * why[] empty.  A missing /proc/kallsyms or walker only costs names and
 * lengths (a warning or a -v line says so).  wk: as for kt_snapshot_walk(),
 * always closed.
 */
int kt_snapshot(struct kt_walker *wk, kt_emit_fn emit, void *ctx, struct kt_snapshot_stats *st,
		char *why, size_t why_size);

#endif
