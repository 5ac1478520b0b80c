// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * gen_options CMD <ksymtap-CMD.8.scd >page.scd: a man page with its
 * "@OPTIONS@" line replaced by CMD's options, from the table the command
 * parses and prints --help from (user/cmd/options.c).  CMD "" copies a page
 * that lists no options (ksymtap.8).  Built with the host's compiler by
 * make man, also when ksymtap is cross-built.
 */
#include <stdio.h>
#include <string.h>
#include "cmd/options.h"

int main(int argc, char **argv)
{
	const struct kt_cmd_optdefs *c = kt_cmd_optdefs;
	char line[4096];
	int done = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_options CMD <page.scd\n");
		return 2;
	}
	while (c->name && strcmp(c->name, argv[1]))
		c++;
	if (argv[1][0] && !c->name) {
		fprintf(stderr, "gen_options: no command '%s' in user/cmd/options.c\n", argv[1]);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		if (strcmp(line, "@OPTIONS@\n")) {
			fputs(line, stdout);
			continue;
		}
		if (!argv[1][0] || done) {
			fprintf(stderr, "gen_options: '@OPTIONS@' where it has no place\n");
			return 1;
		}
		kt_opts_print_scdoc(stdout, c->opts);
		done = 1;
	}
	if (argv[1][0] && !done) {
		fprintf(stderr, "gen_options: the page of '%s' has no '@OPTIONS@' line\n", argv[1]);
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
