/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Pieces of the native backend that the tests use directly. */
#ifndef KT_NATIVE_H
#define KT_NATIVE_H

#include <stddef.h>
#include "record/comm.h"
#include "record/record.h"

/* Decode one perf record (header included, sample_id TID|TIME|CPU): 1 if it is
 * a KSYMBOL, BPF_EVENT or LOST, 2 for a COMM (pid, tid, comm filled in), 0 for
 * other types, -EINVAL if malformed. */
int kt_native_decode(struct kt_record *r, const void *data, size_t size);
int kt_parse_cpulist(const char *s, unsigned char *mask, int max);

#endif
