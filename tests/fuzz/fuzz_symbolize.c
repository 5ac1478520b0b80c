// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Text through `ksymtap symbolize` and `resolve`'s input: the times lines
 * give, the addresses in them, against a small history. */
#include <linux/perf_event.h>
#include <stdio.h>
#include "fuzz.h"
#include "resolve.h"
#include "symbolize.h"

static struct kt_history h;
static FILE *null_out;

static void setup(void)
{
	static const struct {
		__u64 t, addr;
		__u32 len;
		bool unreg;
	} recs[] = {
		{ 0, 0xffffffffc0001000ULL, 0x80, false },
		{ 5000000000ULL, 0xffffffffc0001000ULL, 0x80, true },
		{ 6000000000ULL, 0xffffffffc0001040ULL, 0x100, false },
		{ 7000000000ULL, 0xffffffffc0203000ULL, 0x1000, false },
	};
	struct kt_record r;
	size_t i;

	kt_history_init(&h);
	for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.type = KT_RECORD_KSYMBOL;
		r.time = recs[i].t;
		r.addr = recs[i].addr;
		r.len = recs[i].len;
		r.ksym_type = 1;
		r.source = KT_SRC_BPF_PROG;
		r.flags = recs[i].unreg ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0;
		snprintf(r.name, sizeof(r.name), "bpf_prog_%zu", i);
		kt_history_add(&h, &r);
	}
	kt_history_done(&h);
	null_out = fopen("/dev/null", "w");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_str(data, size);
	__u64 t = h.end, v;

	if (!null_out)
		setup();
	if (!line)
		return 0;
	kt_perf_script_time(line, &t);
	kt_dmesg_time(line, &t);
	kt_symbolize_line(&h, line, t, null_out);
	kt_parse_time(line, h.end, &v);
	kt_parse_addr(line, strlen(line), &v);
	free(line);
	return 0;
}
