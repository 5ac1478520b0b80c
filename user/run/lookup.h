/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where resolve, kallsyms and symbolize get names from: the history of a
 * 'ksymtap record' file (-i FILE), or a running daemon's (-s SOCKET, the
 * query of docs/serve.md).  Either way the answer is the same: what held
 * an address at a time, in the kernel's %pS style.
 */
#ifndef KT_LOOKUP_H
#define KT_LOOKUP_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#include "history/history.h"

/* The options the three commands share. */
struct kt_lookup_opts {
	const char *in; /* -i FILE */
	const char *sock; /* -s SOCKET */
	const char *at; /* -t TIME */
};
/* clang-format off */
#define KT_LOOKUP_SHORTOPTS "i:s:t:h"
#define KT_LOOKUP_LONGOPTS                                                          \
	{ "input", required_argument, NULL, 'i' },                                  \
	{ "socket", required_argument, NULL, 's' },                                 \
	{ "at", required_argument, NULL, 't' },                                     \
	{ "help", no_argument, NULL, 'h' },                                         \
	{ NULL, 0, NULL, 0 }
/* clang-format on */
/* A struct kt_cmd's opt callback for them (ctx: struct kt_lookup_opts). */
int kt_lookup_opt(void *ctx, int opt, const char *arg);

struct kt_lookup {
	struct kt_history h; /* -i */
	const char *sock; /* -s: the daemon's socket, NULL for -i */
	int fd;
	FILE *rd;
	__u64 now; /* what "now" is: the end of FILE, or KT_HIST_NOW */
};

/* Open FILE or SOCKET and parse --at (default: now).  0, or the exit status
 * after one error line. */
int kt_lookup_setup(const struct kt_lookup_opts *o, const char *cmd, struct kt_lookup *l, __u64 *t);
void kt_lookup_fini(struct kt_lookup *l);
/* What held addr at t: 1 with "NAME+0xOFF/0xLEN [MODULE]" in buf, 0 nothing
 * did, -errno when the daemon is gone (one error line said why). */
int kt_lookup_name(struct kt_lookup *l, __u64 addr, __u64 t, char *buf, size_t size);
/* The symbols alive at t as /proc/kallsyms lines on out: 0 or the exit
 * status after one error line. */
int kt_lookup_kallsyms(struct kt_lookup *l, __u64 t, FILE *out);

#endif
