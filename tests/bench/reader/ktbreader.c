// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The reader's cost per load+close cycle, on the host, without a kernel
 * (issue 26): the BPF hooks' ring events of CYCLES cycles (a program's
 * register with its PROG_LOAD, then its unregister with its PROG_UNLOAD, as
 * bpf/ksymtap.bpf.c writes them for the bench's one-function socket
 * filter) go through the BPF backend's decode (kt_record_from_event), the
 * pipeline (table, attribution) and stdout's sink in the chosen format, one
 * tick (flush, write(2)) per cycle, as one wake-up per cycle does.  Run it
 * under `valgrind --tool=callgrind` for instructions per cycle and where
 * they go (tests/bench/host/reader.sh; BENCHMARKS.md); its own line gives
 * the wall time per cycle.
 *
 *   ktbreader [-n CYCLES] [-f text|json] >/dev/null
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "encode/encode.h"
#include "record/bpf_event.h"
#include "sink/output.h"
#include "sink/pipeline.h"
#include "util/clock.h"

static size_t event(struct kt_event *e, unsigned int i, bool unload)
{
	static const char tag[KT_TAG_SIZE] = { 0x1d, 0x2c, 0x3b, 0x4a, 0x59, 0x68, 0x77, 0x86 };
	int n;

	memset(e, 0, KT_EVENT_HDR_SIZE);
	e->time = 1000000000ULL + i * 100000ULL + (unload ? 50000 : 0);
	e->cgroup_id = 1;
	e->addr = 0xffffffffc0000000ULL + (i % 512) * 64;
	e->len = 42;
	e->ksym_type = KT_KSYM_TYPE_BPF;
	e->flags = unload ? KT_KSYM_FLAG_UNREGISTER : 0;
	e->prog_id = 1000 + i;
	e->bpf_type = unload ? KT_BPF_EVENT_PROG_UNLOAD : KT_BPF_EVENT_PROG_LOAD;
	memcpy(e->tag, tag, KT_TAG_SIZE);
	e->pid = e->tid = 4242;
	e->record_type = KT_RECORD_KSYMBOL;
	e->source = KT_SRC_BPF_PROG;
	e->ev_flags = KT_EVF_BPF_EVENT;
	strcpy(e->comm, "ktbload");
	strcpy(e->prog_name, "ktb_cycle");
	n = snprintf(e->name, sizeof(e->name), "bpf_prog_1d2c3b4a59687786_ktb_cycle");
	e->name_len = n;
	return KT_EVENT_HDR_SIZE + n + 1;
}

/* What the backend's on_event() does with one ring record. */
static int deliver(struct kt_pipeline *p, const struct kt_event *e, size_t size)
{
	struct kt_record r;
	int err;

	if (kt_record_from_event(&r, e, size))
		return -EINVAL;
	err = kt_pipeline_emit(p, &r);
	if (!err && !kt_record_bpf_event_of(&r, e, size))
		err = kt_pipeline_emit(p, &r);
	return err;
}

int main(int argc, char **argv)
{
	struct kt_event *e = malloc(sizeof(*e));
	enum kt_format fmt = KT_FMT_TEXT;
	unsigned int i, cycles = 100000;
	struct kt_output_sink out;
	struct kt_pipeline p;
	struct timespec t0, t1;
	size_t n;
	int opt, err = 0;

	while ((opt = getopt(argc, argv, "n:f:")) != -1) {
		if (opt == 'n')
			cycles = strtoul(optarg, NULL, 10);
		else if (opt == 'f' && kt_format_parse(optarg, &fmt) == 0)
			continue;
		else
			return fprintf(stderr, "usage: ktbreader [-n CYCLES] [-f text|json]\n"), 2;
	}
	if (!e || kt_stdout_pipeline(&p, &out, fmt))
		return fprintf(stderr, "ktbreader: out of memory\n"), 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < cycles && !err; i++) {
		n = event(e, i, false);
		err = deliver(&p, e, n);
		if (!err) {
			n = event(e, i, true);
			err = deliver(&p, e, n);
		}
		if (!err)
			err = kt_pipeline_tick(&p);
	}
	if (!err)
		err = kt_pipeline_flush(&p);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (err)
		return fprintf(stderr, "ktbreader: %s\n", strerror(-err)), 1;
	fprintf(stderr, "BENCH reader.%s.cycles=%u\nBENCH reader.%s.ns_per_cycle=%.0f\n",
		kt_format_name(fmt), cycles, kt_format_name(fmt),
		((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / cycles);
	kt_output_fini(&out.out);
	kt_pipeline_fini(&p);
	free(e);
	return 0;
}
