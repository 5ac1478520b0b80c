/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Attribution: from a record's cgroup id to the cgroup's path and what the
 * path says (container runtime and id, Kubernetes pod UID).
 *
 * The cgroup v2 id the BPF side records (bpf_get_current_cgroup_id()) is the
 * kernfs node id, which is also the inode number of the cgroup's directory
 * (64-bit kernels, since 5.5).  Resolution, per id not seen before:
 *  1. on the record's path, bounded: read /proc/<tid>/cgroup, stat that
 *     directory under the cgroup root, accept it only if its inode is the id
 *     (a moved task or a recycled pid cannot give a wrong answer);
 *  2. otherwise off the record's path: the id is marked pending and a walk of
 *     the cgroup tree, a bounded number of directories per tick, looks for it;
 *     later records of that id get the answer.
 * Ids are never reused, so an answer is cached for good (bounded table); an
 * id neither finds stays unknown and is reported as unknown.
 */
#ifndef KT_ATTRIB_H
#define KT_ATTRIB_H

#include <linux/types.h>
#include "record/cgpath.h"

struct kt_attrib {
	__u64 cgroup_id;
	const char *path; /* relative to the cgroup root, "/..."; NULL: unknown */
	struct kt_cgpath_info c;
};

struct kt_attrib_stats {
	unsigned long long cached; /* ids in the table */
	unsigned long long resolved_proc; /* answered on the record's path */
	unsigned long long resolved_walk; /* answered by a tree walk */
	unsigned long long unresolved; /* records that went out unknown */
	unsigned long long walks; /* tree walks finished */
};

struct kt_attrib_cache;
struct kt_record;

/* root: the host's cgroup2 mount (NULL: /sys/fs/cgroup).  Never fails for
 * lack of cgroups: without a usable root every answer is unknown. */
struct kt_attrib_cache *kt_attrib_new(const char *root);
void kt_attrib_free(struct kt_attrib_cache *c);
/* Point r->attrib at what is known of r->cgroup_id (NULL for id 0 or for
 * LOST records).  Valid until the next call or tick. */
void kt_attrib_fill(struct kt_attrib_cache *c, struct kt_record *r);
/* Between batches: a slice of the pending walk. */
void kt_attrib_tick(struct kt_attrib_cache *c);
/* When the next slice is due though no record comes (CLOCK_MONOTONIC ns);
 * 0 if no walk is under way. */
__u64 kt_attrib_wake_ns(const struct kt_attrib_cache *c);
void kt_attrib_get_stats(const struct kt_attrib_cache *c, struct kt_attrib_stats *s);
/* The root in use, or NULL if attribution is off (no cgroup2 there). */
const char *kt_attrib_root(const struct kt_attrib_cache *c);

#endif
