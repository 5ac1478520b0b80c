/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --kallsyms FILE: the live dynamic symbols as /proc/kallsyms lists them
 * ("%016llx t NAME\t[MODULE]"), for `perf report --kallsyms FILE` and anyone
 * else who reads kallsyms.  A pipeline sink that rewrites FILE at flush time
 * whenever the symbol table changed, by writing a temporary file beside it and
 * renaming it over FILE, so readers see the old list or the new one, never a
 * mix.
 */
#ifndef KT_KALLSYMS_FILE_H
#define KT_KALLSYMS_FILE_H

#include <stdbool.h>
#include "sink/pipeline.h"

struct kt_kallsyms_file {
	struct kt_sink sink;
	struct kt_symtab *tab;
	const char *path;
	unsigned long long gen; /* kt_symtab_generation() last written */
	bool written;
	int err; /* first error, -errno, reported once */
	unsigned long long rewrites;
	unsigned long long last_ns; /* CLOCK_MONOTONIC of the last rewrite */
};

/* The periodic flush rewrites FILE at most this often; the last flush
 * (kt_pipeline_flush(), at the start and the end) at once. */
#define KT_KALLSYMS_MIN_INTERVAL_NS 100000000ULL

int kt_kallsyms_file_init(struct kt_kallsyms_file *k, const char *path, struct kt_symtab *tab);
/* Rewrite FILE if the table changed since the last write (the sink's flush). */
int kt_kallsyms_file_sync(struct kt_kallsyms_file *k);

/*
 * The table as kallsyms text: grouped like /proc/kallsyms ([bpf], then
 * [__builtin__ftrace], then [__builtin__kprobes]), by address within a group
 * (the kernel lists them in its lists' order, which a reader cannot rely on;
 * perf sorts).  *buf is malloc'd; returns 0 or -ENOMEM.
 */
int kt_kallsyms_render(struct kt_symtab *t, char **buf, size_t *len);

#endif
