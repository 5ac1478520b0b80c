// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Text through `ksymtap symbolize` and `resolve`'s input: the times lines
 * give, the addresses in them, against a small history. */
#include <stdio.h>
#include "fuzz.h"
#include "fuzz_history.h"
#include "encode/encode_answer.h"
#include "history/resolve.h"
#include "history/symbolize.h"

static struct kt_history h;
static FILE *null_out;

static void setup(void)
{
	fuzz_history(&h);
	null_out = fopen("/dev/null", "w");
}

static int name(void *ctx, __u64 addr, __u64 t, char *buf, size_t size)
{
	const struct kt_hsym *s = kt_history_find(ctx, addr, t);

	return s ? kt_answer_text(buf, size, s, addr) > 0 : 0;
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
	kt_symbolize_line(name, &h, line, t, null_out);
	kt_parse_time(line, h.end, &v);
	kt_parse_addr(line, strlen(line), &v);
	free(line);
	return 0;
}
