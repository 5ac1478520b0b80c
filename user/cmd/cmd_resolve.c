// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap resolve: what held an address at a time, from a record file, an
 * OTLP file or a daemon. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "util/log.h"
#include "run/lookup.h"
#include "history/resolve.h"

static const char resolve_help[] =
	"Usage: ksymtap resolve (-i FILE | -s SOCKET) [-t|--at TIME] [ADDR...]\n"
	"\n"
	"Name kernel addresses in dynamic code as it was at a given time, from the\n"
	"history a 'ksymtap record' FILE holds, or a running 'ksymtap serve' daemon\n"
	"keeps (-s): every symbol with its extent, its birth and its death.  FILE may\n"
	"also be OTLP logs ksymtap exported, as a collector stored them (one node's,\n"
	"--host/--boot; docs/otlp.md): the answers are the node's own.  One line\n"
	"out per address, as the kernel's %pS:\n"
	"\n"
	"  ADDR NAME+0xOFF/0xLEN [MODULE]     a symbol held ADDR at TIME\n"
	"  ADDR [unknown]                     nothing did\n"
	"\n"
	"An address is only ever named by a symbol whose [addr, addr+len) held it at\n"
	"that time: never guessed from the nearest lower symbol, so code unloaded\n"
	"since, or an address a later program reused, gets its own name.\n"
	"\n"
	"Addresses come from the arguments, or from stdin one per line, optionally\n"
	"followed by a time ('ADDR TIME').  TIME is nanoseconds on perf's clock (the\n"
	"time of ksymtap's records), seconds as perf script and dmesg print them\n"
	"(12.345678), or now: the end of FILE, or the daemon's present (the default).\n"
	"\n"
	"Options:\n";

static const char resolve_more[] =
	"\n"
	"Exit status: 0 every line answered (unknown is an answer), 1 a line that\n"
	"is not an address or time (one error line each; the others are still\n"
	"answered), a FILE that cannot be read or a daemon that is gone, 2 usage.\n"
	"\n"
	"Examples:\n"
	"  ksymtap resolve -i ksym.data ffffffffc0001234\n"
	"  ksymtap resolve -i ksym.data --at 12.345678 0xffffffffc0001234\n"
	"  ksymtap resolve -s /run/ksymtap.sock ffffffffc0001234\n"
	"  ksymtap resolve -i otlp.jsonl --host node7 --at 812.5 ffffffffc0001234\n"
	"  perf script -F time,ip | awk ... | ksymtap resolve -i ksym.data\n";

static const struct kt_cmd resolve_cmd = {
	.name = "resolve",
	.opts = kt_opts_resolve,
	.usage = resolve_help,
	.more = resolve_more,
	.args = KT_ARGS_CMD,
};

/* One address: its line on stdout, or one error line.  0, 1 a bad
 * address, -errno a daemon gone. */
static int answer(struct kt_lookup *l, const char *tok, size_t len, __u64 t)
{
	char sym[KT_NAME_MAX + 64];
	__u64 addr;
	int n;

	if (kt_parse_addr(tok, len, &addr)) {
		kt_err("'%.*s' is not an address (hex, 0x optional)", (int)len, tok);
		return 1;
	}
	n = kt_lookup_name(l, addr, t, sym, sizeof(sym));
	if (n < 0)
		return n;
	printf("%.*s %s\n", (int)len, tok, n ? sym : "[unknown]");
	return 0;
}

static int from_stdin(struct kt_lookup *l, __u64 t_default)
{
	char *line = NULL, *p, *addr, *when;
	size_t cap = 0;
	int bad = 0, err;
	__u64 t;

	while (getline(&line, &cap, stdin) > 0) {
		p = line;
		addr = strtok_r(p, " \t\r\n", &p);
		if (!addr)
			continue;
		when = strtok_r(NULL, " \t\r\n", &p);
		t = t_default;
		if (when && kt_parse_time(when, l->now, &t)) {
			kt_err("'%s' is not a time (ns, seconds.fraction or now)", when);
			bad = 1;
			continue;
		}
		err = answer(l, addr, strlen(addr), t);
		if (err < 0) {
			bad = 1;
			break;
		}
		bad |= err;
		fflush(stdout);
	}
	free(line);
	return bad;
}

int cmd_resolve(int argc, char **argv)
{
	struct kt_lookup l;
	int first, i, err, status, bad = 0;
	__u64 t;

	first = kt_lookup_start(&resolve_cmd, argc, argv, &l, &t, &status);
	if (first >= 0 && first < argc) {
		for (i = first; i < argc; i++) {
			err = answer(&l, argv[i], strlen(argv[i]), t);
			bad |= err != 0;
			if (err < 0)
				break;
		}
		status = bad ? KT_EXIT_FAIL : KT_EXIT_OK;
	} else if (first >= 0) {
		status = from_stdin(&l, t) ? KT_EXIT_FAIL : KT_EXIT_OK;
	}
	kt_lookup_fini(&l);
	return status;
}
