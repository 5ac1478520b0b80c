/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The code archive of a perf.data, ksymtap's record file or perf's own: its
 * HEADER_BPF_PROG_INFO and HEADER_BPF_BTF, its PERF_RECORD_TEXT_POKEs (the
 * bytes of trampolines and other code without a bpf_prog_info), and the
 * HEADER_ARCH to decode them with (archive/archive.h). */
#ifndef KT_CODE_IN_H
#define KT_CODE_IN_H

#include <stdbool.h>
#include <stddef.h>
#include "archive/archive.h"

/* 0 (an empty archive when the file holds no code; arch "" when it does not
 * say), or -errno with why naming the file and the problem.  texts: read
 * the data section for TEXT_POKEs too (not for inject's IN: its samples). */
int kt_code_file_read(const char *path, struct kt_archive *a, bool texts, char *arch,
		      size_t arch_size, char *why, size_t why_size);

#endif
