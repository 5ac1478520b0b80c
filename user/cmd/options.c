// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every command's options, declared once, in the order --help and the man
 * page list them.  A shared option is the same entry everywhere
 * (KT_OPT_USE); an option that means something else to one command is
 * declared in that command's table.  libc only (run/options.h says why).
 */
#include "cmd/options.h"

const struct kt_optdef kt_opts_stream[] = {
	KT_OPT_USE(kt_opt_backend),
	KT_OPT_USE(kt_opt_format),
	KT_OPT_USE(kt_opt_duration),
	KT_OPTS_TUNING,
	KT_OPT_USE(kt_opt_verbose),
	KT_OPT_USE(kt_opt_help),
	KT_OPTS_LIVE,
	KT_OPT_END,
};

const struct kt_optdef kt_opts_snapshot[] = {
	KT_OPT_USE(kt_opt_format),
	KT_OPT(OPT_KALLSYMS, "kallsyms", "FILE",
	       "also write the symbols to FILE in /proc/kallsyms's format"),
	KT_OPT('v', "verbose", NULL, "say where lengths came from"),
	KT_OPT_USE(kt_opt_help),
	KT_OPT_END,
};

const struct kt_optdef kt_opts_record[] = {
	KT_OPT('o', "output", "FILE|-", "where to write (required)"),
	KT_OPT(OPT_NO_SNAPSHOT, "no-snapshot", NULL, "leave out what exists at the start"),
	KT_OPT(OPT_NO_CODE, "no-code", NULL,
	       "keep the programs' symbols only, not their code (no bpf_prog_info read per load, "
	       "no memory held for it until the end)"),
	KT_OPTS_COMMON_NO_FORMAT,
	KT_OPT_REFUSED('f', "format"),
	KT_OPT_END,
};

const struct kt_optdef kt_opts_inject[] = {
	KT_OPT('i', "input", "IN", "perf's perf.data; - for its pipe format on stdin"),
	KT_OPT('o', "output", "OUT", "where to write; - for stdout (pipe format, with -i -)"),
	KT_OPT('s', "symbols", "FILE", "a 'ksymtap record' file of the same run"),
	KT_OPT(OPT_FORCE, "force", NULL, "inject a FILE from another host, kernel, boot or clock"),
	KT_OPT('v', "verbose", NULL, "list every symbol of IN replaced by ksymtap's"),
	KT_OPT_USE(kt_opt_help),
	KT_OPT_END,
};

/* resolve, kallsyms and symbolize read the same sources (run/lookup.c). */
static const struct kt_optdef opt_lookup_input =
	KT_OPT('i', "input", "FILE",
	       "a 'ksymtap record' file, or OTLP logs ksymtap exported as an OpenTelemetry "
	       "Collector's file exporter writes them (OTLP/JSON, one request a line)");
static const struct kt_optdef opt_lookup_socket =
	KT_OPT('s', "socket", "SOCKET", "a 'ksymtap serve' daemon's socket");
static const struct kt_optdef opt_lookup_host = KT_OPT(
	OPT_HOST, "host", "NAME",
	"OTLP FILE: the node whose host.name is NAME (needed when FILE holds more than one)");
static const struct kt_optdef opt_lookup_boot =
	KT_OPT(OPT_BOOT, "boot", "ID",
	       "OTLP FILE: the boot whose ksymtap.boot.id is ID (/proc/sys/kernel/random/boot_id "
	       "on the node; needed when its host has records of more than one boot)");

const struct kt_optdef kt_opts_resolve[] = {
	KT_OPT_USE(opt_lookup_input),
	KT_OPT('s', "socket", "SOCKET",
	       "a 'ksymtap serve' daemon's socket (its history is bounded by its --history and "
	       "--history-age)"),
	KT_OPT('t', "at", "TIME", "the time of the arguments and of stdin's bare lines"),
	KT_OPT_USE(opt_lookup_host),
	KT_OPT_USE(opt_lookup_boot),
	KT_OPT_USE(kt_opt_help),
	KT_OPT_END,
};

const struct kt_optdef kt_opts_kallsyms[] = {
	KT_OPT_USE(opt_lookup_input),
	KT_OPT_USE(opt_lookup_socket),
	KT_OPT('t', "at", "TIME", "the moment"),
	KT_OPT_USE(opt_lookup_host),
	KT_OPT_USE(opt_lookup_boot),
	KT_OPT_USE(kt_opt_help),
	KT_OPT_END,
};

const struct kt_optdef kt_opts_symbolize[] = {
	KT_OPT_USE(opt_lookup_input),
	KT_OPT_USE(opt_lookup_socket),
	KT_OPT('t', "at", "TIME", "the time of lines that carry none"),
	KT_OPT_USE(opt_lookup_host),
	KT_OPT_USE(opt_lookup_boot),
	KT_OPT_USE(kt_opt_help),
	KT_OPT_END,
};

const struct kt_optdef kt_opts_compare[] = {
	KT_OPT('d', "duration", "SEC", "compare over SEC seconds"),
	KT_OPT(OPT_GRACE, "grace", "SEC",
	       "after CMD exits, keep listening SEC seconds (default 1): trampolines are freed "
	       "after an RCU grace period"),
	KT_OPT('f', "format", "text|json", "the report: text (default) or one JSON document"),
	KT_OPTS_TUNING,
	KT_OPT('v', "verbose", NULL, "every hook and why any is off; -vv libbpf's debug output"),
	KT_OPT_USE(kt_opt_help),
	KT_OPT_REFUSED('b', "backend"),
	KT_OPT_END,
};

const struct kt_optdef kt_opts_serve[] = {
	KT_OPT('s', "socket", "PATH", "where to listen (required)"),
	KT_OPT(OPT_SOCKET_MODE, "socket-mode", "MODE",
	       "octal mode of the socket file (default 0600)"),
	KT_OPT(OPT_SOCKET_GROUP, "socket-group", "GROUP",
	       "group of the socket file (name or number)"),
	KT_OPT(OPT_CLIENT_QUEUE, "client-queue", "SIZE",
	       "bytes queued per client at most (default 4M); the table must fit in it"),
	KT_OPT(OPT_MAX_CLIENTS, "max-clients", "N",
	       "clients at once (default 64); more are refused"),
	KT_OPT(OPT_HISTORY, "history", "N", "dead symbols kept for queries (default 100000)"),
	KT_OPT(OPT_HISTORY_AGE, "history-age", "SEC",
	       "how long a dead symbol is kept for queries (default 3600); live ones are always "
	       "kept"),
	KT_OPT(OPT_NO_CODE, "no-code", NULL,
	       "keep no code (by default each program's bpf_prog_info and BTF, read as it loads, "
	       "and the bytes of trampolines and other code, read from /proc/kcore as they "
	       "register, are kept as long as the history keeps them, for 'ksymtap disasm -s')"),
	KT_OPT(OPT_CODE_SIZE, "code-size", "SIZE",
	       "most bytes of code kept for gone programs and code (default 64M; what lives is "
	       "always kept): the oldest goes first"),
	KT_OPT(OPT_METRICS_FILE, "metrics-file", "FILE",
	       "Prometheus text file, rewritten atomically"),
	KT_OPT(OPT_METRICS_INTERVAL, "metrics-interval", "SEC", "how often (default 5)"),
	KT_OPT(OPT_METRICS_LISTEN, "metrics-listen", "[ADDR:]PORT",
	       "answer GET /metrics over HTTP on ADDR (numeric; [V6ADDR] for IPv6) and PORT; ADDR "
	       "127.0.0.1 if left out: only this host scrapes unless you say otherwise "
	       "(docs/security.md)"),
	KT_OPTS_COMMON_NO_FORMAT,
	KT_OPTS_LIVE,
	KT_OPT_REFUSED('f', "format"),
	KT_OPT_END,
};

const struct kt_optdef kt_opts_tail[] = {
	KT_OPT('s', "socket", "PATH", "the daemon's socket (required)"),
	KT_OPT('f', "format", "json|raw|text",
	       "json (default): one object per line, with attribution; raw: binary perf records; "
	       "text: perf script lines"),
	KT_OPT(OPT_SNAPSHOT, "snapshot", NULL, "only the current table, then exit"),
	KT_OPT('d', "duration", "SEC", "stop after SEC seconds"),
	KT_OPT_USE(kt_opt_help),
	KT_OPT_END,
};

const struct kt_optdef kt_opts_disasm[] = {
	KT_OPT('i', "input", "FILE", "a 'ksymtap record' file (its code archive)"),
	KT_OPT(OPT_FROM, "from", "FILE", "the same as --input"),
	KT_OPT('s', "socket", "SOCKET",
	       "a 'ksymtap serve' daemon's socket (the code it keeps, as long as its history "
	       "keeps the program)"),
	KT_OPT('t', "at", "TIME",
	       "the moment the addresses are of (default: the end of FILE, or the last code "
	       "there)"),
	KT_OPT('f', "format", "text|json",
	       "text (default): gdb-style lines with bpftool's source lines; json: one object per "
	       "address"),
	KT_OPT_USE(kt_opt_help),
	KT_OPT_END,
};

const struct kt_optdef kt_opts_report[] = {
	KT_OPT('v', "verbose", NULL, "say what is run"),
	KT_OPT_USE(kt_opt_help),
	KT_OPT_END,
};

const struct kt_cmd_optdefs kt_cmd_optdefs[] = {
	{ "stream", kt_opts_stream },
	{ "snapshot", kt_opts_snapshot },
	{ "record", kt_opts_record },
	{ "inject", kt_opts_inject },
	{ "resolve", kt_opts_resolve },
	{ "kallsyms", kt_opts_kallsyms },
	{ "symbolize", kt_opts_symbolize },
	{ "compare", kt_opts_compare },
	{ "serve", kt_opts_serve },
	{ "tail", kt_opts_tail },
	{ "report", kt_opts_report },
	{ "disasm", kt_opts_disasm },
	{ NULL, NULL },
};
