/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The code archive (issue 32): what each BPF program was, kept after it is
 * gone.  A program is captured from bpf_prog_info by id as soon as its load
 * is seen, in perf's "bpf_prog_info_linear" form (tools/perf/util/
 * bpf-utils.h, struct perf_bpil: the info, then its arrays, the arrays'
 * pointers as offsets into them), with its BTF once per BTF object; perf's
 * header.c reads both back from perf.data's HEADER_BPF_PROG_INFO (25) and
 * HEADER_BPF_BTF (26) features.  The layout is in docs/formats.md.
 */
#ifndef KT_ARCHIVE_H
#define KT_ARCHIVE_H

#include <linux/types.h>
#include <stddef.h>
#include "util/htab.h"

/* perf's feature numbers (tools/perf/util/header.h). */
#define KT_HEADER_BPF_PROG_INFO 25
#define KT_HEADER_BPF_BTF 26

/* One program: perf_bpil exactly as it goes to the file. */
struct kt_bpil {
	struct kt_hnode node; /* key: the program id */
	__u32 id;
	size_t size; /* of blob */
	unsigned char *blob; /* info_len, data_len, arrays, info, data */
};

struct kt_btf_blob {
	__u32 id;
	__u32 size;
	unsigned char *data;
};

/* Zeroed to start. */
struct kt_archive {
	struct kt_htab progs; /* struct kt_bpil */
	struct kt_btf_blob *btfs;
	size_t nbtfs, cap_btfs;
	size_t bytes; /* memory the blobs hold */
	unsigned long long gone; /* programs unloaded before they could be read */
	unsigned long long failed; /* other failures to read one */
};

/*
 * Capture program id (and its BTF) unless already held.  0 when captured or
 * held; -ENOENT when the program is already gone (counted in gone); another
 * -errno on failure (counted in failed).
 */
int kt_archive_add_prog(struct kt_archive *a, __u32 id);
const struct kt_bpil *kt_archive_prog(const struct kt_archive *a, __u32 id);
/* The two features' bodies, as perf's write_bpf_prog_info() and
 * write_bpf_btf() write them: u32 count, then each.  Returns the size, or
 * with out NULL the size needed. */
size_t kt_archive_feat_prog_info(const struct kt_archive *a, unsigned char *out);
size_t kt_archive_feat_btf(const struct kt_archive *a, unsigned char *out);
void kt_archive_free(struct kt_archive *a);

#endif
