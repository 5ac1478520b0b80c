// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The option tables (user/cmd/options.c) and what is made from them
 * (user/run/options.c): a letter or long name twice in one command would
 * leave one of the two options unreachable without a word from getopt.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include "cmd/options.h"
#include "unit.h"

static void test_no_option_twice(void)
{
	const struct kt_cmd_optdefs *c;
	const struct kt_optdef *a, *b, *oa, *ob;
	char what[160];

	if (!unit_start("options_none_twice"))
		return;
	for (c = kt_cmd_optdefs; c->name; c++) {
		for (a = c->opts; a->code || a->use; a++) {
			oa = kt_optdef_of(a);
			snprintf(what, sizeof(what), "%s --%s: a name and a code", c->name,
				 oa->name ? oa->name : "?");
			ASSERT_TRUE(oa->name && oa->code, what);
			for (b = a + 1; b->code || b->use; b++) {
				ob = kt_optdef_of(b);
				snprintf(what, sizeof(what), "%s: --%s and --%s", c->name, oa->name,
					 ob->name);
				ASSERT_TRUE(oa->code != ob->code && strcmp(oa->name, ob->name),
					    what);
			}
		}
	}
	unit_end();
}

static void test_getopt_tables(void)
{
	static const struct kt_optdef opts[] = {
		KT_OPT('o', "output", "FILE", "where"),
		KT_OPT(OPT_CMD_FIRST_FREE, "force", NULL, "force it"),
		KT_OPT_USE(kt_opt_verbose),
		KT_OPT_REFUSED('f', "format"),
		KT_OPT_END,
	};
	struct option lo[8];
	char so[16];

	if (!unit_start("options_getopt_tables"))
		return;
	ASSERT_EQ(kt_opts_getopt(opts, 1, so, sizeof(so), lo, 8), 0, "built");
	ASSERT_STREQ(so, "+o:vf:", "short options: '+' first, ':' after an argument");
	ASSERT_STREQ(lo[1].name, "force", "long-only option");
	ASSERT_EQ(lo[1].has_arg, no_argument, "--force takes none");
	ASSERT_EQ(lo[1].val, OPT_CMD_FIRST_FREE, "its code");
	ASSERT_STREQ(lo[2].name, "verbose", "a shared option by its entry");
	ASSERT_EQ(lo[3].has_arg, required_argument, "a refused option still parses");
	ASSERT_TRUE(lo[4].name == NULL, "NULL-terminated");
	ASSERT_EQ(kt_opts_getopt(opts, 0, so, sizeof(so), lo, 4), -ENOSPC, "too few entries");
	ASSERT_EQ(kt_opts_getopt(opts, 0, so, 4, lo, 8), -ENOSPC, "too short a string");
	unit_end();
}

/* --help: wrapped within 79 columns, the help at column 23, the refused
 * option left out. */
static void test_help_layout(void)
{
	static const struct kt_optdef opts[] = {
		KT_OPT('d', "duration", "SEC", "stop after SEC seconds"),
		KT_OPT(OPT_CMD_FIRST_FREE, "metrics-listen", "[ADDR:]PORT",
		       "answer GET /metrics over HTTP on ADDR (numeric; [V6ADDR] for IPv6) and "
		       "PORT; ADDR 127.0.0.1 if left out"),
		KT_OPT_REFUSED('b', "backend"),
		KT_OPT_END,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!unit_start("options_help_layout"))
		return;
	f = open_memstream(&buf, &len);
	kt_opts_print_help(f, opts);
	fclose(f);
	ASSERT_STREQ(
		buf,
		"  -d, --duration SEC   stop after SEC seconds\n"
		"      --metrics-listen [ADDR:]PORT\n"
		"                       answer GET /metrics over HTTP on ADDR (numeric; [V6ADDR]\n"
		"                       for IPv6) and PORT; ADDR 127.0.0.1 if left out\n",
		"--help lines");
	free(buf);
	unit_end();
}

/* The man page's list: scdoc's markup characters in a text are escaped. */
static void test_scdoc(void)
{
	static const struct kt_optdef opts[] = {
		KT_OPT('s', "socket", "PATH", "where to listen"),
		KT_OPT(OPT_CMD_FIRST_FREE, "disable-hook", "NAME", "e.g. bpf_ksym_add or *"),
		KT_OPT_REFUSED('b', "backend"),
		KT_OPT_END,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!unit_start("options_scdoc"))
		return;
	f = open_memstream(&buf, &len);
	kt_opts_print_scdoc(f, opts);
	fclose(f);
	ASSERT_STREQ(buf,
		     "*-s*, *--socket* _PATH_\n\twhere to listen\n\n"
		     "*--disable-hook* _NAME_\n\te.g. bpf\\_ksym\\_add or \\*\n",
		     "scdoc list");
	free(buf);
	unit_end();
}

/* Every command's --help fits 79 columns. */
static void test_help_width(void)
{
	const struct kt_cmd_optdefs *c;
	char *buf, *line, *save;
	char what[200];
	size_t len;
	FILE *f;

	if (!unit_start("options_help_width"))
		return;
	for (c = kt_cmd_optdefs; c->name; c++) {
		buf = NULL;
		f = open_memstream(&buf, &len);
		kt_opts_print_help(f, c->opts);
		fclose(f);
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			snprintf(what, sizeof(what), "%s: '%.60s...' within 79 columns", c->name,
				 line);
			ASSERT_TRUE(strlen(line) <= 79, what);
		}
		free(buf);
	}
	unit_end();
}

int main(void)
{
	test_no_option_twice();
	test_getopt_tables();
	test_help_layout();
	test_scdoc();
	test_help_width();
	return unit_exit();
}
