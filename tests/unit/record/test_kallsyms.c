// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Core-kernel function ranges from a kallsyms file. */
#include <stdlib.h>
#include <unistd.h>
#include "record/kallsyms.h"
#include "unit.h"

static void test_ranges(void)
{
	static const char *const names[] = { "alloc_insn_page", "absent",
					     "arch_ftrace_update_trampoline" };
	char path[] = "/tmp/kt_kallsymsXXXXXX";
	struct kt_range r[3];
	FILE *f;
	int fd, n;

	if (unit_start("kallsyms_func_ranges_core_only")) {
		fd = mkstemp(path);
		f = fdopen(fd, "w");
		fputs("ffffffff81000000 T _stext\n"
		      "ffffffff81000100 t arch_ftrace_update_trampoline\n"
		      "ffffffff81000100 t arch_ftrace_update_trampoline_alias\n"
		      "ffffffff81000240 T alloc_insn_page\n"
		      "ffffffff81000260 d some_data\n"
		      "ffffffff81000300 T next_fn\n"
		      /* Past the core kernel: never part of a core range. */
		      "ffffffff81000200 t inside_but_module\t[mod]\n"
		      "ffffffff81000250 t bpf_prog_0123456789abcdef_x\t[bpf]\n",
		      f);
		fclose(f);
		n = kt_kallsyms_func_ranges(path, names, 3, r);
		unlink(path);
		ASSERT_EQ(n, 2, "found");
		ASSERT_EQ(r[0].start, 0xffffffff81000240ULL, "alloc_insn_page start");
		ASSERT_EQ(r[0].end, 0xffffffff81000260ULL,
			  "alloc_insn_page end (next symbol of any type)");
		ASSERT_EQ(r[1].start, 0, "absent start");
		ASSERT_EQ(r[2].start, 0xffffffff81000100ULL, "arch_ftrace_update_trampoline start");
		ASSERT_EQ(r[2].end, 0xffffffff81000240ULL, "end skips aliases and module lines");
		unit_end();
	}
}

int main(void)
{
	test_ranges();
	return unit_exit();
}
