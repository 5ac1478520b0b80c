/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What `resolve`, `kallsyms` and `symbolize` share: a record file's history,
 * and addresses and times as users write them. */
#ifndef KT_RESOLVE_H
#define KT_RESOLVE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "history.h"

/* The history of a ksymtap record file.  -errno with why. */
int kt_history_load(struct kt_history *h, const char *path, char *why, size_t why_size);
/* A kernel address: hex, with or without 0x.  -EINVAL. */
int kt_parse_addr(const char *s, size_t len, __u64 *addr);
/* A time on perf's clock: nanoseconds ("123456789"), seconds as perf script
 * and dmesg print them ("12.345678"), or "now" (= now).  -EINVAL. */
int kt_parse_time(const char *s, __u64 now, __u64 *t);
/* The options resolve, kallsyms and symbolize share (-i FILE, -t TIME). */
struct kt_history_opts {
	const char *in;
	const char *at;
};
/* clang-format off */
#define KT_HISTORY_LONGOPTS                                                         \
	{ "input", required_argument, NULL, 'i' },                                  \
	{ "at", required_argument, NULL, 't' },                                     \
	{ "help", no_argument, NULL, 'h' },                                         \
	{ NULL, 0, NULL, 0 }
/* clang-format on */
/* A struct kt_cmd's opt callback for them (ctx: struct kt_history_opts). */
int kt_history_opt(void *ctx, int opt, const char *arg);
/* FILE's history and the time of --at (default: the end of FILE).  0, or
 * the exit status after one error line. */
int kt_history_setup(const struct kt_history_opts *o, const char *cmd, struct kt_history *h,
		     __u64 *t);

/* "NAME+0xOFF/0xLEN [MODULE]" (the kernel's %pS), or "[unknown]" for NULL. */
int kt_format_sym(char *buf, size_t size, const struct kt_hsym *s, __u64 addr);

#endif
