/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Minimal host test harness in the spirit of the BPF selftests' test_progs.h:
 * named assertions print actual vs expected and return bool; each test case
 * prints one PASS/FAIL/SKIP line; the binary exits non-zero if any failed.
 *
 *	if (unit_start("case_name")) {
 *		ASSERT_EQ(...);
 *		unit_end();
 *	}
 *
 * A case runs only if its name (or "binary/case") matches the extended
 * regex in KT_UNIT_ONLY (tests/run.sh --only), or if that is unset.  Each
 * case sets up what it needs: none relies on an earlier one having passed.
 */
#ifndef KT_UNIT_H
#define KT_UNIT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Start a case: true if it is to run. */
bool unit_start(const char *name);
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

/* On a difference: the first differing offset and the bytes there. */
#define ASSERT_MEMEQ(actual, expected, len, what)                                        \
	({                                                                               \
		const unsigned char *___a = (const void *)(actual),                      \
				    *___e = (const void *)(expected);                    \
		size_t ___n = (len), ___i = 0;                                           \
		while (___i < ___n && ___a[___i] == ___e[___i])                          \
			___i++;                                                          \
		if (___i < ___n)                                                         \
			unit_failf(__FILE__, __LINE__,                                   \
				   "%s: bytes differ at offset %zu of %zu: got 0x%02x, " \
				   "expected 0x%02x",                                    \
				   what, ___i, ___n, ___a[___i], ___e[___i]);            \
		___i == ___n;                                                            \
	})

/* haystack contains needle; prints both if not. */
#define ASSERT_STRSTR(haystack, needle, what)                                         \
	({                                                                            \
		const char *___h = (haystack), *___s = (needle);                      \
		bool ___ok = ___h && strstr(___h, ___s);                              \
		if (!___ok)                                                           \
			unit_failf(__FILE__, __LINE__,                                \
				   "%s:\n    got      '%s'\n    lacks    '%s'", what, \
				   ___h ? ___h : "(null)", ___s);                     \
		___ok;                                                                \
	})

/* A KSYMBOL record of a BPF program (the history's and inject's tests). */
#ifdef KT_RECORD_H
#include <linux/perf_event.h>
static inline struct kt_record unit_ksym(__u64 t, __u64 addr, __u32 len, bool unreg,
					 const char *name)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_KSYMBOL;
	r.time = t;
	r.addr = addr;
	r.len = len;
	r.ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF;
	r.source = KT_SRC_BPF_PROG;
	r.flags = unreg ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0;
	snprintf(r.name, sizeof(r.name), "%s", name);
	return r;
}
#endif

#endif
