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
#include "run/cmd_opts.h"

struct kt_lookup {
	struct kt_history h; /* -i */
	const char *sock; /* -s: the daemon's socket, NULL for -i */
	int fd;
	FILE *rd;
	__u64 now; /* what "now" is: the end of FILE, or KT_HIST_NOW */
};

/*
 * The three commands' one start: parse argv with their shared options (-i
 * FILE, -s SOCKET, -t TIME, -h), open FILE or SOCKET and parse --at into *t
 * (default: now).  cmd is the command's name, options (its -i, -s, -t and
 * -h), help and operands; its opt and ctx are the lookup's own.  Returns the index of the first operand, or -1 with *status the
 * exit status (after --help, or after one error line).  kt_lookup_fini()
 * either way.
 */
int kt_lookup_start(const struct kt_cmd *cmd, int argc, char **argv, struct kt_lookup *l, __u64 *t,
		    int *status);
void kt_lookup_fini(struct kt_lookup *l);
/* What held addr at t: 1 with "NAME+0xOFF/0xLEN [MODULE]" in buf, 0 nothing
 * did, -errno when the daemon is gone (one error line said why). */
int kt_lookup_name(struct kt_lookup *l, __u64 addr, __u64 t, char *buf, size_t size);
/* The symbols alive at t as /proc/kallsyms lines on out: 0 or the exit
 * status after one error line. */
int kt_lookup_kallsyms(struct kt_lookup *l, __u64 t, FILE *out);

#endif
