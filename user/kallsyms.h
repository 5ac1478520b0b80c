/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef KT_KALLSYMS_H
#define KT_KALLSYMS_H

#include <linux/types.h>
#include "ksymtap.h"

/*
 * [start, end) of core-kernel text symbols from /proc/kallsyms (path NULL),
 * end being the next symbol's address.  ranges[i] stays {0, 0} for a name that
 * is absent.  Returns how many were found, or -EACCES if kallsyms shows only
 * zero addresses (kptr_restrict without CAP_SYSLOG), or another -errno.
 */
int kt_kallsyms_func_ranges(const char *path, const char *const *names, int n,
			    struct kt_range *ranges);

#endif
