/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The kernel's side-band records as kt_records (user/record/native_decode.c). */
#ifndef KT_NATIVE_DECODE_H
#define KT_NATIVE_DECODE_H

#include <stddef.h>
#include "record/record.h"

/* The sample_id trailer the native backend asks for: TID, TIME, CPU. */
#define KT_NATIVE_TRAILER_SIZE 24

/* Decode one perf record (header included, sample_id TID|TIME|CPU): 1 if it is
 * a KSYMBOL, BPF_EVENT or LOST, 2 for a COMM (pid, tid, comm filled in), 0 for
 * other types, -EINVAL if malformed. */
int kt_native_decode(struct kt_record *r, const void *data, size_t size);

#endif
