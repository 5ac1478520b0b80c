// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The snapshot: the walker (so its own program is gone before the
 * enumeration), then the programs, then the records.  Names of program images come from the
 * walker (the kernel's own bpf_ksym names), so the [bpf] part of kallsyms,
 * which costs the kernel O(programs^2) to list, is read only where the walker
 * could not finish.  A program born after the walk gets its name rebuilt the
 * kernel's way (the same name); whatever is born after the hooks attached is
 * in flight in the backend too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include "kt_snapshot.h"
#include "util/log.h"
#include "snapshot/snapshot.h"

struct ctx {
	kt_emit_fn emit;
	void *ctx;
	const struct kt_dynsyms *ks; /* NULL if unreadable */
	bool quiet; /* warnings as -v lines (kt_walker.quiet) */
	bool ks_walked; /* ks was made from the walker's lists */
	__u64 page;
};

#define say(c, ...) ((c)->quiet ? kt_debug(__VA_ARGS__) : kt_warn(__VA_ARGS__))

static int emit_image(struct ctx *c, unsigned int source, __u64 addr, __u64 len, const char *name)
{
	struct kt_record r;

	memset(&r, 0, offsetof(struct kt_record, name));
	r.type = KT_RECORD_KSYMBOL;
	r.source = source;
	r.origin = KT_ORIGIN_SNAPSHOT;
	r.rflags = KT_RF_SNAPSHOT | KT_RF_NO_TASK;
	r.addr = addr;
	r.len = len;
	r.ksym_type = source == KT_SRC_BPF_IMAGE || source == KT_SRC_BPF_PROG ? KT_KSYM_TYPE_BPF :
										KT_KSYM_TYPE_OOL;
	snprintf(r.name, sizeof(r.name), "%s", name);
	return c->emit(c->ctx, &r);
}

/*
 * kallsyms has no lengths.  An image cannot reach into the next dynamic
 * symbol, and none is larger than a page: bpf_image_ksym_add() (6.1) and
 * bpf_dispatcher give a page, 6.12's packed trampolines less, ftrace
 * trampolines a few hundred bytes of their own allocation.  So: up to the next
 * symbol, at most a page (for ftrace: to the end of its page).  An upper bound,
 * exact for 6.1's BPF images.
 */
__u64 kt_snapshot_estimate_len(const struct kt_dynsyms *ks, unsigned int source, __u64 addr,
			       __u64 page)
{
	__u64 next = kt_dynsyms_next(ks, addr);
	__u64 len = page;

	if (source == KT_SRC_FTRACE)
		len = page - (addr & (page - 1));
	if (next && next - addr < len)
		len = next - addr;
	return len;
}

static bool walker_has(const struct kt_snap_image *v, size_t n, __u32 kind, __u64 addr,
		       const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].kind == kind && v[i].start == addr &&
		    ((v[i].flags & KT_SNAP_F_TRUNCATED) || !v[i].name[0] ||
		     !strcmp(v[i].name, name)))
			return true;
	return false;
}

/* BPF images (kind KT_SNAP_BPF_IMAGE) or ftrace trampolines: the walker's,
 * in list order, then what kallsyms lists beyond them (born since). */
static int emit_images(struct ctx *c, unsigned int source, __u32 kind, bool walked,
		       const struct kt_snap_image *v, size_t n, unsigned int *count)
{
	const struct kt_dynsym *e;
	const char *name;
	size_t i;
	int err;

	for (i = 0; walked && i < n; i++) {
		if (v[i].kind != kind)
			continue;
		name = kind == KT_SNAP_FTRACE ? "ftrace_trampoline" : v[i].name;
		if (kind == KT_SNAP_BPF_IMAGE && ((v[i].flags & KT_SNAP_F_TRUNCATED) || !name[0])) {
			e = c->ks ? kt_dynsyms_find(c->ks, v[i].start, source) : NULL;
			if (!e)
				continue;
			name = e->name;
		}
		if (v[i].end <= v[i].start || v[i].end - v[i].start > c->page * 16)
			continue; /* torn read */
		err = emit_image(c, source, v[i].start, v[i].end - v[i].start, name);
		if (err)
			return err;
		(*count)++;
	}
	for (i = 0; c->ks && !c->ks_walked && i < c->ks->n; i++) {
		e = &c->ks->v[i];
		if (e->source != source || (walked && walker_has(v, n, kind, e->addr, e->name)))
			continue;
		err = emit_image(c, source, e->addr,
				 kt_snapshot_estimate_len(c->ks, source, e->addr, c->page),
				 e->name);
		if (err)
			return err;
		(*count)++;
	}
	return 0;
}

/* The names kallsyms would give program images and kprobe pages, from the
 * walker's entries (truncated names are left out: those get rebuilt). */
static int walker_names(struct kt_dynsyms *ks, const struct kt_snap_image *v, size_t n)
{
	size_t i, cap = 0;
	int err = 0;

	memset(ks, 0, sizeof(*ks));
	for (i = 0; i < n && !err; i++) {
		if (v[i].flags & KT_SNAP_F_TRUNCATED || !v[i].name[0])
			continue;
		if (v[i].kind == KT_SNAP_BPF_PROG)
			err = kt_dynsyms_add(ks, &cap, v[i].start, KT_SRC_BPF_PROG, v[i].name);
		else if (v[i].kind == KT_SNAP_KPROBE)
			err = kt_dynsyms_add(ks, &cap, v[i].start, KT_SRC_KPROBE, v[i].name);
	}
	if (!err)
		err = kt_dynsyms_index(ks);
	if (err)
		kt_dynsyms_free(ks);
	return err;
}

/* Run the walker; c->ks then holds the names: the walker's where it
 * finished all its lists, else all of /proc/kallsyms (or a test's file). */
static int walk(struct kt_walker *wk, struct ctx *c, struct kt_dynsyms *ks,
		struct kt_snap_image **imgs, size_t *nimgs, struct kt_snapshot_stats *st)
{
	const char *kpath = wk->kallsyms;
	int err, wflags = 0;
	bool walked_kprobe;

	if (kpath) {
		/* The walker's list heads from that file too (none from
		 * /dev/null), not from the kernel. */
		err = kt_dynsyms_read_core(kpath, ks);
		if (err)
			kt_debug("snapshot: %s: %s", kpath, strerror(-err));
	}
	err = wk->none ? -ENOENT : kt_snapshot_walk(wk, kpath ? ks : NULL, imgs, nimgs, &wflags);
	if (err && wk->none) {
		wflags = KT_SNAP_NO_BPF_LIST | KT_SNAP_NO_FTRACE_LIST | KT_SNAP_NO_KPROBE_LIST;
	} else if (err) {
		kt_debug(
			"snapshot: image walker did not run (%s): lengths of BPF images and ftrace trampolines are estimated from /proc/kallsyms",
			strerror(-err));
		wflags = KT_SNAP_NO_BPF_LIST | KT_SNAP_NO_FTRACE_LIST | KT_SNAP_NO_KPROBE_LIST;
	}
	kt_dynsyms_free(ks);
	kt_trace("snapshot: walker done, %zu entries", *nimgs);
	st->walked_bpf = !(wflags & (KT_SNAP_NO_BPF_LIST | KT_SNAP_BPF_UNFINISHED));
	st->walked_ftrace = !(wflags & (KT_SNAP_NO_FTRACE_LIST | KT_SNAP_FTRACE_UNFINISHED));
	walked_kprobe = !(wflags & (KT_SNAP_NO_KPROBE_LIST | KT_SNAP_KPROBE_UNFINISHED));
	if (!err && !(st->walked_bpf && st->walked_ftrace))
		kt_debug("snapshot: walker result 0x%x: %s%s estimated from /proc/kallsyms", wflags,
			 st->walked_bpf ? "" : "BPF images ",
			 st->walked_ftrace ? "" : "ftrace trampolines");

	if (st->walked_bpf && st->walked_ftrace && walked_kprobe) {
		err = walker_names(ks, *imgs, *nimgs);
		if (err)
			return err;
		c->ks = ks;
		c->ks_walked = true;
		return 0;
	}
	kt_debug("snapshot: walker incomplete (0x%x): names from all of /proc/kallsyms", wflags);
	err = kt_dynsyms_read(kpath, ks);
	/* kt_dynsyms_read(): -EACCES also when every address reads 0. */
	if (err)
		say(c,
		    "snapshot: /proc/kallsyms: %s: program names are rebuilt; BPF images, "
		    "ftrace trampolines and kprobe pages are not listed",
		    err == -EACCES ?
			    "unreadable, or addresses hidden (kernel.kptr_restrict, no CAP_SYSLOG)" :
			    strerror(-err));
	else
		c->ks = ks;
	return 0;
}

/* Every program: its images, then its PROG_LOAD. */
static int programs(struct ctx *c, const struct kt_snap_image *imgs, size_t nimgs,
		    struct kt_snapshot_stats *st, char *why, size_t why_size)
{
	struct kt_prog_desc *progs = NULL;
	size_t nprogs = 0, i;
	int err, n;

	err = kt_snapshot_read_progs(&progs, &nprogs);
	kt_trace("snapshot: %zu programs read", nprogs);
	/* Without CAP_SYS_ADMIN (the deployments grant CAP_BPF, CAP_PERFMON
	 * and CAP_SYSLOG only), the walker's list of program images has the
	 * same programs, but for those kallsyms does not list. */
	if (err == -EPERM && st->walked_bpf) {
		say(c, "snapshot: no CAP_SYS_ADMIN to list programs by id: programs from the "
		       "kernel's symbol list instead (any loaded without CAP_BPF, which kallsyms "
		       "does not list, are left out)");
		err = kt_snapshot_progs_from_walk(imgs, nimgs, &progs, &nprogs);
	} else if (err == -EPERM && c->ks) {
		/* No walker either (arm64 before 6.4 runs no tracing program;
		 * Debian's arm64 6.1 has no CONFIG_KALLSYMS_ALL for its heads). */
		say(c, "snapshot: no CAP_SYS_ADMIN to list programs by id and no walker: programs "
		       "that exist at start-up come from /proc/kallsyms, their images without ids "
		       "or PROG_LOAD records, lengths estimated");
		/* emit_images()' kallsyms pass, for program images. */
		return emit_images(c, KT_SRC_BPF_PROG, KT_SNAP_BPF_PROG, false, NULL, 0,
				   &st->prog_ksyms);
	} else if (err == -EPERM) {
		say(c,
		    "snapshot: no CAP_SYS_ADMIN to list programs by id and no walker "
		    "(tracing programs refused?): programs that exist at start-up are not listed");
		return 0;
	}
	if (err) {
		snprintf(why, why_size, "enumerating BPF programs: %s%s", strerror(-err),
			 err == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
		return err;
	}
	st->prog_ids = true;
	st->listed |= 1u << KT_SRC_BPF_PROG;
	for (i = 0; i < nprogs && !err; i++) {
		n = kt_snapshot_prog_records(&progs[i], c->ks, c->emit, c->ctx);
		if (n < 0) {
			err = n; /* the sink's error: it says why */
			break;
		}
		st->progs++;
		st->prog_ksyms += n;
	}
	for (i = 0; i < nprogs; i++)
		kt_prog_desc_free(&progs[i]);
	free(progs);
	return err;
}

/* BPF images, ftrace trampolines, kprobe pages. */
static int images(struct ctx *c, const struct kt_snap_image *imgs, size_t nimgs,
		  struct kt_snapshot_stats *st)
{
	bool all_kallsyms = c->ks && !c->ks_walked;
	size_t i;
	int err;

	if (st->walked_bpf || all_kallsyms)
		st->listed |= 1u << KT_SRC_BPF_IMAGE;
	if (st->walked_ftrace || all_kallsyms)
		st->listed |= 1u << KT_SRC_FTRACE;
	if (c->ks)
		st->listed |= 1u << KT_SRC_KPROBE;
	err = emit_images(c, KT_SRC_BPF_IMAGE, KT_SNAP_BPF_IMAGE, st->walked_bpf, imgs, nimgs,
			  &st->images);
	if (!err)
		err = emit_images(c, KT_SRC_FTRACE, KT_SNAP_FTRACE, st->walked_ftrace, imgs, nimgs,
				  &st->ftrace);
	/* kallsyms is exact for these: kprobe_cache_get_kallsym() lists every
	 * page, and the kernel reports them with len PAGE_SIZE. */
	for (i = 0; !err && c->ks && i < c->ks->n; i++) {
		if (c->ks->v[i].source != KT_SRC_KPROBE)
			continue;
		err = emit_image(c, KT_SRC_KPROBE, c->ks->v[i].addr, c->page, c->ks->v[i].name);
		st->kprobes += !err;
	}
	return err;
}

int kt_snapshot(struct kt_walker *wk, kt_emit_fn emit, void *ctx, struct kt_snapshot_stats *st,
		char *why, size_t why_size)
{
	struct kt_snap_image *imgs = NULL;
	struct kt_dynsyms ks;
	struct ctx c = {
		.emit = emit, .ctx = ctx, .page = sysconf(_SC_PAGESIZE), .quiet = wk->quiet
	};
	size_t nimgs = 0;
	int err;

	memset(st, 0, sizeof(*st));
	memset(&ks, 0, sizeof(ks));
	err = walk(wk, &c, &ks, &imgs, &nimgs, st);
	if (err)
		snprintf(why, why_size, "reading the walker's lists: %s", strerror(-err));
	if (!err)
		err = programs(&c, imgs, nimgs, st, why, why_size);
	if (!err)
		err = images(&c, imgs, nimgs, st);
	if (!err)
		kt_debug(
			"snapshot: %u programs (%u images), %u BPF images (%s), %u ftrace trampolines (%s), %u kprobe pages",
			st->progs, st->prog_ksyms, st->images,
			st->walked_bpf ? "walked" : "kallsyms", st->ftrace,
			st->walked_ftrace ? "walked" : "kallsyms", st->kprobes);
	free(imgs);
	kt_dynsyms_free(&ks);
	return err;
}
