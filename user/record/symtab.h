/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live set of dynamic kernel symbols, kept from the records that pass
 * through: what the snapshot found plus every register, minus every
 * unregister.  It drops duplicate registers (a symbol the snapshot already
 * listed and whose birth was also in flight), completes unregisters that lack
 * fields the kernel had already cleared, and replays itself as records for
 * late readers (serve clients, the kallsyms file).
 */
#ifndef KT_SYMTAB_H
#define KT_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include "record/record.h"

struct kt_symtab;

/* kt_symtab_apply() results */
#define KT_SYMTAB_NEW 1 /* new information: pass the record on */
#define KT_SYMTAB_DUP 0 /* already known (register of a live symbol): drop it */

struct kt_symtab *kt_symtab_new(void);
void kt_symtab_free(struct kt_symtab *t);

/* Update the table from r (KSYMBOL, BPF_EVENT; others pass).  May fill in r's
 * prog id (unloads of programs the kernel already gave id 0). */
int kt_symtab_apply(struct kt_symtab *t, struct kt_record *r);

/* The live table as records, marked KT_RF_SNAPSHOT: per program its KSYMBOLs
 * then its BPF_EVENT PROG_LOAD (by id), then every other symbol by address.
 * Stops at and returns fn's first non-zero return. */
int kt_symtab_walk(struct kt_symtab *t, int (*fn)(void *ctx, struct kt_record *r), void *ctx);

/*
 * The resync after a reported loss (user/run/resync.c): kt_symtab_mark_begin(),
 * then kt_symtab_mark() for every record of a new enumeration (true: the
 * table has it, now marked; those it lacks are passed on as registers and
 * are marked as they are applied), then kt_symtab_unmarked(): the unregisters
 * (KSYMBOL unregister, BPF_EVENT PROG_UNLOAD, in kt_symtab_walk()'s order, no
 * task, time 0) of every entry left unmarked whose source bit (1 << source)
 * is in sources, and of unmarked programs if progs; the caller frees *out
 * and passes them on.  The kernel's own unregister of one of those, still in
 * flight, is then dropped as a duplicate, until the next mark_begin.
 */
void kt_symtab_mark_begin(struct kt_symtab *t);
bool kt_symtab_mark(struct kt_symtab *t, const struct kt_record *r);
int kt_symtab_unmarked(struct kt_symtab *t, unsigned int sources, bool progs,
		       struct kt_record **out, size_t *n);

/* Live symbols (KSYMBOLs) and programs. */
size_t kt_symtab_nsyms(const struct kt_symtab *t);
size_t kt_symtab_nprogs(const struct kt_symtab *t);
/* Bumped on every change: writers of derived files compare it. */
unsigned long long kt_symtab_generation(const struct kt_symtab *t);
/* Symbols and programs passed on but not kept (an allocation failed): the
 * table, and what is made from it (--kallsyms, serve's tables, unload ids),
 * lacks them.  The pipeline warns and metrics count them. */
unsigned long long kt_symtab_untracked(const struct kt_symtab *t);

#endif
