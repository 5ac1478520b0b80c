/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BPF backend's hooks: which program attaches where, for which source. */
#ifndef KT_HOOKS_H
#define KT_HOOKS_H

#include <stdbool.h>
#include <linux/types.h>
#include "ksymtap.h"

struct kt_hook_desc {
	const char *prog; /* program name in bpf/ksymtap.bpf.c */
	const char *target; /* kernel function */
	unsigned char source;
	bool birth; /* registers symbols (else: unregisters) */
	const char *what;
};

extern const struct kt_hook_desc kt_hooks[KT_HOOK_MAX];

/* Index of a hook by program or kernel function name, or -1. */
int kt_hook_lookup(const char *name);

#endif
