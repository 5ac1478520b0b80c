// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The preemption model's sources (user/backend/preempt.h), as each kernel
 * line writes them (docs/kernel-facts.md). */
#include "backend/preempt.h"
#include "unit.h"

static void test_debugfs(void)
{
	char b[32];

	if (unit_start("preempt_debugfs")) {
		ASSERT_STREQ(kt_preempt_debugfs_mode("none voluntary full (lazy) \n", b, sizeof(b)),
			     "lazy", "6.18");
		ASSERT_STREQ(kt_preempt_debugfs_mode("none (voluntary) full\n", b, sizeof(b)),
			     "voluntary", "6.12");
		ASSERT_STREQ(kt_preempt_debugfs_mode("full (lazy)\n", b, sizeof(b)), "lazy", "7.3");
		ASSERT_TRUE(!kt_preempt_debugfs_mode("none voluntary full\n", b, sizeof(b)),
			    "no choice marked");
		ASSERT_TRUE(!kt_preempt_debugfs_mode("()", b, sizeof(b)), "empty");
		unit_end();
	}
}

static void test_cmdline(void)
{
	char b[32];

	if (unit_start("preempt_cmdline")) {
		ASSERT_STREQ(kt_preempt_cmdline_mode("quiet preempt=full panic=-1\n", b, sizeof(b)),
			     "full", "middle");
		ASSERT_STREQ(kt_preempt_cmdline_mode("preempt=none", b, sizeof(b)), "none",
			     "first");
		ASSERT_TRUE(!kt_preempt_cmdline_mode("nopreempt=full quiet", b, sizeof(b)),
			    "another option's suffix");
		ASSERT_TRUE(!kt_preempt_cmdline_mode("console=ttyS0 quiet\n", b, sizeof(b)),
			    "none given");
		unit_end();
	}
}

static void test_uname(void)
{
	if (unit_start("preempt_uname")) {
		ASSERT_STREQ(
			kt_preempt_uname_mode(
				"#1 SMP PREEMPT_DYNAMIC Debian 6.18.15-1~bpo13+1 (2026-03-12)"),
			"PREEMPT_DYNAMIC", "Debian");
		ASSERT_STREQ(kt_preempt_uname_mode("#1 SMP PREEMPT_RT Debian 6.12.1-1"),
			     "PREEMPT_RT", "-rt flavour");
		ASSERT_STREQ(kt_preempt_uname_mode("#1 SMP PREEMPT Tue Jan 2"), "PREEMPT",
			     "CONFIG_PREEMPT");
		ASSERT_TRUE(!kt_preempt_uname_mode("#1 SMP Debian 5.10.237-1"), "5.10");
		unit_end();
	}
}

int main(void)
{
	test_debugfs();
	test_cmdline();
	test_uname();
	return unit_exit();
}
