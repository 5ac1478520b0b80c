/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The running kernel's preemption model, as far as it can be told. */
#ifndef KT_PREEMPT_H
#define KT_PREEMPT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Can a task be preempted in the middle of a BPF hook (full, lazy or RT
 * preemption)?  true also when it cannot be told.  how gets the model and
 * where it was read, for -v ("lazy preemption (/sys/kernel/debug/sched/preempt)").
 */
bool kt_preemptible(char *how, size_t size);

/* The model named in one of the places kt_preemptible() reads: the
 * parenthesized word of /sys/kernel/debug/sched/preempt ("none voluntary
 * full (lazy)"), preempt= on the command line, or uname -v's word.  NULL if
 * text names none.  Exposed for the unit tests. */
const char *kt_preempt_debugfs_mode(const char *text, char *buf, size_t size);
const char *kt_preempt_cmdline_mode(const char *cmdline, char *buf, size_t size);
const char *kt_preempt_uname_mode(const char *version);

#endif
