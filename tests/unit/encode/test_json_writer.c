// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The JSON writer (user/encode/json_writer.h): escaping, commas at every
 * depth, the fixed buffer's bound, the growing buffer; and the answers
 * built on it (encode_answer.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "encode/json_writer.h"
#include "encode/encode_answer.h"
#include "record/record.h"
#include "unit.h"

static ssize_t jstr(char *buf, size_t size, const char *s)
{
	struct kt_jw w;

	kt_jw_init(&w, buf, size);
	kt_jw_str(&w, s);
	return kt_jw_end(&w);
}

static void test_escaping(void)
{
	char buf[4096];

	if (unit_start("json_escapes_quotes_backslash_controls")) {
		jstr(buf, sizeof(buf), "a\"b\\c\nd\te\x01\x7f");
		ASSERT_STREQ(buf, "\"a\\\"b\\\\c\\u000ad\\u0009e\\u0001\\u007f\"", "escaped");
		unit_end();
	}
	if (unit_start("json_utf8_passes_invalid_bytes_escaped")) {
		jstr(buf, sizeof(buf), "caf\xc3\xa9 \xff\xfe \xc3 \xe2\x82\xac \xed\xa0\x80");
		ASSERT_STREQ(
			buf,
			"\"caf\xc3\xa9 \\u00ff\\u00fe \\u00c3 \xe2\x82\xac \\u00ed\\u00a0\\u0080\"",
			"valid UTF-8 kept, invalid bytes and surrogates escaped");
		unit_end();
	}
	if (unit_start("json_str_nospace")) {
		ASSERT_EQ(jstr(buf, 4, "abcdef"), -ENOSPC, "-ENOSPC");
		unit_end();
	}
}

static void test_structure(void)
{
	char buf[512];
	struct kt_jw w;
	ssize_t n;

	if (!unit_start("json_writer_commas_and_nesting"))
		return;
	kt_jw_init(&w, buf, sizeof(buf));
	kt_jw_obj_begin(&w);
	KT_JW_FIELD(kt_jw_u64, &w, "a", 18446744073709551615ULL);
	KT_JW_FIELD(kt_jw_s64, &w, "b", -9223372036854775807LL - 1);
	KT_JW_FIELD(kt_jw_hex, &w, "c", 0xffffffffc0001000ULL);
	kt_jw_key(&w, "d");
	kt_jw_arr_begin(&w);
	kt_jw_arr_end(&w);
	kt_jw_key(&w, "e");
	kt_jw_arr_begin(&w);
	kt_jw_obj_begin(&w);
	kt_jw_obj_end(&w);
	kt_jw_bool(&w, true);
	kt_jw_null(&w);
	kt_jw_str_or_null(&w, "");
	kt_jw_raw(&w, "{\"x\":1}", 7);
	kt_jw_arr_end(&w);
	KT_JW_FIELD(kt_jw_double, &w, "f", 1.5, 3);
	KT_JW_FIELD(kt_jw_rfc3339, &w, "g", 1796472531123456789LL);
	kt_jw_obj_end(&w);
	n = kt_jw_end(&w);
	ASSERT_STREQ(buf,
		     "{\"a\":18446744073709551615,\"b\":-9223372036854775808,"
		     "\"c\":\"0xffffffffc0001000\",\"d\":[],\"e\":[{},true,null,null,{\"x\":1}],"
		     "\"f\":1.500,\"g\":\"2026-12-05T12:08:51.123456789Z\"}",
		     "the text");
	ASSERT_EQ(n, (ssize_t)strlen(buf), "its length");
	unit_end();
}

static void test_dyn(void)
{
	struct kt_jw w;
	ssize_t n;
	int i;

	if (!unit_start("json_writer_grows"))
		return;
	kt_jw_init_dyn(&w);
	kt_jw_arr_begin(&w);
	for (i = 0; i < 100000; i++)
		kt_jw_u64(&w, i);
	kt_jw_arr_end(&w);
	n = kt_jw_end(&w);
	ASSERT_EQ(n, 588891, "100,000 numbers (488,890 digits), 99,999 commas, 2 brackets");
	ASSERT_TRUE(n > 0 && w.p[0] == '[' && w.p[n - 1] == ']' && !w.p[n], "bracketed, ended");
	ASSERT_TRUE(n > 0 && !memcmp(w.p + n - 7, ",99999]", 7), "the last");
	kt_jw_free(&w);
	kt_jw_init_dyn(&w);
	ASSERT_EQ(kt_jw_end(&w), 0, "empty");
	kt_jw_free(&w);
	unit_end();
}

static void test_answers(void)
{
	struct kt_hsym s = { .birth = 1000, .death = KT_HIST_ALIVE, .addr = 0xffffffffc0001000ULL,
			     .len = 0x80, .source = KT_SRC_BPF_PROG, .ksym_type = 1,
			     .name = "bpf_prog_0123456789abcdef_f" };
	char buf[1024];
	ssize_t n;

	if (!unit_start("answers_text_json_error"))
		return;
	n = kt_answer_text(buf, sizeof(buf), &s, 0xffffffffc0001010ULL);
	ASSERT_STREQ(buf, "bpf_prog_0123456789abcdef_f+0x10/0x80 [bpf]", "text");
	ASSERT_EQ(n, (ssize_t)strlen(buf), "text length");
	kt_answer_text(buf, sizeof(buf), NULL, 1);
	ASSERT_STREQ(buf, "[unknown]", "text, unknown");
	ASSERT_EQ(kt_answer_text(buf, 20, &s, 0xffffffffc0001010ULL), -ENOSPC, "text, no room");
	kt_answer_json(buf, sizeof(buf), 0xffffffffc0001010ULL, KT_HIST_NOW, &s, 0);
	ASSERT_STREQ(buf,
		     "{\"addr\":\"0xffffffffc0001010\",\"time\":\"now\","
		     "\"name\":\"bpf_prog_0123456789abcdef_f\",\"start\":\"0xffffffffc0001000\","
		     "\"offset\":16,\"len\":128,\"module\":\"bpf\",\"source\":\"bpf_prog\","
		     "\"birth\":1000,\"death\":null,\"birth_wall\":null,\"death_wall\":null}\n",
		     "json, alive, no wall clock");
	s.death = 2000;
	kt_answer_json(buf, sizeof(buf), 0xffffffffc0001010ULL, 1500, &s, 1000000000LL);
	ASSERT_STREQ(buf,
		     "{\"addr\":\"0xffffffffc0001010\",\"time\":1500,"
		     "\"name\":\"bpf_prog_0123456789abcdef_f\",\"start\":\"0xffffffffc0001000\","
		     "\"offset\":16,\"len\":128,\"module\":\"bpf\",\"source\":\"bpf_prog\","
		     "\"birth\":1000,\"death\":2000,\"birth_wall\":\"1970-01-01T00:00:01.000001000Z\","
		     "\"death_wall\":\"1970-01-01T00:00:01.000002000Z\"}\n",
		     "json, dead, wall clock");
	kt_answer_json(buf, sizeof(buf), 0x10, 7, NULL, 0);
	ASSERT_STREQ(buf, "{\"addr\":\"0x10\",\"time\":7,\"name\":null}\n", "json, unknown");
	kt_answer_error(buf, sizeof(buf), true, "'x\"' is not an address");
	ASSERT_STREQ(buf, "{\"error\":\"'x\\\"' is not an address\"}\n", "json error");
	kt_answer_error(buf, sizeof(buf), false, "bad");
	ASSERT_STREQ(buf, "error: bad\n", "text error");
	unit_end();
}

int main(void)
{
	test_escaping();
	test_structure();
	test_dyn();
	test_answers();
	return unit_exit();
}
