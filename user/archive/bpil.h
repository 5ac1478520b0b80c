/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A program's bpf_prog_info and arrays as perf's struct perf_bpil. */
#ifndef KT_BPIL_H
#define KT_BPIL_H

#include <stddef.h>
#include <linux/bpf.h>

/* tools/perf/util/bpf-utils.h: struct perf_bpil up to its info. */
struct kt_bpil_head {
	__u32 info_len; /* sizeof(struct bpf_prog_info) */
	__u32 data_len; /* the arrays, each rounded up to 8 bytes */
	__u64 arrays; /* bit i: array i (perf_bpil_array_types) is in data */
};

/*
 * Read program fd's info and arrays into a new blob: head, info (its array
 * fields as offsets into data), data.  *first: the info with the arrays'
 * sizes (the ksyms as offsets too), for the caller's own use; may be NULL.
 * -errno.
 */
int kt_bpil_read(int fd, unsigned char **blob, size_t *size, struct bpf_prog_info *first);

/* The same from an info whose arrays are in this process's memory (the
 * BPF side's copy at unload): the arrays kt_bpil_read() asks for, as many
 * as their counts say.  0 or -ENOMEM. */
int kt_bpil_pack(const struct bpf_prog_info *info, unsigned char **blob, size_t *size);
/* Write id into the info of a blob kt_bpil_pack() or kt_bpil_read() made. */
void kt_bpil_set_id(unsigned char *blob, __u32 id);

/*
 * A blob read back (ours, or perf's from its perf.data): the info, zero-
 * extended or cut to this build's struct, and its arrays checked to lie in
 * the data.  Arrays the blob lacks have count 0.  The accessors copy, as a
 * blob read from a file is not aligned.
 */
struct kt_bpil_view {
	struct bpf_prog_info info; /* array fields: offsets into data */
	const unsigned char *data;
	__u32 data_len;
	__u32 nfuncs; /* jited_ksyms and jited_func_lens, both there */
	__u32 nlinfo; /* line_info and jited_line_info, both there */
};

/* 0, or -EINVAL with why naming what is wrong. */
int kt_bpil_view(const unsigned char *blob, size_t size, struct kt_bpil_view *v, char *why,
		 size_t why_size);
const unsigned char *kt_bpil_jited(const struct kt_bpil_view *v, __u32 *len);
/* Function i: its address, its size, and where its bytes start in the image. */
void kt_bpil_func(const struct kt_bpil_view *v, __u32 i, __u64 *addr, __u32 *len, __u32 *off);
/* Line info i with the address the JIT gave it. */
void kt_bpil_linfo(const struct kt_bpil_view *v, __u32 i, struct bpf_line_info *li, __u64 *jaddr);

#endif
