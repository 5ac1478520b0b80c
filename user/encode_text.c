// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text format is perf script's: tools/perf/builtin-script.c
 * perf_sample__fprintf_start() prints "%16s %5d [%03d] %12s: " (comm, tid, cpu,
 * time as sec.usec, truncated) for the default software-event fields, then
 * perf_event__fprintf_ksymbol() / perf_event__fprintf_bpf().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include "encode.h"

static ssize_t done(int n, size_t size)
{
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= size)
		return -ENOSPC;
	return n;
}

ssize_t kt_encode_text(const struct kt_record *r, char *buf, size_t size)
{
	unsigned long long usecs = r->time / 1000;
	char tstr[32];
	const char *comm = r->comm;
	int tid = (int)r->tid, cpu = (int)r->cpu, n;

	/* perf's synthesized records carry an all-zero sample_id, so perf prints
	 * them as the idle task at time 0. */
	if (r->rflags & KT_RF_SNAPSHOT) {
		comm = "swapper";
		tid = 0;
		cpu = 0;
		usecs = 0;
	} else if (r->rflags & KT_RF_NO_TASK) {
		comm = ":-1";
		tid = -1;
	}
	snprintf(tstr, sizeof(tstr), "%llu.%06llu", usecs / 1000000, usecs % 1000000);

	switch (r->type) {
	case KT_RECORD_KSYMBOL:
		n = snprintf(buf, size,
			     "%16s %5d [%03d] %12s: PERF_RECORD_KSYMBOL addr %" PRIx64
			     " len %u type %u flags 0x%x name %s\n",
			     comm, tid, cpu, tstr, (uint64_t)r->addr, r->len, r->ksym_type,
			     r->flags, r->name);
		break;
	case KT_RECORD_BPF_EVENT:
		n = snprintf(buf, size,
			     "%16s %5d [%03d] %12s: PERF_RECORD_BPF_EVENT type %u, flags %u, id %u\n",
			     comm, tid, cpu, tstr, r->bpf_type, r->bpf_flags, r->prog_id);
		break;
	case KT_RECORD_LOST:
		n = snprintf(buf, size, "%16s %5d [%03d] %12s: PERF_RECORD_LOST lost %" PRIu64 "\n",
			     comm, tid, cpu, tstr, (uint64_t)r->lost);
		break;
	default:
		return -EINVAL;
	}
	return done(n, size);
}
