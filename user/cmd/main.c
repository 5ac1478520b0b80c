// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap: a tap on the kernel's dynamic symbols. */
#include <stdio.h>
#include <string.h>
#include "cmd/builtin.h"
#include "run/cli.h"
#include "util/log.h"
#include "version.h"

static const char main_help[] =
	"Usage: ksymtap [COMMAND] [OPTIONS]\n"
	"\n"
	"ksymtap reports code the kernel makes at run time (JITed BPF programs and\n"
	"subprograms, BPF trampolines and dispatchers, ftrace trampolines, kprobe\n"
	"instruction pages) as PERF_RECORD_KSYMBOL / PERF_RECORD_BPF_EVENT records,\n"
	"from its own CO-RE BPF programs, with or without a perf listener.\n"
	"\n"
	"Commands:\n"
	"  stream     print records as they happen (the default command)\n"
	"  compare    run ksymtap's BPF side and the kernel's own records together\n"
	"             and match them record by record\n"
	"  serve      daemon: the table, live records and queries for Unix socket\n"
	"             clients\n"
	"  tail       a serve client: print what the daemon sends\n"
	"  snapshot   print what exists now and exit\n"
	"  record     write them to a perf.data file (or perf's pipe format)\n"
	"  inject     add a record file's symbols to perf's own perf.data\n"
	"  resolve    name addresses as they were at a time, from a record file or\n"
	"             a serve daemon\n"
	"  kallsyms   the symbols of a moment, as /proc/kallsyms (the same sources)\n"
	"  symbolize  name dynamic-code addresses in dmesg or perf script text\n"
	"  disasm     the machine code and BPF source lines that covered an address\n"
	"             at a time, from a record file\n"
	"  report     run perf report or perf script so that it keeps what inject\n"
	"             added (perf as root drops it for /proc/kcore)\n"
	"  help       this text (also -h, --help)\n"
	"  version    the version (also -V, --version)\n"
	"\n"
	"Run 'ksymtap COMMAND --help' for a command's options.  -v says why each\n"
	"hook is on or off, -vv adds libbpf's debug output and timed start-up\n"
	"steps.\n";

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct cmd cmds[] = {
	{ "stream", cmd_stream },	{ "compare", cmd_compare },   { "serve", cmd_serve },
	{ "tail", cmd_tail },		{ "snapshot", cmd_snapshot }, { "record", cmd_record },
	{ "inject", cmd_inject },	{ "resolve", cmd_resolve },   { "kallsyms", cmd_kallsyms },
	{ "symbolize", cmd_symbolize }, { "report", cmd_report },     { "disasm", cmd_disasm },
};

int main(int argc, char **argv)
{
	size_t i;

	setvbuf(stderr, NULL, _IOLBF, 0);
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") ||
			  !strcmp(argv[1], "version"))) {
		printf("ksymtap %s\n", KT_VERSION);
		return KT_EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			printf("%s", main_help);
			return KT_EXIT_OK;
		}
		return cmd_stream(argc, argv);
	}
	if (!strcmp(argv[1], "help")) {
		printf("%s", main_help);
		return KT_EXIT_OK;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	kt_err("unknown command '%s' (try 'ksymtap --help')", argv[1]);
	return KT_EXIT_USAGE;
}
