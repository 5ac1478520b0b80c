/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Minimal host test harness in the spirit of the BPF selftests' test_progs.h:
 * named assertions print actual vs expected and return bool; each test case
 * prints one PASS/FAIL/SKIP line; the binary exits non-zero if any failed.
 */
#ifndef KT_UNIT_H
#define KT_UNIT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void unit_start(const char *name);
void unit_skip(const char *why);
/* Record a failure of the current case (printed at the end of the case). */
void unit_failf(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Close the current case: prints PASS, FAIL (with reasons) or SKIP. */
void unit_end(void);
int unit_exit(void);

#define ASSERT_TRUE(cond, what)                                                    \
	({                                                                         \
		bool ___ok = (cond);                                               \
		if (!___ok)                                                        \
			unit_failf(__FILE__, __LINE__, "%s: expected true", what); \
		___ok;                                                             \
	})

#define ASSERT_EQ(actual, expected, what)                                                         \
	({                                                                                        \
		long long ___a = (long long)(actual), ___e = (long long)(expected);               \
		bool ___ok = ___a == ___e;                                                        \
		if (!___ok)                                                                       \
			unit_failf(__FILE__, __LINE__, "%s: got %lld, expected %lld", what, ___a, \
				   ___e);                                                         \
		___ok;                                                                            \
	})

#define ASSERT_STREQ(actual, expected, what)                                          \
	({                                                                            \
		const char *___a = (actual), *___e = (expected);                      \
		bool ___ok = ___a && !strcmp(___a, ___e);                             \
		if (!___ok)                                                           \
			unit_failf(__FILE__, __LINE__,                                \
				   "%s:\n    got      '%s'\n    expected '%s'", what, \
				   ___a ? ___a : "(null)", ___e);                     \
		___ok;                                                                \
	})

#define ASSERT_MEMEQ(actual, expected, len, what)                                 \
	({                                                                        \
		bool ___ok = !memcmp((actual), (expected), (len));                \
		if (!___ok)                                                       \
			unit_failf(__FILE__, __LINE__, "%s: bytes differ", what); \
		___ok;                                                            \
	})

#endif
