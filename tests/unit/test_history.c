// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Symbol history (what held an address at a time), and the address and
 * time syntax of resolve, kallsyms and symbolize. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include "history.h"
#include "resolve.h"
#include "unit.h"

static struct kt_record ksym(__u64 t, __u64 addr, __u32 len, bool unreg, const char *name)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_KSYMBOL;
	r.time = t;
	r.addr = addr;
	r.len = len;
	r.ksym_type = 1;
	r.source = KT_SRC_BPF_PROG;
	r.flags = unreg ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0;
	snprintf(r.name, sizeof(r.name), "%s", name);
	return r;
}

static void test_reuse(void)
{
	struct kt_history h;
	const struct kt_hsym *s;
	struct kt_record r;
	char buf[128];

	if (unit_start("history_address_reuse")) {
		kt_history_init(&h);
		/* A at 0x1000+0x40 from the snapshot, dies at 100; B takes
		 * 0x1020+0x40 at 200; C elsewhere, still alive. */
		r = ksym(0, 0x1000, 0x40, false, "bpf_prog_a");
		kt_history_add(&h, &r);
		r = ksym(50, 0x9000, 0x10, false, "bpf_prog_c");
		kt_history_add(&h, &r);
		r = ksym(100, 0x1000, 0x40, true, "bpf_prog_a");
		kt_history_add(&h, &r);
		r = ksym(200, 0x1020, 0x40, false, "bpf_prog_b");
		kt_history_add(&h, &r);
		kt_history_done(&h);
		ASSERT_EQ(h.end, 200, "now is the newest time");
		s = kt_history_find(&h, 0x1030, 99);
		ASSERT_TRUE(s && !strcmp(s->name, "bpf_prog_a"), "0x1030 at 99 is A");
		ASSERT_TRUE(!kt_history_find(&h, 0x1030, 100), "A is dead at 100");
		ASSERT_TRUE(!kt_history_find(&h, 0x1030, 150), "nothing between A and B");
		s = kt_history_find(&h, 0x1030, 200);
		ASSERT_TRUE(s && !strcmp(s->name, "bpf_prog_b"), "0x1030 at 200 is B");
		ASSERT_TRUE(!kt_history_find(&h, 0x1010, 300), "below B, after A: unknown, not B");
		ASSERT_TRUE(!kt_history_find(&h, 0x1060, 300), "B's end is exclusive");
		ASSERT_TRUE(!kt_history_find(&h, 0x9000, 49), "C before its birth");
		s = kt_history_find(&h, 0x900f, 1000);
		kt_format_sym(buf, sizeof(buf), s, 0x900f);
		ASSERT_STREQ(buf, "bpf_prog_c+0xf/0x10 [bpf]", "%pS style");
		kt_format_sym(buf, sizeof(buf), NULL, 0);
		ASSERT_STREQ(buf, "[unknown]", "nothing");
		kt_history_fini(&h);
		unit_end();
	}
	if (unit_start("history_unregister_without_birth")) {
		kt_history_init(&h);
		r = ksym(70, 0x2000, 0x20, true, "bpf_prog_old");
		kt_history_add(&h, &r);
		kt_history_done(&h);
		s = kt_history_find(&h, 0x2001, 10);
		ASSERT_TRUE(s && !strcmp(s->name, "bpf_prog_old"), "existed from time 0");
		ASSERT_TRUE(!kt_history_find(&h, 0x2001, 70), "until its unregister");
		kt_history_fini(&h);
		unit_end();
	}
}

static void test_syntax(void)
{
	__u64 v;

	if (unit_start("resolve_parse_time")) {
		ASSERT_EQ(kt_parse_time("123", 9, &v), 0, "ns");
		ASSERT_EQ(v, 123, "ns value");
		ASSERT_EQ(kt_parse_time("12.345678", 9, &v), 0, "perf script seconds");
		ASSERT_EQ(v, 12345678000ULL, "seconds value");
		ASSERT_EQ(kt_parse_time("1.0000000019", 9, &v), 0, "more than 9 decimals");
		ASSERT_EQ(v, 1000000001ULL, "cut to ns");
		ASSERT_EQ(kt_parse_time("now", 9, &v), 0, "now");
		ASSERT_EQ(v, 9, "now value");
		ASSERT_EQ(kt_parse_time("12.", 9, &v), -EINVAL, "no fraction");
		ASSERT_EQ(kt_parse_time("-1", 9, &v), -EINVAL, "negative");
		ASSERT_EQ(kt_parse_time("99999999999999999999", 9, &v), -EINVAL, "overflow");
		ASSERT_EQ(kt_parse_time("1x", 9, &v), -EINVAL, "junk");
		unit_end();
	}
	if (unit_start("resolve_parse_addr")) {
		ASSERT_EQ(kt_parse_addr("0xffffffffc0001234", 18, &v), 0, "0x");
		ASSERT_EQ(v, 0xffffffffc0001234ULL, "value");
		ASSERT_EQ(kt_parse_addr("FFFFFFFFC0001234", 16, &v), 0, "upper case");
		ASSERT_EQ(kt_parse_addr("1ffffffffc0001234", 17, &v), -EINVAL, "17 digits");
		ASSERT_EQ(kt_parse_addr("0x", 2, &v), -EINVAL, "empty");
		ASSERT_EQ(kt_parse_addr("12g4", 4, &v), -EINVAL, "not hex");
		unit_end();
	}
}

int main(void)
{
	test_reuse();
	test_syntax();
	return unit_exit();
}
