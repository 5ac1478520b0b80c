/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Answers: what covered an address at a time, in each format, for serve's
 * query (serve/query.c) and the lookups of `resolve`, `symbolize` and
 * `kallsyms --at` (run/lookup.c).  docs/serve.md gives the forms.
 */
#ifndef KT_ENCODE_ANSWER_H
#define KT_ENCODE_ANSWER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "record/hsym.h"

/* "NAME+0xOFF/0xLEN [MODULE]" (the kernel's %pS), or "[unknown]" for no s;
 * NUL-terminated.  Its length, or -ENOSPC. */
int kt_answer_text(char *buf, size_t size, const struct kt_hsym *s, __u64 addr);
/* One JSON object and a newline: addr, the time asked (KT_HIST_NOW: "now"),
 * and s's fields, or "name":null.  wall_off: perf's clock to the wall
 * clock's, for birth_wall and death_wall (0: unknown, null).  Its length,
 * or -ENOSPC. */
ssize_t kt_answer_json(char *buf, size_t size, __u64 addr, __u64 t, const struct kt_hsym *s,
		       __s64 wall_off);
/* A PERF_RECORD_KSYMBOL without a trailer: s, or (unknown) addr with len
 * 0 and an empty name.  Its length, or -ENOSPC. */
ssize_t kt_answer_raw(void *buf, size_t size, __u64 addr, const struct kt_hsym *s);
/* An error answer: {"error":WHY} or "error: WHY", and a newline. */
ssize_t kt_answer_error(char *buf, size_t size, bool json, const char *why);

#endif
