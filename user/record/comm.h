/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef KT_COMM_H
#define KT_COMM_H

#include <linux/types.h>
#include "record/record.h"

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
