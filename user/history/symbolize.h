/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What `ksymtap symbolize` reads in text: the time a line gives (dmesg's
 * "[seconds]", perf script's sample line) and the kernel addresses in it. */
#ifndef KT_SYMBOLIZE_H
#define KT_SYMBOLIZE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>

/* "[  12.345678] ...": printk's time stamp (local_clock(), perf's clock). */
bool kt_dmesg_time(const char *line, __u64 *t);
/* perf script's sample line "comm pid [cpu] 12.345678: ..." (its frames are
 * the lines that start with a tab). */
bool kt_perf_script_time(const char *line, __u64 *t);
/* What held addr at t: 1 with its name in buf, 0 nothing, < 0 stop. */
typedef int (*kt_name_fn)(void *ctx, __u64 addr, __u64 t, char *buf, size_t size);
/* Copy line to out, naming each kernel address (8 to 16 hex digits, 0x
 * optional, not part of a word) that name() names at t: " NAME+0xOFF/0xLEN
 * [MODULE]" after it (after "[<...>]"), replacing a " [unknown]".  0, or
 * name()'s error (the rest of the line is copied as it is). */
int kt_symbolize_line(kt_name_fn name, void *ctx, const char *line, __u64 t, FILE *out);

#endif
