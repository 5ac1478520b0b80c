/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel memory through /proc/kcore (an ELF core file of the running kernel:
 * fs/proc/kcore.c), for the bytes of code that has no bpf_prog_info: BPF
 * trampolines, dispatchers and struct_ops images, ftrace trampolines, kprobe
 * instruction pages.  Root (CAP_SYS_RAWIO) only, and refused under lockdown.
 */
#ifndef KT_KCORE_H
#define KT_KCORE_H

#include <linux/types.h>
#include <stddef.h>

struct kt_kcore_seg {
	__u64 vaddr, offset, size;
};

struct kt_kcore {
	int fd;
	struct kt_kcore_seg *segs;
	size_t nsegs;
};

/* Open and read its program headers: 0 or -errno. */
int kt_kcore_open(struct kt_kcore *k, const char *path);
/* len bytes at kernel address addr: 0, -ERANGE where no segment holds them
 * all, -errno. */
int kt_kcore_read(const struct kt_kcore *k, __u64 addr, void *buf, size_t len);
void kt_kcore_close(struct kt_kcore *k);

#endif
