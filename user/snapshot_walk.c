// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Run bpf/snapshot.bpf.c once (BPF_PROG_TEST_RUN of a BPF_PROG_TYPE_SYSCALL
 * program, 5.14+) and collect the images it found, run after run while it
 * says there are more.  It is loaded, run and closed before the programs are
 * enumerated, so it is never part of the snapshot itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

static int walk_here(const struct kt_dynsyms *ks, struct kt_snap_image **out, size_t *count,
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
	/* Without ks, the walker looks its list heads up itself. */
	skel->rodata->resolve_heads = !ks;
	skel->rodata->bpf_kallsyms_addr = ks ? ks->bpf_kallsyms : 0;
	skel->rodata->ftrace_list_addr = ks ? ks->ftrace_list : 0;
	skel->rodata->kprobe_caches[0] = ks ? ks->kprobe_caches[0] : 0;
	skel->rodata->kprobe_caches[1] = ks ? ks->kprobe_caches[1] : 0;
	err = snapshot_bpf__load(skel);
	if (err)
		goto out;
	kt_trace("snapshot: walker loaded");
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

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t w;

	while (n) {
		w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		c += w;
		n -= w;
	}
	return 0;
}

static int read_all(int fd, void *p, size_t n)
{
	char *c = p;
	ssize_t r;

	while (n) {
		r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EPROTO;
		c += r;
		n -= r;
	}
	return 0;
}

struct walk_hdr {
	int err;
	int flags;
	__u64 n;
};

/* The walker loads with libbpf, which parses the kernel's BTF (several MB):
 * in a child process, like the backend's load (user/bpf_loader.h), so that
 * the long-running process never holds it. */
int kt_snapshot_walk(const struct kt_dynsyms *ks, struct kt_snap_image **out, size_t *count,
		     int *flags)
{
	struct kt_snap_image *v = NULL;
	struct walk_hdr h = { 0 };
	int p[2], status, err;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return walk_here(ks, out, count, flags);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return walk_here(ks, out, count, flags);
	}
	if (pid == 0) {
		size_t n = 0;

		close(p[0]);
		h.err = walk_here(ks, &v, &n, &h.flags);
		h.n = h.err ? 0 : n;
		_exit(write_all(p[1], &h, sizeof(h)) ||
		      (h.n && write_all(p[1], v, h.n * sizeof(*v))));
	}
	close(p[1]);
	err = read_all(p[0], &h, sizeof(h));
	if (!err && !h.err && h.n) {
		v = calloc(h.n, sizeof(*v));
		err = v ? read_all(p[0], v, h.n * sizeof(*v)) : -ENOMEM;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!err)
		err = h.err;
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*count = h.n;
	*flags = h.flags;
	return 0;
}
