// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The BPF side's copy of a program at its unload, as the ring delivers it
 * (include/ksymtap.h KT_RECORD_CODE), put together (backend/code_capture.c),
 * staged and claimed by the archive (archive/stage.h, kt_archive_claim()). */
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include "ksymtap.h"
#include "archive/archive.h"
#include "archive/bpil.h"
#include "backend/code_capture.h"
#include "unit.h"

#define KEY 0xffffffffc0001000ULL
#define LT 123456789ULL

static unsigned char rec[sizeof(struct kt_code_rec) + KT_CODE_CHUNK];

/* One record: part, index, off and len bytes of src (total the part's). */
static bool feed(struct kt_code_asm *c, __u32 part, __u32 index, __u64 faddr, __u32 off,
		 const void *src, __u32 len, __u32 total)
{
	struct kt_code_rec *r = (struct kt_code_rec *)rec;

	memset(rec, 0, sizeof(*r));
	r->key = KEY;
	r->load_time = LT;
	r->faddr = faddr;
	r->part = part;
	r->index = index;
	r->off = off;
	r->len = len;
	r->total = total;
	r->record_type = KT_RECORD_CODE;
	if (len)
		memcpy(r->data, src, len);
	return kt_code_asm_feed(c, rec, sizeof(*r) + len);
}

/* A program of two functions, 6 and 3 bytes, with line and func info and a
 * BTF blob, the image of the first in two chunks; end_bad: parts lost. */
static void send(struct kt_code_asm *c, __u32 end_bad)
{
	struct kt_code_meta m = {
		.prog_type = 1, .nfuncs = 2, .nr_linfo = 2, .nr_finfo = 2, .btf_id = 7, .btf_size = 5
	};
	const unsigned char f0[6] = { 1, 2, 3, 4, 5, 6 }, f1[3] = { 7, 8, 9 };
	const unsigned char t0[8] = { 0xa0 }, t1[8] = { 0xa1 };
	struct bpf_line_info li[2] = { { 0, 1, 2, 3 }, { 4, 5, 6, 7 } };
	__u64 jli[2] = { KEY, KEY + 0x100 };
	struct bpf_func_info fi[2] = { { 0, 3 }, { 4, 5 } };

	memcpy(m.tag, "TAGTAGTA", 8);
	strcpy(m.name, "kt_main");
	feed(c, KT_CODE_META, 0, 0, 0, &m, sizeof(m), sizeof(m));
	feed(c, KT_CODE_IMAGE, 0, KEY, 0, f0, 4, 6);
	feed(c, KT_CODE_IMAGE, 0, KEY, 4, f0 + 4, 2, 6);
	feed(c, KT_CODE_TAG, 0, 0, 0, t0, 8, 8);
	feed(c, KT_CODE_IMAGE, 1, KEY + 0x100, 0, f1, 3, 3);
	feed(c, KT_CODE_TAG, 1, 0, 0, t1, 8, 8);
	feed(c, KT_CODE_LINFO, 0, 0, 0, li, sizeof(li), sizeof(li));
	feed(c, KT_CODE_JLINFO, 0, 0, 0, jli, sizeof(jli), sizeof(jli));
	feed(c, KT_CODE_FINFO, 0, 0, 0, fi, sizeof(fi), sizeof(fi));
	feed(c, KT_CODE_BTF, 0, 0, 0, "\x9f\xeb\x01\x00\x18", 5, 5);
	feed(c, KT_CODE_END, end_bad, 0, 0, NULL, 0, 0);
}

static void test_copy(void)
{
	struct kt_code_stage st;
	struct kt_archive a = { 0 };
	struct kt_code_asm *c;
	const struct kt_bpil *p;
	struct kt_bpil_view v;
	const unsigned char *img;
	__u64 addr, jaddr;
	__u32 len, off;
	__u64 seq;
	struct bpf_line_info li;
	char why[128];

	if (unit_start("code_copy_claimed")) {
		kt_stage_init(&st);
		a.stage = &st;
		c = kt_code_asm_new(&st);
		ASSERT_TRUE(c != NULL, "assembler");
		send(c, 0);
		ASSERT_EQ(st.n, 0, "whole, but not staged before its unregister");
		ASSERT_EQ(kt_code_asm_take(c, KEY + 0x100), 0, "not by a subprogram's address");
		seq = kt_code_asm_take(c, KEY);
		ASSERT_TRUE(seq != 0 && st.n == 1, "staged by the first function's unregister");
		ASSERT_EQ(kt_code_asm_take(c, KEY), 0, "once");
		kt_archive_claim(&a, seq + 1, 42);
		ASSERT_EQ(a.progs.n, 0, "another number claims nothing");
		kt_archive_claim(&a, seq, 42);
		p = kt_archive_prog(&a, 42);
		ASSERT_TRUE(p != NULL, "held as program 42");
		ASSERT_EQ(a.caught, 1, "counted as caught");
		ASSERT_TRUE(kt_archive_btf(&a, 7) != NULL, "its BTF held");
		if (p && !kt_bpil_view(p->blob, p->size, &v, why, sizeof(why))) {
			ASSERT_EQ(v.info.id, 42, "info.id set at the claim");
			ASSERT_EQ(v.info.load_time, LT, "load_time");
			ASSERT_EQ(v.nfuncs, 2, "two functions");
			kt_bpil_func(&v, 1, &addr, &len, &off);
			ASSERT_TRUE(addr == KEY + 0x100 && len == 3 && off == 6,
				    "the second function after the first");
			img = kt_bpil_jited(&v, &len);
			ASSERT_TRUE(len == 9 && img[5] == 6 && img[6] == 7, "the image, in order");
			ASSERT_EQ(v.nlinfo, 2, "line info");
			kt_bpil_linfo(&v, 1, &li, &jaddr);
			ASSERT_TRUE(li.insn_off == 4 && li.line_col == 7 && jaddr == KEY + 0x100,
				    "line info with its JITed address");
		} else {
			unit_failf(__FILE__, __LINE__, "blob: %s", why);
		}
		kt_archive_life(&a, 43, 10, true);
		ASSERT_EQ(a.gone, 1, "an unload of a program not held counts gone");
		kt_code_asm_free(c);
		kt_archive_free(&a);
		kt_stage_fini(&st);
		unit_end();
	}
	if (unit_start("code_copy_incomplete")) {
		kt_stage_init(&st);
		c = kt_code_asm_new(&st);
		send(c, 1);
		ASSERT_EQ(kt_code_asm_take(c, KEY), 0, "a copy with a part lost is not staged");
		ASSERT_EQ(st.partial, 1, "and counted");
		/* A chunk out of order breaks the copy too. */
		feed(c, KT_CODE_META, 0, 0, 0, &(struct kt_code_meta){ .nfuncs = 1 },
		     sizeof(struct kt_code_meta), sizeof(struct kt_code_meta));
		feed(c, KT_CODE_IMAGE, 0, KEY, 4, "ab", 2, 6);
		feed(c, KT_CODE_END, 0, 0, 0, NULL, 0, 0);
		ASSERT_EQ(kt_code_asm_take(c, KEY), 0, "out of order: not staged");
		ASSERT_EQ(st.partial, 2, "counted");
		memset(rec, 0, sizeof(rec));
		((struct kt_event *)rec)->record_type = KT_RECORD_KSYMBOL;
		ASSERT_TRUE(!kt_code_asm_feed(c, rec, KT_EVENT_HDR_SIZE + 8),
			    "a symbol's event is left to the decoder");
		kt_code_asm_free(c);
		kt_stage_fini(&st);
		unit_end();
	}
}

int main(void)
{
	test_copy();
	return unit_exit();
}
