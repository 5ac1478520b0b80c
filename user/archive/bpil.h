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

#endif
