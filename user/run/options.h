/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Options declared once, as perf's parse-options tables declare them: each
 * command's table (user/cmd/options.c) gives every option its letter, long
 * name, argument and help paragraph.  getopt's tables, --help and the man
 * pages' OPTIONS sections (docs/man/gen_options.c, at build time) are all
 * made from it, so they cannot drift apart.
 *
 * This header and options.c need only libc: the man page generator is built
 * from them with the host's compiler, also when ksymtap is cross-built.
 */
#ifndef KT_OPTIONS_H
#define KT_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

struct option;

struct kt_optdef {
	/* getopt_long's value: the short letter, or a code >= KT_OPT_LONG_ONLY
	 * for an option with no short form. */
	int code;
	const char *name; /* the long name, without "--" */
	const char *arg; /* the argument's name in the help ("SEC"); NULL: none */
	const char *help; /* one paragraph: --help wraps it, the man page keeps it */
	/* Set instead of the rest: this entry is that shared option. */
	const struct kt_optdef *use;
};

/* An option: KT_OPT('b', "backend", "bpf|native|auto", "help..."). */
#define KT_OPT(c, n, a, h)                                        \
	{                                                         \
		.code = (c), .name = (n), .arg = (a), .help = (h) \
	}
/* An entry that is a shared option, declared once below. */
#define KT_OPT_USE(o)       \
	{                   \
		.use = &(o) \
	}
/* An option a command takes only to refuse it with a line that says why
 * (its opt callback): not listed in --help or the man page. */
#define KT_OPT_REFUSED(c, n)                           \
	{                                              \
		.code = (c), .name = (n), .arg = "ARG" \
	}
#define KT_OPT_END        \
	{                 \
		.code = 0 \
	}

/* Codes of the long-only options the commands share (run/cli.c parses them). */
enum {
	KT_OPT_LONG_ONLY = 0x100,
	OPT_RINGBUF_SIZE = KT_OPT_LONG_ONLY,
	OPT_QUEUE_SIZE,
	OPT_NATIVE_PAGES,
	OPT_WAKEUP_MS,
	OPT_DISABLE_HOOK,
	OPT_NO_SNAPSHOT,
	OPT_KALLSYMS,
	OPT_CGROUP_ROOT,
	OPT_OTLP_ENDPOINT,
	OPT_OTLP_SPOOL,
	OPT_OTLP_SPOOL_SIZE,
	/* resolve, kallsyms, symbolize (run/lookup.c parses them) */
	OPT_HOST,
	OPT_BOOT,
	/* The first code a command may give its own options (cmd/options.h). */
	OPT_CMD_FIRST_FREE,
};

/* The shared options: what every command that reads the kernel takes. */
extern const struct kt_optdef kt_opt_backend, kt_opt_format, kt_opt_duration, kt_opt_ringbuf_size,
	kt_opt_queue_size, kt_opt_native_pages, kt_opt_wakeup_ms, kt_opt_disable_hook,
	kt_opt_verbose, kt_opt_help;
/* ... and what the commands that run until stopped take besides. */
extern const struct kt_optdef kt_opt_no_snapshot, kt_opt_kallsyms, kt_opt_cgroup_root,
	kt_opt_otlp_endpoint, kt_opt_otlp_spool, kt_opt_otlp_spool_size;

/* The backend's tuning, as stream, record, serve and compare share it. */
#define KT_OPTS_TUNING                                                         \
	KT_OPT_USE(kt_opt_ringbuf_size), KT_OPT_USE(kt_opt_queue_size),        \
		KT_OPT_USE(kt_opt_native_pages), KT_OPT_USE(kt_opt_wakeup_ms), \
		KT_OPT_USE(kt_opt_disable_hook)
/* What the live commands (stream, record, serve) share. */
#define KT_OPTS_COMMON_NO_FORMAT                                                 \
	KT_OPT_USE(kt_opt_backend), KT_OPT_USE(kt_opt_duration), KT_OPTS_TUNING, \
		KT_OPT_USE(kt_opt_verbose), KT_OPT_USE(kt_opt_help)
/* What the commands that run until stopped and feed others (stream, serve)
 * take besides. */
#define KT_OPTS_LIVE                                                              \
	KT_OPT_USE(kt_opt_no_snapshot), KT_OPT_USE(kt_opt_kallsyms),              \
		KT_OPT_USE(kt_opt_cgroup_root), KT_OPT_USE(kt_opt_otlp_endpoint), \
		KT_OPT_USE(kt_opt_otlp_spool), KT_OPT_USE(kt_opt_otlp_spool_size)

/* The option an entry stands for (itself, or the shared one it uses). */
const struct kt_optdef *kt_optdef_of(const struct kt_optdef *o);

/*
 * getopt_long's tables from opts: shortopts ("+" first when stop_at_arg),
 * and longopts, NULL-terminated.  -ENOSPC if either is too small for them.
 */
int kt_opts_getopt(const struct kt_optdef *opts, int stop_at_arg, char *shortopts,
		   size_t short_size, struct option *longopts, size_t long_n);

/* The options as --help lists them: "  -b, --backend ARG" then the help,
 * wrapped to 79 columns from column 23. */
void kt_opts_print_help(FILE *f, const struct kt_optdef *opts);

/* The same as an scdoc(5) list for the man page's OPTIONS section. */
void kt_opts_print_scdoc(FILE *f, const struct kt_optdef *opts);

#endif
