/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Every command's options, declared once (options.c; run/options.h says
 * what is made from them). */
#ifndef KT_CMD_OPTIONS_H
#define KT_CMD_OPTIONS_H

#include "run/options.h"

/* Codes of the long-only options one command has. */
enum {
	OPT_GRACE = OPT_CMD_FIRST_FREE, /* compare */
	OPT_FORCE, /* inject */
	OPT_SNAPSHOT, /* tail */
	OPT_NO_CODE, /* record, serve */
	OPT_CODE_SIZE, /* serve */
	OPT_FROM, /* disasm */
	OPT_SOCKET_MODE, /* serve, to the end */
	OPT_SOCKET_GROUP,
	OPT_CLIENT_QUEUE,
	OPT_MAX_CLIENTS,
	OPT_HISTORY,
	OPT_HISTORY_AGE,
	OPT_METRICS_FILE,
	OPT_METRICS_INTERVAL,
	OPT_METRICS_LISTEN,
};

extern const struct kt_optdef kt_opts_stream[], kt_opts_snapshot[], kt_opts_record[],
	kt_opts_inject[], kt_opts_resolve[], kt_opts_kallsyms[], kt_opts_symbolize[],
	kt_opts_disasm[], kt_opts_compare[], kt_opts_serve[], kt_opts_tail[], kt_opts_report[];

/* Each command's name and table, for the man pages (docs/man/gen_options.c). */
struct kt_cmd_optdefs {
	const char *name;
	const struct kt_optdef *opts;
};
extern const struct kt_cmd_optdefs kt_cmd_optdefs[];

#endif
