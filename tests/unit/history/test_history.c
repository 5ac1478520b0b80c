// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Symbol history (what held an address at a time), and the address and
 * time syntax of resolve, kallsyms and symbolize. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include "encode/encode_answer.h"
#include "history/history.h"
#include "serve/query.h"
#include "history/resolve.h"
#include "unit.h"

#define ksym unit_ksym

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
		kt_answer_text(buf, sizeof(buf), s, 0x900f);
		ASSERT_STREQ(buf, "bpf_prog_c+0xf/0x10 [bpf]", "%pS style");
		kt_answer_text(buf, sizeof(buf), NULL, 0);
		ASSERT_STREQ(buf, "[unknown]", "nothing");
		/* disasm without --at: the last symbol that ever held it. */
		s = kt_history_find_last(&h, 0x1030);
		ASSERT_TRUE(s && !strcmp(s->name, "bpf_prog_b"), "0x1030 last held by B");
		s = kt_history_find_last(&h, 0x1010);
		ASSERT_TRUE(s && !strcmp(s->name, "bpf_prog_a"), "0x1010 only by A, dead");
		ASSERT_TRUE(!kt_history_find_last(&h, 0x1060), "0x1060 by none");
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

static void test_trim(void)
{
	struct kt_history h;
	const struct kt_hsym *s;
	struct kt_record r;
	size_t bytes0;
	int i;

	if (unit_start("history_generations_and_trim")) {
		kt_history_init(&h);
		bytes0 = h.bytes;
		/* 100 programs in turn at one address, each dying at 10i + 5. */
		for (i = 0; i < 100; i++) {
			char name[32];

			snprintf(name, sizeof(name), "bpf_prog_%d", i);
			r = ksym(10 * i, 0x4000, 0x80, false, name);
			ASSERT_EQ(kt_history_add(&h, &r), 0, "born");
			r = ksym(10 * i + 5, 0x4000, 0x80, true, name);
			ASSERT_EQ(kt_history_add(&h, &r), 0, "dies");
		}
		r = ksym(2000, 0x4000, 0x40, false, "bpf_prog_live");
		kt_history_add(&h, &r);
		ASSERT_EQ(h.live, 1, "one alive");
		ASSERT_EQ(h.dead, 100, "100 dead");
		s = kt_history_find(&h, 0x4010, 423);
		ASSERT_TRUE(s && !strcmp(s->name, "bpf_prog_42"), "the 43rd at 423");
		ASSERT_TRUE(!kt_history_find(&h, 0x4010, 427), "between two generations");
		s = kt_history_find(&h, 0x4010, KT_HIST_NOW);
		ASSERT_TRUE(s && !strcmp(s->name, "bpf_prog_live"), "now");
		ASSERT_TRUE(!kt_history_find(&h, 0x4050, KT_HIST_NOW), "past the live one's end");
		/* By count: 10 dead kept, the newest. */
		kt_history_trim(&h, 10, 0);
		ASSERT_EQ(h.dead, 10, "10 dead left");
		ASSERT_EQ(h.evicted, 90, "90 evicted");
		ASSERT_TRUE(!kt_history_find(&h, 0x4010, 423), "the 43rd forgotten");
		s = kt_history_find(&h, 0x4010, 953);
		ASSERT_TRUE(s && !strcmp(s->name, "bpf_prog_95"), "the 96th kept");
		/* By age: dead before 960 go; the live one never does. */
		kt_history_trim(&h, 1000, 960);
		ASSERT_EQ(h.dead, 4, "those dead at 965..995 left");
		kt_history_trim(&h, 0, ~0ULL);
		ASSERT_EQ(h.dead, 0, "no dead left");
		ASSERT_EQ(h.live, 1, "the live one stays");
		ASSERT_TRUE(kt_history_find(&h, 0x4000, KT_HIST_NOW) != NULL, "and is found");
		r = ksym(3000, 0x4000, 0x40, true, "bpf_prog_live");
		kt_history_add(&h, &r);
		kt_history_trim(&h, 0, 0);
		ASSERT_EQ(h.ns, 0, "its address goes with its last symbol");
		ASSERT_EQ(h.bytes - bytes0 <= 256 * sizeof(struct kt_hslot) + 256 * 16, 1,
			  "only the arrays' capacity is left");
		kt_history_fini(&h);
		unit_end();
	}
	if (unit_start("history_neighbours")) {
		kt_history_init(&h);
		/* A big program below small ones: found across them. */
		r = ksym(1, 0x10000, 0x3000, false, "bpf_prog_big");
		kt_history_add(&h, &r);
		for (i = 0; i < 64; i++) {
			r = ksym(2, 0x13000 + 0x40 * i, 0x40, false, "bpf_prog_small");
			kt_history_add(&h, &r);
		}
		s = kt_history_find(&h, 0x12fff, 5);
		ASSERT_TRUE(s && !strcmp(s->name, "bpf_prog_big"), "big's last byte");
		s = kt_history_find(&h, 0x13fff, 5);
		ASSERT_TRUE(s && s->addr == 0x13fc0, "the last small one");
		ASSERT_TRUE(!kt_history_find(&h, 0x14000, 5), "past all");
		ASSERT_TRUE(!kt_history_find(&h, 0xffff, 5), "below all");
		kt_history_fini(&h);
		unit_end();
	}
}

static void test_query(void)
{
	struct kt_history h;
	struct kt_query q = { .h = &h, .fmt = KT_FMT_TEXT, .t_default = KT_HIST_NOW };
	char in[600], out[KT_QUERY_ANSWER_MAX];
	const char *req;
	struct kt_record r;
	size_t used, len, n;
	__u64 raw[2];
	bool bad;

	if (!unit_start("query_answers"))
		return;
	kt_history_init(&h);
	r = ksym(100, 0x1000, 0x40, false, "bpf_prog_a");
	kt_history_add(&h, &r);
	r = ksym(200, 0x1000, 0x40, true, "bpf_prog_a");
	kt_history_add(&h, &r);
	r = ksym(300, 0x1000, 0x20, false, "bpf_prog_b");
	kt_history_add(&h, &r);

	strcpy(in, "0x1030 150\r\n  \n1030\nzz 1\n1010 1.x\n");
	used = kt_query_next(&q, in, strlen(in), false, &req, &len);
	ASSERT_EQ(used, 12, "first line with its CRLF");
	n = kt_query_answer(&q, req, len, out, sizeof(out), &bad);
	out[n] = 0;
	ASSERT_STREQ(out, "0x1030 bpf_prog_a+0x30/0x40 [bpf]\n", "A at 150, as asked");
	used += kt_query_next(&q, in + used, strlen(in) - used, false, &req, &len);
	ASSERT_EQ(len, 0, "a blank line is no request");
	used += kt_query_next(&q, in + used, strlen(in) - used, false, &req, &len);
	n = kt_query_answer(&q, req, len, out, sizeof(out), &bad);
	out[n] = 0;
	ASSERT_STREQ(out, "1030 [unknown]\n", "now: B is shorter");
	used += kt_query_next(&q, in + used, strlen(in) - used, false, &req, &len);
	n = kt_query_answer(&q, req, len, out, sizeof(out), &bad);
	out[n] = 0;
	ASSERT_TRUE(bad, "zz is bad");
	ASSERT_STREQ(out, "error: 'zz' is not an address (hex, 0x optional)\n", "says why");
	used += kt_query_next(&q, in + used, strlen(in) - used, false, &req, &len);
	kt_query_answer(&q, req, len, out, sizeof(out), &bad);
	ASSERT_TRUE(bad, "1.x is not a time");
	ASSERT_EQ(kt_query_next(&q, in + used, strlen(in) - used, false, &req, &len), 0,
		  "nothing left");
	ASSERT_EQ(kt_query_next(&q, "1010", 4, false, &req, &len), 0, "half a line waits");

	memset(in, 'a', 300);
	in[300] = '\n';
	used = kt_query_next(&q, in, 280, true, &req, &len);
	ASSERT_EQ(len, KT_QUERY_LINE_MAX, "too long: answered once");
	ASSERT_EQ(used, 280, "all of it consumed");
	used = kt_query_next(&q, in + 280, 21, false, &req, &len);
	ASSERT_EQ(used, 21, "the rest of it skipped");
	ASSERT_EQ(len, 0, "with no second answer");

	q.fmt = KT_FMT_JSON;
	q.wall_off = 1000000000LL * 1767225600; /* 2026-01-01 */
	n = kt_query_answer(&q, "1010 150", 8, out, sizeof(out), &bad);
	out[n] = 0;
	ASSERT_STREQ(
		out,
		"{\"addr\":\"0x1010\",\"time\":150,\"name\":\"bpf_prog_a\",\"start\":"
		"\"0x1000\",\"offset\":16,\"len\":64,\"module\":\"bpf\",\"source\":\"bpf_prog\","
		"\"birth\":100,\"death\":200,\"birth_wall\":\"2026-01-01T00:00:00.000000100Z\","
		"\"death_wall\":\"2026-01-01T00:00:00.000000200Z\"}\n",
		"json");
	n = kt_query_answer(&q, "1010", 4, out, sizeof(out), &bad);
	out[n] = 0;
	ASSERT_STREQ(
		out,
		"{\"addr\":\"0x1010\",\"time\":\"now\",\"name\":\"bpf_prog_b\",\"start\":"
		"\"0x1000\",\"offset\":16,\"len\":32,\"module\":\"bpf\",\"source\":\"bpf_prog\","
		"\"birth\":300,\"death\":null,\"birth_wall\":\"2026-01-01T00:00:00.000000300Z\","
		"\"death_wall\":null}\n",
		"json, alive");

	q.fmt = KT_FMT_RAW;
	raw[0] = 0x1010;
	raw[1] = KT_QUERY_RAW_NOW;
	ASSERT_EQ(kt_query_next(&q, (char *)raw, 15, false, &req, &len), 0, "half a request");
	ASSERT_EQ(kt_query_next(&q, (char *)raw, 16, false, &req, &len), 16, "a request");
	n = kt_query_answer(&q, req, len, out, sizeof(out), &bad);
	ASSERT_EQ(n, 24 + 16, "KSYMBOL, name padded to 8");
	ASSERT_EQ(((struct perf_event_header *)out)->type, PERF_RECORD_KSYMBOL, "type");
	ASSERT_STREQ(out + 24, "bpf_prog_b", "name");
	raw[1] = 250;
	n = kt_query_answer(&q, (char *)raw, 16, out, sizeof(out), &bad);
	ASSERT_EQ(n, 24 + 8, "unknown: empty name");
	ASSERT_EQ(*(__u64 *)(out + 8), 0x1010, "the address asked");
	ASSERT_EQ(*(__u32 *)(out + 16), 0, "len 0");
	kt_history_fini(&h);
	unit_end();
}

int main(void)
{
	test_reuse();
	test_trim();
	test_query();
	test_syntax();
	return unit_exit();
}
