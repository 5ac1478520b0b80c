/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What `resolve`, `kallsyms`, `symbolize` and the serve query share: a record
 * file's history, and addresses and times as users write them. */
#ifndef KT_RESOLVE_H
#define KT_RESOLVE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "history/history.h"
#include "history/otlp_in.h"

/* The history of a ksymtap record file, or of one node of an OTLP/JSON file
 * (sel chooses it; docs/otlp.md).  -errno with why. */
int kt_history_load(struct kt_history *h, const char *path, const struct kt_otlp_select *sel,
		    char *why, size_t why_size);
/* A kernel address: hex, with or without 0x.  -EINVAL. */
int kt_parse_addr(const char *s, size_t len, __u64 *addr);
/* A time on perf's clock: nanoseconds ("123456789"), seconds as perf script
 * and dmesg print them ("12.345678"), or "now" (= now).  -EINVAL. */
int kt_parse_time(const char *s, __u64 now, __u64 *t);

#endif
