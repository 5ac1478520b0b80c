// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Run bpf/snapshot.bpf.c once (BPF_PROG_TEST_RUN of a BPF_PROG_TYPE_SYSCALL
 * program, 5.14+) and collect the images it found, run after run while it
 * says there are more.  It is loaded, run and closed before the programs are
 * enumerated, so it is never part of the snapshot itself.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include "kt_snapshot.h"
#include "log.h"
#include "snapshot.h"
#include "snapshot.skel.h"

/* Enough for 512 * KT_SNAP_MAX_IMAGES (131072) symbols; a list still growing
 * past that is left to /proc/kallsyms.  Each run follows the lists past what
 * earlier runs returned (one read per entry), so n symbols cost n^2 / 512
 * steps: 50,000 for 5,000 programs. */
#define MAX_RUNS 512

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* A kernel that refuses the walker is normal (kallsyms is the
	 * fallback): libbpf's account of it only with -vv. */
	if (kt_verbose < 2)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int kt_snapshot_walk(const struct kt_dynsyms *ks, struct kt_snap_image **out, size_t *count,
		     int *flags)
{
	libbpf_print_fn_t old = libbpf_set_print(quiet_print);
	struct kt_snap_image *v = NULL, *nv;
	struct snapshot_bpf *skel;
	size_t n = 0;
	int err, runs = 0, fd;

	*flags = 0;
	skel = snapshot_bpf__open();
	if (!skel) {
		err = -errno;
		goto out;
	}
	skel->rodata->bpf_kallsyms_addr = ks ? ks->bpf_kallsyms : 0;
	skel->rodata->ftrace_list_addr = ks ? ks->ftrace_list : 0;
	skel->rodata->kprobe_caches[0] = ks ? ks->kprobe_caches[0] : 0;
	skel->rodata->kprobe_caches[1] = ks ? ks->kprobe_caches[1] : 0;
	err = snapshot_bpf__load(skel);
	if (err)
		goto out;
	fd = bpf_program__fd(skel->progs.walk_images);
	do {
		LIBBPF_OPTS(bpf_test_run_opts, opts);

		skel->bss->skip = n;
		err = bpf_prog_test_run_opts(fd, &opts);
		if (err)
			goto out;
		*flags |= opts.retval;
		if (!skel->bss->nimages)
			break;
		nv = realloc(v, (n + skel->bss->nimages) * sizeof(*v));
		if (!nv) {
			err = -ENOMEM;
			goto out;
		}
		v = nv;
		memcpy(v + n, skel->bss->images, skel->bss->nimages * sizeof(*v));
		n += skel->bss->nimages;
	} while (skel->bss->more && ++runs < MAX_RUNS);
	if (skel->bss->more)
		*flags |= KT_SNAP_BPF_UNFINISHED | KT_SNAP_FTRACE_UNFINISHED |
			  KT_SNAP_KPROBE_UNFINISHED;
out:
	snapshot_bpf__destroy(skel);
	libbpf_set_print(old);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*count = n;
	return 0;
}
