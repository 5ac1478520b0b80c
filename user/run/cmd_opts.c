// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>
#include "run/cmd_opts.h"
#include "sink/output.h"
#include "util/log.h"

void kt_cmd_help(const struct kt_cmd *cmd)
{
	fputs(cmd->usage, stdout);
	kt_opts_print_help(stdout, cmd->opts);
	if (cmd->more)
		fputs(cmd->more, stdout);
}

int kt_cmd_parse(const struct kt_cmd *cmd, struct kt_common *c, int argc, char **argv, int *status)
{
	struct option longopts[48];
	char shortopts[64];
	int opt, r;

	if (kt_opts_getopt(cmd->opts, cmd->args != KT_ARGS_NONE, shortopts, sizeof(shortopts),
			   longopts, sizeof(longopts) / sizeof(longopts[0]))) {
		kt_err("%s: too many options for the option parser's tables", cmd->name);
		*status = KT_EXIT_FAIL;
		return -1;
	}
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		r = cmd->opt ? cmd->opt(cmd->ctx, opt, optarg) : 0;
		if (!r && c)
			r = kt_common_opt(c, opt, optarg);
		if (r < 0)
			goto usage;
		if (r)
			continue;
		if (opt == 'h') {
			kt_cmd_help(cmd);
			*status = KT_EXIT_OK;
			return -1;
		}
		fprintf(stderr, "Try 'ksymtap %s --help'.\n", cmd->name);
		goto usage;
	}
	if (optind < argc && cmd->args == KT_ARGS_NONE) {
		kt_err("unexpected argument '%s' (try 'ksymtap %s --help')", argv[optind],
		       cmd->name);
		goto usage;
	}
	if (optind < argc && cmd->args == KT_ARGS_CMD_AFTER_DASHDASH &&
	    strcmp(argv[optind - 1], "--")) {
		kt_err("unexpected argument '%s' (a command goes after --)", argv[optind]);
		goto usage;
	}
	return optind;
usage:
	*status = KT_EXIT_USAGE;
	return -1;
}

int kt_cmd_start_stdout(const struct kt_cmd *cmd, struct kt_common *c, int argc, char **argv,
			struct kt_pipeline *p, struct kt_output_sink *out, int *status)
{
	kt_common_init(c);
	if (kt_cmd_parse(cmd, c, argc, argv, status) < 0)
		return -1;
	if (kt_stdout_pipeline(p, out, c->fmt)) {
		kt_err("out of memory");
		*status = KT_EXIT_FAIL;
		return -1;
	}
	return 0;
}
