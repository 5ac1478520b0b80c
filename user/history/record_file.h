/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reading back what `ksymtap record` wrote (docs/formats.md): its records,
 * and the host and kernel it was written on. */
#ifndef KT_RECORD_FILE_H
#define KT_RECORD_FILE_H

#include <stddef.h>
#include "record/record.h"

struct kt_record_file_info {
	char hostname[65], osrelease[65]; /* empty if the file has none */
};

/*
 * Each KSYMBOL, BPF_EVENT and LOST record of the record file at path, in file
 * order (time order), to fn; fn's non-zero return stops and is returned.  A
 * file that is not a ksymtap record file (perf's own perf.data, say), a
 * truncated or corrupt one: -errno with why naming it.
 */
int kt_record_file_read(const char *path, kt_emit_fn fn, void *ctx,
			struct kt_record_file_info *info, char *why, size_t why_size);

#endif
