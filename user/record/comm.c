// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "record/comm.h"

void kt_comm_lookup(struct kt_comm_cache *c, __u32 tid, char *comm)
{
	char path[64];
	unsigned int i;
	FILE *f;
	size_t n;

	if (tid == 0) {
		strcpy(comm, "swapper");
		return;
	}
	for (i = 0; i < KT_COMM_CACHE; i++)
		if (c->e[i].tid == tid && c->e[i].comm[0]) {
			memcpy(comm, c->e[i].comm, KT_COMM_LEN);
			return;
		}
	comm[0] = 0;
	snprintf(path, sizeof(path), "/proc/%u/comm", tid);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(comm, 1, KT_COMM_LEN - 1, f);
	fclose(f);
	comm[n] = 0;
	if (n && comm[n - 1] == '\n')
		comm[n - 1] = 0;
	i = c->next++ % KT_COMM_CACHE;
	c->e[i].tid = tid;
	memcpy(c->e[i].comm, comm, KT_COMM_LEN);
}

void kt_comm_update(struct kt_comm_cache *c, __u32 tid, const char *comm)
{
	unsigned int i;

	for (i = 0; i < KT_COMM_CACHE; i++)
		if (c->e[i].tid == tid)
			break;
	if (i == KT_COMM_CACHE)
		i = c->next++ % KT_COMM_CACHE;
	c->e[i].tid = tid;
	snprintf(c->e[i].comm, KT_COMM_LEN, "%s", comm);
}
