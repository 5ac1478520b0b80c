// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Programs from the walker's bpf_kallsyms entries (no CAP_SYS_ADMIN). */
#include <stdlib.h>
#include <string.h>
#include "snapshot/snapshot.h"
#include "kt_snapshot.h"
#include "unit.h"

static void image(struct kt_snap_image *e, __u64 start, __u32 len, __u32 id, __u64 group, __u32 idx,
		  bool func, __u8 tagbyte, const char *name)
{
	memset(e, 0, sizeof(*e));
	e->kind = KT_SNAP_BPF_PROG;
	e->start = start;
	e->end = start + len;
	e->prog_id = id;
	e->group = group;
	e->func_idx = idx;
	e->flags = func ? KT_SNAP_F_FUNC : 0;
	memset(e->tag, tagbyte, sizeof(e->tag));
	snprintf(e->prog_name, sizeof(e->prog_name), "kt_sock_main");
	snprintf(e->name, sizeof(e->name), "%s", name);
}

static void test_new_kernel(void)
{
	struct kt_snap_image v[5];
	struct kt_prog_desc *d = NULL;
	size_t n = 0, i;

	if (unit_start("progs_from_walk_main_and_subprogs")) {
		/* 6.4+: the program's own ksym, func[1..2]; func[0] not listed.  A
		 * single-function program and a trampoline around them. */
		image(&v[0], 0x2000, 30, 0, 0xaa00, 2, true, 0x22,
		      "bpf_prog_2222222222222222_kt_sub_two");
		image(&v[1], 0x1000, 46, 79, 0xaa00, 0, false, 0x11,
		      "bpf_prog_1111111111111111_kt_sock_main");
		image(&v[2], 0x1800, 20, 0, 0xaa00, 1, true, 0x33,
		      "bpf_prog_3333333333333333_kt_sub_one");
		image(&v[3], 0x3000, 10, 12, 0, 0, false, 0x44, "bpf_prog_4444444444444444");
		memset(&v[4], 0, sizeof(v[4]));
		v[4].kind = KT_SNAP_BPF_IMAGE;
		ASSERT_EQ(kt_snapshot_progs_from_walk(v, 5, &d, &n), 0, "from walk");
		if (ASSERT_EQ(n, 2, "two programs")) {
			ASSERT_EQ(d[0].id, 12, "id order: 12 first");
			ASSERT_EQ(d[0].nfuncs, 1, "single function");
			ASSERT_EQ(d[0].lens[0], 10, "its length");
			ASSERT_EQ(d[1].id, 79, "then 79");
			if (ASSERT_EQ(d[1].nfuncs, 3, "three functions")) {
				ASSERT_EQ(d[1].addrs[0], 0x1000, "func[0] is the program's image");
				ASSERT_EQ(d[1].lens[0], 46, "its length");
				ASSERT_EQ(d[1].addrs[1], 0x1800, "func[1]");
				ASSERT_EQ(d[1].addrs[2], 0x2000, "func[2]");
				ASSERT_EQ(d[1].tags[2][0], 0x22, "func[2]'s tag");
				ASSERT_STREQ(d[1].func_names[1], "kt_sub_one", "func[1]'s name");
			}
			ASSERT_EQ(d[1].tag[0], 0x11, "program tag");
			ASSERT_STREQ(d[1].name, "kt_sock_main", "program name");
		}
		for (i = 0; i < n; i++)
			kt_prog_desc_free(&d[i]);
		free(d);
		unit_end();
	}
}

static void test_func0_listed(void)
{
	struct kt_snap_image v[3];
	struct kt_prog_desc *d = NULL;
	size_t n = 0, i;

	if (unit_start("progs_from_walk_func0_listed")) {
		/* 5.10: func[0] has its own entry at the program's address. */
		image(&v[0], 0x1000, 46, 0, 0xbb00, 0, true, 0x55,
		      "bpf_prog_5555555555555555_kt_sock_main");
		image(&v[1], 0x1800, 20, 0, 0xbb00, 1, true, 0x33,
		      "bpf_prog_3333333333333333_kt_sub_one");
		image(&v[2], 0x1000, 46, 80, 0xbb00, 0, false, 0x11,
		      "bpf_prog_1111111111111111_kt_sock_main");
		ASSERT_EQ(kt_snapshot_progs_from_walk(v, 3, &d, &n), 0, "from walk");
		if (ASSERT_EQ(n, 1, "one program") && ASSERT_EQ(d[0].nfuncs, 2, "two functions")) {
			ASSERT_EQ(d[0].tags[0][0], 0x55, "func[0]'s own tag (perf's name)");
			ASSERT_STREQ(d[0].func_names[0], "kt_sock_main", "func[0]'s name");
			ASSERT_EQ(d[0].tag[0], 0x11, "the program's tag for its BPF_EVENT");
		}
		for (i = 0; i < n; i++)
			kt_prog_desc_free(&d[i]);
		free(d);
		unit_end();
	}
}

int main(void)
{
	test_new_kernel();
	test_func0_listed();
	return unit_exit();
}
