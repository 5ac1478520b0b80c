/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef KT_BTF_FUNCS_H
#define KT_BTF_FUNCS_H

#include <stdbool.h>

/* The most names one call looks for. */
#define KT_BTF_FIND_MAX 32

/* found[i]: the BTF at path (raw, as /sys/kernel/btf/vmlinux) has a FUNC
 * named names[i].  -errno if unreadable, -EPROTO if malformed or of a kind
 * newer than this code (callers then ask libbpf), -E2BIG for more than
 * KT_BTF_FIND_MAX names. */
int kt_btf_find_funcs(const char *path, const char *const *names, int n, bool *found);

#endif
