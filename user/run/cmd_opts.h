/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one option loop of every command (bpftool's do_<cmd>() style): a
 * command describes its options and says what its own ones mean; the loop
 * does the rest the same way everywhere (shared options, --help, the usage
 * line, stray arguments).
 */
#ifndef KT_CMD_OPTS_H
#define KT_CMD_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include "run/cli.h"
#include "run/options.h"

enum kt_cmd_args {
	KT_ARGS_NONE, /* no positional argument */
	KT_ARGS_CMD, /* the rest is CMD and its arguments ("+": its options stay its own) */
	KT_ARGS_CMD_AFTER_DASHDASH, /* the same, but only after "--" */
};

struct kt_cmd {
	const char *name; /* "stream": for "Try 'ksymtap stream --help'." */
	/* Its options, declared once (user/cmd/options.c): getopt's tables
	 * and --help's list are made from them. */
	const struct kt_optdef *opts;
	/* --help: usage, the options, then more (exit status, examples). */
	const char *usage;
	const char *more;
	enum kt_cmd_args args;
	/* Called first for every option: 1 handled, 0 not the command's own
	 * (the shared kt_common_opt() then), -1 a bad value or an option this
	 * command refuses (it printed one line).  NULL: none of its own. */
	int (*opt)(void *ctx, int opt, const char *arg);
	void *ctx;
};

/* The whole --help of cmd on stdout. */
void kt_cmd_help(const struct kt_cmd *cmd);

/*
 * Parse argv for cmd into c (kt_common_init() first).  Returns -1 and sets
 * *status when the command is to exit now (KT_EXIT_OK after --help,
 * KT_EXIT_USAGE after one printed line), else the index of the first
 * positional argument.
 */
int kt_cmd_parse(const struct kt_cmd *cmd, struct kt_common *c, int argc, char **argv, int *status);

struct kt_pipeline;
struct kt_output_sink;
/* What stream and snapshot begin with: kt_common_init(), kt_cmd_parse(),
 * and the pipeline to stdout in the chosen format.  -1 with *status set
 * when the command is to exit now (--help, a bad option, no memory). */
int kt_cmd_start_stdout(const struct kt_cmd *cmd, struct kt_common *c, int argc, char **argv,
			struct kt_pipeline *p, struct kt_output_sink *out, int *status);

#endif
