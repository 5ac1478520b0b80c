/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Pieces of the native backend that the tests use directly. */
#ifndef KT_NATIVE_H
#define KT_NATIVE_H

#include <stddef.h>
#include "record.h"

/* Decode one perf record (header included, sample_id TID|TIME|CPU): 1 if it is
 * a KSYMBOL, BPF_EVENT or LOST, 2 for a COMM (pid, tid, comm filled in), 0 for
 * other types, -EINVAL if malformed. */
int kt_native_decode(struct kt_record *r, const void *data, size_t size);
int kt_parse_cpulist(const char *s, unsigned char *mask, int max);

/* comm of a task, from /proc, cached; "" once the task is gone. */
#define KT_COMM_CACHE 64
struct kt_comm_cache {
	struct {
		__u32 tid;
		char comm[KT_COMM_LEN];
	} e[KT_COMM_CACHE];
	unsigned int next;
};
void kt_comm_lookup(struct kt_comm_cache *c, __u32 tid, char *comm);
/* A task's new name, from a PERF_RECORD_COMM. */
void kt_comm_update(struct kt_comm_cache *c, __u32 tid, const char *comm);

#endif
