// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The code archive read back from perf's two features, and bounded as
 * serve's history is (archive/archive.h, archive/bpil.h). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "archive/archive.h"
#include "archive/bpil.h"
#include "unit.h"

/* perf_bpil's array bits (tools/perf/util/bpf-utils.h). */
#define JITED_INSNS 0
#define JITED_KSYMS 3
#define FUNC_LENS 4

/* A HEADER_BPF_PROG_INFO entry: program id with two functions at addr and
 * addr + 8, 8 and 4 bytes, and btf_id. */
static size_t entry(unsigned char *out, __u32 id, __u64 addr, __u32 btf_id)
{
	struct kt_bpil_head head = { .info_len = sizeof(struct bpf_prog_info), .data_len = 40 };
	struct bpf_prog_info info = { 0 };
	unsigned char data[40] = { 0 };
	__u64 ksyms[2] = { addr, addr + 8 };
	__u32 lens[2] = { 8, 4 };
	size_t n = 0;

	head.arrays = 1ULL << JITED_INSNS | 1ULL << JITED_KSYMS | 1ULL << FUNC_LENS;
	info.id = id;
	info.btf_id = btf_id;
	info.jited_prog_len = 12;
	info.jited_prog_insns = 0; /* offsets into data */
	info.nr_jited_ksyms = 2;
	info.jited_ksyms = 16;
	info.nr_jited_func_lens = 2;
	info.jited_func_lens = 32;
	memset(data, 0x90, 12);
	memcpy(data + 16, ksyms, 16);
	memcpy(data + 32, lens, 8);
	memcpy(out + n, &head, sizeof(head));
	n += sizeof(head);
	memcpy(out + n, &info, sizeof(info));
	n += sizeof(info);
	memcpy(out + n, data, sizeof(data));
	return n + sizeof(data);
}

static size_t feature(unsigned char *out, __u32 n)
{
	size_t at = 4;
	__u32 i;

	memcpy(out, &n, 4);
	for (i = 0; i < n; i++)
		at += entry(out + at, 10 + i, 0xffffffffc0000000ULL + 0x100 * i, 1 + i % 2);
	return at;
}

static void test_read(void)
{
	unsigned char buf[4096], btf[4 + 2 * (8 + 3)];
	struct kt_archive a = { 0 }, b = { 0 };
	const struct kt_bpil *p;
	struct kt_bpil_view v;
	char why[128] = "";
	__u64 addr;
	__u32 len, off, one = 1, two = 2, three = 3;
	size_t n = feature(buf, 3);

	if (unit_start("archive_read_back")) {
		memcpy(btf, &two, 4);
		memcpy(btf + 4, &one, 4);
		memcpy(btf + 8, &three, 4);
		memcpy(btf + 12, "abc", 3);
		memcpy(btf + 15, &two, 4);
		memcpy(btf + 19, &three, 4);
		memcpy(btf + 23, "xyz", 3);
		ASSERT_EQ(kt_archive_read_prog_info(&a, buf, n, why, sizeof(why)), 0, why);
		ASSERT_EQ(kt_archive_read_btf(&a, btf, sizeof(btf), why, sizeof(why)), 0, why);
		ASSERT_EQ(a.progs.n, 3, "three programs");
		ASSERT_EQ(a.nbtfs, 2, "two BTF objects");
		p = kt_archive_prog(&a, 11);
		ASSERT_TRUE(p && p->btf_id == 2, "program 11, its BTF id");
		ASSERT_EQ(kt_bpil_view(p->blob, p->size, &v, why, sizeof(why)), 0, why);
		ASSERT_EQ(v.nfuncs, 2, "two functions");
		kt_bpil_func(&v, 1, &addr, &len, &off);
		ASSERT_EQ(addr, 0xffffffffc0000108ULL, "second function's address");
		ASSERT_EQ(len, 4, "its length");
		ASSERT_EQ(off, 8, "its bytes after the first's");
		/* Again: nothing twice. */
		ASSERT_EQ(kt_archive_read_prog_info(&a, buf, n, why, sizeof(why)), 0, why);
		ASSERT_EQ(a.progs.n, 3, "still three");
		ASSERT_EQ(kt_archive_copy_prog(&b, &a, 12), 0, "copy program 12");
		ASSERT_TRUE(kt_archive_prog(&b, 12) && b.nbtfs == 1, "with its BTF only");
		ASSERT_EQ(kt_archive_copy_prog(&b, &a, 99), -ENOENT, "a program not held");
		/* Cut short, and an array outside its data. */
		ASSERT_EQ(kt_archive_read_prog_info(&b, buf, n - 1, why, sizeof(why)), -EINVAL,
			  "cut short");
		buf[4 + sizeof(struct kt_bpil_head) + offsetof(struct bpf_prog_info, jited_ksyms)] =
			200;
		ASSERT_EQ(kt_archive_read_prog_info(&b, buf, n, why, sizeof(why)), -EINVAL,
			  "array outside");
		ASSERT_TRUE(strstr(why, "outside") != NULL, why);
		kt_archive_free(&a);
		kt_archive_free(&b);
		unit_end();
	}
}

static void test_trim(void)
{
	unsigned char buf[4096];
	struct kt_archive a = { 0 };
	char why[128];
	size_t n = feature(buf, 3);

	if (unit_start("archive_trim")) {
		kt_archive_read_prog_info(&a, buf, n, why, sizeof(why));
		kt_archive_life(&a, 10, 100, true);
		kt_archive_life(&a, 11, 50, true);
		ASSERT_EQ(a.dead, 2, "two unloaded");
		ASSERT_EQ(a.oldest_death, 50, "the first unload");
		kt_archive_trim(&a, 5, 0, SIZE_MAX);
		ASSERT_EQ(a.progs.n, 3, "within the bounds: all kept");
		kt_archive_trim(&a, 1, 0, SIZE_MAX);
		ASSERT_TRUE(!kt_archive_prog(&a, 11) && kt_archive_prog(&a, 10),
			    "the first unloaded goes");
		ASSERT_EQ(a.evicted, 1, "counted");
		kt_archive_trim(&a, 5, 101, SIZE_MAX);
		ASSERT_TRUE(!kt_archive_prog(&a, 10), "too old goes");
		ASSERT_TRUE(kt_archive_prog(&a, 12) != NULL, "the loaded one stays");
		ASSERT_EQ(a.dead, 0, "none unloaded left");
		kt_archive_free(&a);
		unit_end();
	}
	if (unit_start("archive_trim_texts_and_bytes")) {
		static const unsigned char code[100];

		kt_archive_read_prog_info(&a, buf, n, why, sizeof(why));
		kt_archive_add_text(&a, 0x1000, 10, code, sizeof(code));
		kt_archive_add_text(&a, 0x2000, 20, code, sizeof(code));
		kt_archive_add_text(&a, 0x3000, 30, code, sizeof(code));
		kt_archive_text_died(&a, 0x2000, 40);
		kt_archive_text_died(&a, 0x1000, 60);
		kt_archive_life(&a, 10, 50, true);
		ASSERT_EQ(a.dead + a.dead_texts, 3, "three gone");
		ASSERT_EQ(a.oldest_death, 40, "the first death");
		kt_archive_trim(&a, 2, 0, SIZE_MAX);
		ASSERT_TRUE(a.ntext == 2 && a.text[0].addr == 0x1000 && a.text[1].addr == 0x3000,
			    "the text that died first goes, the others keep their order");
		kt_archive_trim(&a, 5, 0, a.bytes - 1);
		ASSERT_TRUE(!kt_archive_prog(&a, 10) && a.ntext == 2,
			    "over the byte bound: the next dead one (program 10) goes");
		kt_archive_trim(&a, 5, 0, 0);
		ASSERT_TRUE(a.ntext == 1 && a.text[0].addr == 0x3000, "down to what lives");
		ASSERT_EQ(a.progs.n, 2, "the loaded programs stay");
		kt_archive_free(&a);
		unit_end();
	}
}

int main(void)
{
	test_read();
	test_trim();
	return unit_exit();
}
