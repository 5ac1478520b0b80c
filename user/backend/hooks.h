/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BPF backend's hooks: which program attaches where, for which source. */
#ifndef KT_HOOKS_H
#define KT_HOOKS_H

#include <stdbool.h>
#include <linux/types.h>
#include "ksymtap.h"

struct kt_hook_desc {
	const char *name; /* the hook's name (--disable-hook, -v, metrics) */
	const char *prog; /* program in bpf/ksymtap.bpf.c */
	/* Its twin without bpf_loop() for kernels before 5.17
	 * (bpf/core_fixes.bpf.h), or NULL if prog needs none. */
	const char *prog_legacy;
	const char *target; /* kernel function */
	unsigned char source;
	bool birth; /* registers symbols (else: unregisters) */
	const char *what;
};

extern const struct kt_hook_desc kt_hooks[KT_HOOK_MAX];

/* Index of a hook by its name, a program name or kernel function name, or -1. */
int kt_hook_lookup(const char *name);

#endif
