/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef KT_KALLSYMS_H
#define KT_KALLSYMS_H

#include <stdbool.h>
#include <linux/types.h>
#include <stddef.h>
#include "ksymtap.h"

/*
 * [start, end) of core-kernel text symbols from /proc/kallsyms (path NULL),
 * end being the next symbol's address.  ranges[i] stays {0, 0} for a name that
 * is absent.  Returns how many were found, or -EACCES if kallsyms shows only
 * zero addresses (kptr_restrict without CAP_SYSLOG), or another -errno.
 */
int kt_kallsyms_func_ranges(const char *path, const char *const *names, int n,
			    struct kt_range *ranges);

/*
 * The kernel's dynamic text as /proc/kallsyms lists it after the modules
 * (kernel/kallsyms.c update_iter_mod(), s_show()): "%px %c %s\t[%s]\n" with type
 * 't' and module "bpf" (bpf_get_kallsym(): programs, trampolines, dispatchers,
 * struct_ops), "__builtin__ftrace" (ftrace_get_trampoline_kallsym()) or
 * "__builtin__kprobes" (kprobe_get_kallsym()), in that order.
 */
#define KT_KMOD_BPF "bpf"
#define KT_KMOD_FTRACE "__builtin__ftrace"
#define KT_KMOD_KPROBES "__builtin__kprobes"

struct kt_dynsym {
	__u64 addr;
	unsigned char source; /* enum kt_source */
	char *name;
};

struct kt_dynsyms {
	struct kt_dynsym *v; /* in file order */
	size_t n;
	struct kt_dynsym **by_addr;
	/* Static list heads the snapshot walker follows (0: not listed). */
	__u64 bpf_kallsyms, ftrace_list;
	__u64 kprobe_caches[2]; /* kprobe_insn_slots, kprobe_optinsn_slots */
	/* Two program images at one address (kt_dynsyms_index()): this kernel
	 * lists func[0] of a program with subprograms beside the program itself
	 * (before 0108a4e9f358, 6.4, 5.15.y and 6.1.y: 5.10), and perf's
	 * KSYMBOL names func[0]'s. */
	bool func0_listed;
};

/* The kallsyms module a source's symbols are listed under, or NULL. */
const char *kt_kallsyms_module(unsigned int source);

/* One line of a dynamic symbol: its source (> 0) with *addr and name[] filled
 * in, 0 for any other line, -ENAMETOOLONG if name[] is too small. */
int kt_kallsyms_parse_dynamic(const char *line, __u64 *addr, char *name, size_t size);

/* The line /proc/kallsyms prints for it, newline included: length, -ENOSPC,
 * or -EINVAL for a source that has no kallsyms module. */
int kt_kallsyms_format(char *buf, size_t size, __u64 addr, const char *name, unsigned int source);

/* Every dynamic symbol of /proc/kallsyms (path NULL) or of a file in its
 * format.  -EACCES if the addresses are hidden (kptr_restrict). */
int kt_dynsyms_read(const char *path, struct kt_dynsyms *d);
/* Only the core kernel's part (no dynamic symbols): the list heads above.  It
 * ends at the first "[module]" line, before the [bpf] part the kernel makes at
 * O(programs^2) cost. */
int kt_dynsyms_read_core(const char *path, struct kt_dynsyms *d);
/* Add one entry (copies name); kt_dynsyms_index() after the last. */
int kt_dynsyms_add(struct kt_dynsyms *d, size_t *cap, __u64 addr, unsigned int source,
		   const char *name);
int kt_dynsyms_index(struct kt_dynsyms *d);
void kt_dynsyms_free(struct kt_dynsyms *d);
/* The entry of that source at addr, or NULL. */
const struct kt_dynsym *kt_dynsyms_find(const struct kt_dynsyms *d, __u64 addr,
					unsigned int source);
/* The lowest address of any entry above addr, or 0. */
__u64 kt_dynsyms_next(const struct kt_dynsyms *d, __u64 addr);

#endif
