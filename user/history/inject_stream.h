/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `ksymtap inject`'s files: FILE in, IN copied to OUT with the records the
 * engine (inject.h) decides put in their place.  docs/inject.md. */
#ifndef KT_INJECT_STREAM_H
#define KT_INJECT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include "history/inject.h"

struct kt_inject_args {
	const char *in; /* perf's perf.data, "-": pipe format on stdin */
	const char *out; /* "-": stdout (pipe format, with -i -) */
	const char *file; /* a ksymtap record file */
	bool force; /* FILE from another host, kernel, boot or clock */
	/* Filled in. */
	char file_host[65], file_release[65];
	unsigned long long emitted;
	/* FILE's programs and BTF objects added to IN's features. */
	unsigned long long code_progs, code_btfs;
};

/* The whole run: 0, or -errno with why naming what failed (OUT is then not
 * created, or, for stdout, ends where the failure happened). */
int kt_inject_run(struct kt_inject_args *a, struct kt_inject *ij, char *why, size_t why_size);

#endif
