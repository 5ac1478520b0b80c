/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The code archive's part of `ksymtap inject` (issue 32): the programs and
 * BTF objects FILE holds (HEADER_BPF_PROG_INFO, HEADER_BPF_BTF) that IN's
 * own features lack, such as a program gone before perf's side-band thread
 * could fetch it, appended to IN's features (which are added when IN has
 * none): perf report --header-only -I then lists them, perf annotate uses
 * them.  IN's entries stay byte for byte; perf's reader takes each entry by
 * its own info_len.
 */
#ifndef KT_INJECT_CODE_H
#define KT_INJECT_CODE_H

#include <linux/types.h>
#include <stddef.h>
#include "archive/archive.h"

struct kt_inject_code {
	/* Per feature (0: HEADER_BPF_PROG_INFO, 1: HEADER_BPF_BTF): FILE's
	 * entries IN lacks, as perf writes them, and how many. */
	unsigned char *add[2];
	size_t add_len[2];
	__u32 nadd[2];
};

/* Compare FILE's archive with IN's (both perf.data files).  0, or -errno
 * with why. */
int kt_inject_code_load(struct kt_inject_code *c, const char *file, const char *in, char *why,
			size_t why_size);
/* The feature index (0, 1) of bit, or -1 for other features. */
int kt_inject_code_feat(int bit);
void kt_inject_code_fini(struct kt_inject_code *c);

#endif
