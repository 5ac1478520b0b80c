// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The native decoder against what the kernel really writes with more than one
 * listener: perf_event_ksymbol_output() and perf_event_bpf_output() grow one
 * shared header.size by each listener's id_header_size and never restore it,
 * so a later listener's record is longer than its body plus trailer, with
 * garbage at the end.  The trailer must be read right after the body.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include "encode/encode.h"
#include "record/native_decode.h"
#include "unit.h"

static struct kt_record sample(__u32 type)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = type;
	r.time = 4049445812000ULL;
	r.pid = 29188;
	r.tid = 29189;
	r.cpu = 1;
	r.addr = 0xffffffffc0000690ULL;
	r.len = 46;
	r.ksym_type = KT_KSYM_TYPE_BPF;
	r.bpf_type = KT_BPF_EVENT_PROG_LOAD;
	r.prog_id = 11030;
	strcpy(r.name, "bpf_prog_e8300ee0a73b0b01_kt_sock_main");
	return r;
}

static void check_inflated(__u32 type, const char *what)
{
	struct kt_record in = sample(type), out;
	unsigned char buf[1024];
	struct perf_event_header h;
	ssize_t n;
	int extra;

	if (unit_start(what)) {
		n = kt_encode_perf(&in, buf, sizeof(buf));
		for (extra = 0; extra <= 64 && n > 0; extra += 8) {
			/* What a later listener gets: size grown, bytes after the trailer junk. */
			memset(buf + n, 0xa5, extra);
			memcpy(&h, buf, sizeof(h));
			h.size = n + extra;
			memcpy(buf, &h, sizeof(h));
			if (!ASSERT_EQ(kt_native_decode(&out, buf, n + extra), 1, "decodes"))
				break;
			if (!ASSERT_EQ(out.time, in.time, "time from right after the body") ||
			    !ASSERT_EQ(out.tid, in.tid, "tid") ||
			    !ASSERT_EQ(out.pid, in.pid, "pid") ||
			    !ASSERT_EQ(out.cpu, in.cpu, "cpu"))
				break;
			if (type == KT_RECORD_KSYMBOL && !ASSERT_STREQ(out.name, in.name, "name"))
				break;
			if (type == KT_RECORD_BPF_EVENT &&
			    !ASSERT_EQ(out.prog_id, in.prog_id, "id"))
				break;
		}
		unit_end();
	}
}

static void test_truncated_name_rejected(void)
{
	struct kt_record in = sample(KT_RECORD_KSYMBOL), out;
	unsigned char buf[1024];
	ssize_t n;

	if (unit_start("ksymbol_without_room_for_trailer_rejected")) {
		n = kt_encode_perf(&in, buf, sizeof(buf));
		/* Claim a size that ends inside the trailer. */
		buf[6] = (unsigned char)(n - 8);
		ASSERT_EQ(kt_native_decode(&out, buf, n - 8), -EINVAL, "malformed");
		unit_end();
	}
}

int main(void)
{
	check_inflated(KT_RECORD_KSYMBOL, "ksymbol_trailer_after_body_with_inflated_size");
	check_inflated(KT_RECORD_BPF_EVENT, "bpf_event_trailer_after_body_with_inflated_size");
	test_truncated_name_rejected();
	return unit_exit();
}
