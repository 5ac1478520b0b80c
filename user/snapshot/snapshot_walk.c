// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Run bpf/snapshot.bpf.c (BPF_PROG_TEST_RUN of a BPF_PROG_TYPE_SYSCALL
 * program, 5.16+ for bpf_kallsyms_lookup_name()) and collect the images it
 * found, run after run while it says there are more.  It is closed before the
 * programs are enumerated, so it is never part of the snapshot itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include "util/base.h"
#include "kt_snapshot.h"
#include "util/log.h"
#include "util/fileio.h"
#include "util/spawn.h"
#include "snapshot/snapshot.h"
#include "ksymtap.skel.h"

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

/* The runs themselves, through the state map's mapping. */
/* Over 60 lines: the walker's run-and-resume loop over its shared state. */
static int walk_run(const struct kt_walker *wk, const struct kt_dynsyms *ks,
		    struct kt_snap_image **out, size_t *count, int *flags)
{
	size_t len = kt_walker_state_size(), n = 0, cap = 0;
	struct kt_snap_image *v = NULL;
	struct kt_dynsyms core;
	struct kt_snap_state *st;
	int err = 0, runs = 0;

	*flags = 0;
	memset(&core, 0, sizeof(core));
	/* The legacy walker cannot look its heads up itself: the core part of
	 * /proc/kallsyms has them (the part before any module, cheap). */
	if (wk->legacy && !ks) {
		err = kt_dynsyms_read_core(NULL, &core);
		if (err)
			return err;
		ks = &core;
	}
	st = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, wk->map_fd, 0);
	if (st == MAP_FAILED) {
		err = -errno;
		kt_dynsyms_free(&core);
		return err;
	}
	st->cur_list = 0;
	st->cur_node = 0;
	if (ks) {
		st->heads[0] = ks->bpf_kallsyms;
		st->heads[1] = ks->ftrace_list;
		st->heads[2] = ks->kprobe_caches[0];
		st->heads[3] = ks->kprobe_caches[1];
		st->heads_resolved = 1;
	}
	do {
		LIBBPF_OPTS(bpf_test_run_opts, opts);

		st->skip = n;
		err = bpf_prog_test_run_opts(wk->prog_fd, &opts);
		if (err)
			break;
		*flags |= opts.retval;
		if (st->nimages > KT_SNAP_MAX_IMAGES || (!st->nimages && !st->more))
			break;
		if (KT_GROW(v, cap, n + st->nimages)) {
			err = -ENOMEM;
			break;
		}
		memcpy(v + n, st->images, st->nimages * sizeof(*v));
		n += st->nimages;
	} while (st->more && ++runs < MAX_RUNS);
	if (!err && st->more)
		*flags |= KT_SNAP_BPF_UNFINISHED | KT_SNAP_FTRACE_UNFINISHED |
			  KT_SNAP_KPROBE_UNFINISHED;
	munmap(st, len);
	kt_dynsyms_free(&core);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*count = n;
	return 0;
}

/* Without a loaded walker: load one alone (no hook, none of their maps). */
static int walk_here(const struct kt_dynsyms *ks, struct kt_snap_image **out, size_t *count,
		     int *flags)
{
	libbpf_print_fn_t old = libbpf_set_print(quiet_print);
	struct kt_walker wk;
	struct ksymtap_bpf *skel;
	struct bpf_program *prog;
	struct bpf_map *map;
	int err;

	skel = ksymtap_bpf__open();
	if (!skel) {
		err = -errno;
		goto out;
	}
	/* The SYSCALL walker (5.16+), else its raw tracepoint twin. */
	wk.legacy = false;
	for (;;) {
		bpf_object__for_each_program(prog, skel->obj)
			bpf_program__set_autoload(
				prog, prog == (wk.legacy ? skel->progs.walk_images_legacy :
							   skel->progs.walk_images));
		/* The skeleton maps its .rodata and .bss whatever loads. */
		bpf_object__for_each_map(map, skel->obj)
			if (map != skel->maps.walker && map != skel->maps.rodata &&
			    map != skel->maps.bss)
				bpf_map__set_autocreate(map, false);
		err = ksymtap_bpf__load(skel);
		if (!err || wk.legacy)
			break;
		ksymtap_bpf__destroy(skel);
		skel = ksymtap_bpf__open();
		if (!skel) {
			err = -errno;
			goto out;
		}
		wk.legacy = true;
	}
	if (err)
		goto out;
	kt_trace("snapshot: walker loaded%s", wk.legacy ? " (legacy)" : "");
	wk.prog_fd = bpf_program__fd(wk.legacy ? skel->progs.walk_images_legacy :
						 skel->progs.walk_images);
	wk.map_fd = bpf_map__fd(skel->maps.walker);
	err = walk_run(&wk, ks, out, count, flags);
out:
	ksymtap_bpf__destroy(skel);
	libbpf_set_print(old);
	return err;
}

size_t kt_walker_state_size(void)
{
	long page = sysconf(_SC_PAGESIZE);

	return (sizeof(struct kt_snap_state) + page - 1) / page * page;
}

void kt_walker_close(struct kt_walker *wk)
{
	if (wk->prog_fd >= 0)
		close(wk->prog_fd);
	if (wk->map_fd >= 0)
		close(wk->map_fd);
	wk->prog_fd = wk->map_fd = -1;
}

struct walk_hdr {
	int err;
	int flags;
	__u64 n;
};

/* The walk in a child (kt_fork_call()): its results over the socket. */
struct walk_call {
	const struct kt_dynsyms *ks;
	struct kt_snap_image *v;
	struct walk_hdr h;
	bool child;
};

static int walk_child(int fd, void *ctx)
{
	struct walk_call *c = ctx;
	size_t n = 0;

	c->h.err = walk_here(c->ks, &c->v, &n, &c->h.flags);
	c->h.n = c->h.err ? 0 : n;
	return kt_write_all(fd, &c->h, sizeof(c->h)) ||
	       (c->h.n && kt_write_all(fd, c->v, c->h.n * sizeof(*c->v)));
}

static int walk_parent(int fd, void *ctx)
{
	struct walk_call *c = ctx;
	int err;

	c->child = true;
	err = kt_read_all(fd, &c->h, sizeof(c->h));
	if (!err && !c->h.err && c->h.n) {
		c->v = calloc(c->h.n, sizeof(*c->v));
		err = c->v ? kt_read_all(fd, c->v, c->h.n * sizeof(*c->v)) : -ENOMEM;
	}
	return err ? err : c->h.err;
}

/* A walker loaded with the BPF backend's hooks runs here.  Without one it
 * loads with libbpf, which parses the kernel's BTF (several MB): in a child
 * process, like the backend's load (user/backend/bpf_loader.h), so that the
 * long-running process never holds it. */
int kt_snapshot_walk(struct kt_walker *wk, const struct kt_dynsyms *ks, struct kt_snap_image **out,
		     size_t *count, int *flags)
{
	struct walk_call c = { .ks = ks };
	int err;

	if (wk && wk->prog_fd >= 0) {
		err = walk_run(wk, ks, out, count, flags);
		/* Closed now, so that it is not among the programs listed. */
		kt_walker_close(wk);
		return err;
	}
	err = kt_fork_call(SOCK_STREAM, walk_child, walk_parent, &c);
	if (err && !c.child)
		return walk_here(ks, out, count, flags);
	if (err) {
		free(c.v);
		return err;
	}
	*out = c.v;
	*count = c.h.n;
	*flags = c.h.flags;
	return 0;
}
