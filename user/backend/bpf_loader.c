// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Decide hooks -> load -> attach, the libbpf-bootstrap lifecycle, run in a
 * child process (bpf_loader.h says why).  A hook whose target this kernel
 * lacks, or that the kernel refuses, is turned off alone (bcc libbpf-tools
 * style); loading fails only when nothing attaches.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "backend/bpf_loader.h"
#include "backend/btf_funcs.h"
#include "backend/hooks.h"
#include "backend/preempt.h"
#include "record/kallsyms.h"
#include "util/log.h"
#include "util/spawn.h"
#include "ksymtap.skel.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* What the loading side works with; only fds leave it. */
struct loader {
	struct ksymtap_bpf *skel;
	struct bpf_link *links[KT_HOOK_MAX];
	/* The twins' (bpf/ksymtap.bpf.c): [0] role 1 (_b), [1] role 2 (_c). */
	struct bpf_link *twins[2][KT_HOOK_MAX];
	bool backup; /* load the twins: this kernel may skip a hook's run */
	bool want[KT_HOOK_MAX];
	char why[KT_HOOK_MAX][96];
	bool want_walker; /* the snapshot's, loaded along (one BTF parse) */
	bool legacy; /* no bpf_loop() (< 5.17): the _legacy program twins */
	bool absent[KT_HOOK_MAX]; /* the kernel has no such function */
	bool walker_legacy; /* no bpf_kallsyms_lookup_name() (< 5.16) */
	bool prog_del_live; /* the skeleton was loaded counting on prog_del */
	struct kt_range ftrace_caller, kprobe_caller;
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* -v: libbpf's warnings and info; -vv: its debug output too. */
	if (kt_verbose < 1 || (level == LIBBPF_DEBUG && kt_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void hook_off(struct loader *b, int h, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void hook_off(struct loader *b, int h, const char *fmt, ...)
{
	va_list ap;

	b->want[h] = false;
	va_start(ap, fmt);
	vsnprintf(b->why[h], sizeof(b->why[h]), fmt, ap);
	va_end(ap);
}

static const char *prog_name(const struct loader *b, int h)
{
	return b->legacy && kt_hooks[h].prog_legacy ? kt_hooks[h].prog_legacy : kt_hooks[h].prog;
}

static struct bpf_program *hook_prog(const struct loader *b, struct ksymtap_bpf *skel, int h)
{
	return bpf_object__find_program_by_name(skel->obj, prog_name(b, h));
}

/* A program's twins are named as it is, with _b and _c (t 0 and 1). */
static struct bpf_program *twin_prog(const struct loader *b, struct ksymtap_bpf *skel, int h, int t)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_%c", prog_name(b, h), 'b' + t);
	return bpf_object__find_program_by_name(skel->obj, name);
}

/* The snapshot's walker: a SYSCALL program, or before 5.16 its raw tracepoint
 * twin, which needs the list heads from kallsyms (bpf/snapshot.bpf.c). */
static struct bpf_program *walker_prog(const struct loader *b, struct ksymtap_bpf *skel)
{
	return b->walker_legacy ? skel->progs.walk_images_legacy : skel->progs.walk_images;
}

/* found[h]: the kernel's BTF has hook h's target; found[KT_HOOK_MAX]: it has
 * bpf_loop() (5.17+); found[KT_HOOK_MAX + 1]: bpf_kallsyms_lookup_name() (5.16+).  A raw scan, or libbpf's parse if that does not
 * understand this BTF.  -errno with why[] if neither works. */
static int find_targets(bool *found, char *why, size_t size)
{
	const char *names[KT_HOOK_MAX + 2];
	struct btf *vmlinux;
	int h, err;

	for (h = 0; h < KT_HOOK_MAX; h++)
		names[h] = kt_hooks[h].target;
	names[KT_HOOK_MAX] = "bpf_loop";
	names[KT_HOOK_MAX + 1] = "bpf_kallsyms_lookup_name";
	err = kt_btf_find_funcs(VMLINUX_BTF, names, KT_HOOK_MAX + 2, found);
	if (err == -ENOENT) {
		snprintf(why, size,
			 "kernel has no BTF (" VMLINUX_BTF ": %s; needs CONFIG_DEBUG_INFO_BTF=y)",
			 strerror(-err));
		return err;
	}
	if (!err)
		return 0;
	kt_debug(VMLINUX_BTF ": %s; asking libbpf", strerror(-err));
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		err = -errno;
		snprintf(why, size, "reading kernel BTF: %s", strerror(-err));
		return err;
	}
	for (h = 0; h < KT_HOOK_MAX + 2; h++)
		found[h] = btf__find_by_name_kind(vmlinux, names[h], BTF_KIND_FUNC) >= 0;
	btf__free(vmlinux);
	return 0;
}

/* The running kernel's version is at least major.minor (uname). */
static bool kt_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return true;
	return ma > major || (ma == major && mi >= minor);
}

/*
 * The twins (bpf/ksymtap.bpf.c) where a hook's run can be skipped: a task
 * preempted inside it (full, lazy or RT preemption: user/backend/preempt.c).
 * Only the bpf_loop() programs have twins: on 5.12 to 5.16 with such
 * preemption a skipped run is reported as lost.
 */
static void decide_backup(struct loader *b, const struct kt_backend_opts *o)
{
	char how[128];
	bool preempt = kt_preemptible(how, sizeof(how));

	b->backup = false;
	if (o->debug_no_backup)
		kt_debug("backup hooks: off (KSYMTAP_DEBUG_NO_BACKUP)");
	else if (!preempt)
		kt_debug("backup hooks: not needed (%s: a hook is never preempted)", how);
	else if (b->legacy)
		kt_debug("backup hooks: %s, but this kernel lacks bpf_loop() (< 5.17), which "
			 "they need: runs it skips are reported as lost",
			 how);
	else
		b->backup = true;
	if (b->backup)
		kt_debug("backup hooks: on (%s)", how);
}

/* Which hooks can work here, from BTF and kallsyms, before anything loads. */
static void decide_hooks(struct loader *b, const struct kt_backend_opts *o, const bool *found)
{
	static const char *const callers[] = { "arch_ftrace_update_trampoline", "alloc_insn_page" };
	struct kt_range r[2];
	int h, n;

	b->want_walker = o->walker;
	b->legacy = !found[KT_HOOK_MAX];
	decide_backup(b, o);
	b->walker_legacy = !found[KT_HOOK_MAX + 1];
	if (b->legacy)
		kt_debug("kernel has no bpf_loop() (< 5.17): the program hooks' _legacy twins");
	for (h = 0; h < KT_HOOK_MAX; h++) {
		b->want[h] = true;
		if (o->disabled & (1UL << h))
			hook_off(b, h, "disabled by --disable-hook");
		else if (!found[h]) {
			hook_off(b, h, "kernel has no %s()", kt_hooks[h].target);
			b->absent[h] = true;
		}
	}
	/* < 6.10: module_alloc() serves everyone; only the caller says who. */
	if (b->want[KT_HOOK_MODULE_ALLOC]) {
		n = kt_kallsyms_func_ranges(NULL, callers, 2, r);
		if (n < 0) {
			hook_off(b, KT_HOOK_MODULE_ALLOC,
				 "cannot resolve its callers in kallsyms: %s", strerror(-n));
		} else if (n == 0) {
			hook_off(b, KT_HOOK_MODULE_ALLOC, "kallsyms has neither %s nor %s",
				 callers[0], callers[1]);
		} else {
			b->ftrace_caller = r[0];
			b->kprobe_caller = r[1];
		}
	}
	if (!b->want[KT_HOOK_MODULE_ALLOC] && b->want[KT_HOOK_MODULE_MEMFREE])
		hook_off(b, KT_HOOK_MODULE_MEMFREE, "module_alloc hook is off");
	if (!b->want[KT_HOOK_EXECMEM_ALLOC] && b->want[KT_HOOK_EXECMEM_FREE])
		hook_off(b, KT_HOOK_EXECMEM_FREE, "execmem_alloc hook is off");
	/* kprobe pages are reported where __get_insn_slot() returns, but only
	 * once an allocator hook has seen the page being made. */
	if (b->want[KT_HOOK_INSN_SLOT] && !b->want[KT_HOOK_EXECMEM_ALLOC] &&
	    !(b->want[KT_HOOK_MODULE_ALLOC] && b->kprobe_caller.start))
		hook_off(b, KT_HOOK_INSN_SLOT, "no allocator hook sees kprobe pages");
}

/* The programs' constants, for the verifier to prune on. */
static void set_rodata(const struct loader *b, const struct kt_backend_opts *o,
		       struct ksymtap_bpf *skel)
{
	skel->rodata->ftrace_caller.start = b->ftrace_caller.start;
	skel->rodata->ftrace_caller.end = b->ftrace_caller.end;
	skel->rodata->kprobe_caller.start = b->kprobe_caller.start;
	skel->rodata->kprobe_caller.end = b->kprobe_caller.end;
	skel->rodata->page_size = sysconf(_SC_PAGESIZE);
	skel->rodata->prog_del_live = b->prog_del_live;
	skel->rodata->debug_empty = o->debug_empty;
	/* Copies at unload only where an archive takes them (code_copy.bpf.h). */
	skel->rodata->code_live = o->code_stage != NULL;
	/* Batched wakeups: a forced one once a quarter of the ring is waiting,
	 * so a burst is read long before the ring fills. */
	skel->rodata->wakeup_bytes = o->wakeup_ms ? o->ringbuf_size / 4 : 0;
}

static int open_skel(struct loader *b, const struct kt_backend_opts *o, int only,
		     struct ksymtap_bpf **out)
{
	struct ksymtap_bpf *skel = ksymtap_bpf__open();
	struct bpf_program *p;
	int h, t, err;

	if (!skel)
		return -errno;
	/* only: one hook, or KT_HOOK_MAX for the walker alone.  Of a hook's
	 * twins, the one for this kernel. */
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	for (h = 0; h < KT_HOOK_MAX; h++) {
		bpf_program__set_autoload(hook_prog(b, skel, h), only < 0 ? b->want[h] : h == only);
		/* The _legacy programs have no twins (decide_backup()). */
		for (t = 0; t < 2; t++) {
			p = twin_prog(b, skel, h, t);
			if (p)
				bpf_program__set_autoload(p, b->backup && (only < 0 ? b->want[h] :
										      h == only));
		}
	}
	skel->rodata->backup_live = b->backup;
	/* The twins' marks are task storage (5.11): without twins, a map any
	 * kernel makes stands in, unused (5.10 has no task storage). */
	if (!b->backup) {
		err = bpf_map__set_type(skel->maps.claims, BPF_MAP_TYPE_ARRAY);
		if (!err)
			err = bpf_map__set_map_flags(skel->maps.claims, 0);
		if (!err)
			err = bpf_map__set_max_entries(skel->maps.claims, 1);
		if (err) {
			ksymtap_bpf__destroy(skel);
			return err;
		}
	}
	bpf_program__set_autoload(walker_prog(b, skel),
				  only < 0 ? b->want_walker : only == KT_HOOK_MAX);
	/* ksym_del leaves programs to prog_del: loaded without that path, it
	 * verifies in a fraction of the time (start-up, BENCHMARKS.md). */
	b->prog_del_live = only < 0 && b->want[KT_HOOK_PROG_DEL];
	set_rodata(b, o, skel);
	err = bpf_map__set_max_entries(skel->maps.events, o->ringbuf_size);
	if (!err && !o->code_stage)
		err = bpf_map__set_max_entries(skel->maps.code_have, 1);
	if (err) {
		ksymtap_bpf__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

/* The whole object failed to load: find the programs this kernel refuses, one
 * at a time, and turn only those off. */
/* Load one program alone (a hook, or KT_HOOK_MAX: the walker): 0 or -errno. */
static int try_alone(struct loader *b, const struct kt_backend_opts *o, int only)
{
	struct ksymtap_bpf *skel = NULL;
	int err = open_skel(b, o, only, &skel);

	if (!err)
		err = ksymtap_bpf__load(skel);
	ksymtap_bpf__destroy(skel);
	return err;
}

static void isolate_failures(struct loader *b, const struct kt_backend_opts *o)
{
	int h, err;

	for (h = 0; h < KT_HOOK_MAX; h++) {
		if (!b->want[h])
			continue;
		err = try_alone(b, o, h);
		if (err)
			hook_off(b, h, "kernel refused to load it: %s", strerror(-err));
	}
	if (!b->want_walker)
		return;
	err = try_alone(b, o, KT_HOOK_MAX);
	if (err) {
		b->want_walker = false;
		kt_debug("snapshot walker: kernel refused to load it: %s", strerror(-err));
	}
}

/* -vv: the verifier's own account of each program it loads (log level 4,
 * BPF_LOG_STATS since 5.2: its time, states and instructions processed),
 * so that the start-up's load phase can be split (BENCHMARKS.md). */
#define VSTATS_PROGS 16
#define VSTATS_SIZE 4096

static int load_skel(struct ksymtap_bpf *skel)
{
	static char logs[VSTATS_PROGS][VSTATS_SIZE];
	struct bpf_program *p;
	char *l, *nl;
	int i = 0, err;

	if (kt_verbose < 2)
		return ksymtap_bpf__load(skel);
	bpf_object__for_each_program(p, skel->obj) {
		if (!bpf_program__autoload(p) || i == VSTATS_PROGS)
			continue;
		logs[i][0] = 0;
		bpf_program__set_log_level(p, 4);
		bpf_program__set_log_buf(p, logs[i++], VSTATS_SIZE);
	}
	err = ksymtap_bpf__load(skel);
	i = 0;
	bpf_object__for_each_program(p, skel->obj) {
		if (!bpf_program__autoload(p) || i == VSTATS_PROGS)
			continue;
		for (l = logs[i++]; *l; l = nl + 1) {
			nl = strchrnul(l, '\n');
			kt_trace("verifier: %s: %.*s", bpf_program__name(p), (int)(nl - l), l);
			if (!*nl)
				break;
		}
	}
	return err;
}

static int load(struct loader *b, const struct kt_backend_opts *o)
{
	int err, h, n = 0;

	for (h = 0; h < KT_HOOK_MAX; h++)
		n += b->want[h];
	if (!n)
		return -ENOENT;
	err = open_skel(b, o, -1, &b->skel);
	if (err)
		return err;
	err = load_skel(b->skel);
	if (!err)
		return 0;
	ksymtap_bpf__destroy(b->skel);
	b->skel = NULL;
	if (err == -EPERM)
		return err;
	isolate_failures(b, o);
	err = open_skel(b, o, -1, &b->skel);
	if (err)
		return err;
	return load_skel(b->skel);
}

static void explain(int err, char *why, size_t size)
{
	struct rlimit rl;

	/* Before 5.11 maps count against RLIMIT_MEMLOCK, and libbpf could not
	 * raise it (no CAP_SYS_RESOURCE): EPERM that says nothing of why. */
	if (err == -EPERM && !kt_kernel_at_least(5, 11) && !getrlimit(RLIMIT_MEMLOCK, &rl) &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (64ULL << 20))
		snprintf(why, size,
			 "loading BPF programs: %s (RLIMIT_MEMLOCK is %llu KiB: kernels before "
			 "5.11 charge BPF maps to it; raise it, e.g. ulimit -l unlimited or "
			 "LimitMEMLOCK=infinity, or grant CAP_SYS_RESOURCE)",
			 strerror(-err), (unsigned long long)rl.rlim_cur >> 10);
	else if (err == -EPERM && geteuid() != 0)
		snprintf(why, size,
			 "loading tracing programs: %s (missing CAP_BPF/CAP_PERFMON? run as root)",
			 strerror(-err));
	else if (err == -EPERM)
		snprintf(why, size,
			 "tracing programs refused by this kernel (lockdown or LSM?): %s",
			 strerror(-err));
	else
		snprintf(why, size, "loading BPF programs: %s", strerror(-err));
}

/* -v: every hook, and why any is off. */
static void list_hooks(struct loader *b)
{
	int h;

	for (h = 0; h < KT_HOOK_MAX; h++)
		kt_debug("hook %-20s on %-30s program %-20s %s%s%s", kt_hooks[h].name,
			 kt_hooks[h].target, prog_name(b, h),
			 b->links[h] ? "live" : "off: ", b->links[h] ? "" : b->why[h],
			 b->links[h] && b->twins[1][h] ? " (and its backup twins)" : "");
}

static void loader_free(struct loader *b)
{
	int h;

	for (h = 0; h < KT_HOOK_MAX; h++) {
		bpf_link__destroy(b->links[h]);
		bpf_link__destroy(b->twins[0][h]);
		bpf_link__destroy(b->twins[1][h]);
		b->links[h] = b->twins[0][h] = b->twins[1][h] = NULL;
	}
	ksymtap_bpf__destroy(b->skel);
	b->skel = NULL;
}

/* Role 2, then role 1: the trampoline runs the last attached first. */
static void attach_twins(struct loader *b, int h)
{
	int t;

	for (t = 1; t >= 0; t--) {
		b->twins[t][h] = bpf_program__attach(twin_prog(b, b->skel, h, t));
		if (b->twins[t][h])
			continue;
		kt_debug("hook %s: backup twin did not attach (%s): runs the kernel skips are "
			 "lost",
			 kt_hooks[h].name, strerror(errno));
		bpf_link__destroy(b->twins[1][h]);
		b->twins[1][h] = NULL;
		return;
	}
}

/* Deaths before births: a symbol whose birth is seen then has its death seen
 * too.  The other way round, one born between the two attaches and gone
 * before the second would stay in the table for good.  Returns how many. */
static int attach_all(struct loader *b)
{
	int i, h, err, attached = 0;

	for (i = 0; i < 2 * KT_HOOK_MAX; i++) {
		h = i % KT_HOOK_MAX;
		if (!b->want[h] || kt_hooks[h].birth != (i >= KT_HOOK_MAX))
			continue;
		/* The twin first: the trampoline runs the last attached first. */
		if (b->backup)
			attach_twins(b, h);
		b->links[h] = bpf_program__attach(hook_prog(b, b->skel, h));
		if (!b->links[h]) {
			err = -errno;
			b->links[h] = NULL;
			/* 524: the kernel's internal ENOTSUPP, e.g. fentry on arm64
			 * before 6.4 (no ftrace direct calls); libc has no text. */
			if (err == -524)
				hook_off(b, h,
					 "attach failed: not supported by this kernel (ENOTSUPP)");
			else
				hook_off(b, h, "attach failed: %s", strerror(-err));
			continue;
		}
		/* All three attached: the twins may now make up for skipped runs. */
		if (b->twins[0][h] && b->twins[1][h])
			b->skel->bss->backup_on[h] = true;
		attached++;
	}
	return attached;
}

/* dup() what the result keeps: 0 or -errno. */
static int keep_fd(struct kt_bpf_loaded *out, enum kt_bpf_fd i, int fd)
{
	out->fd[i] = dup(fd);
	return out->fd[i] < 0 ? -errno : 0;
}

static int keep_fds(struct loader *b, struct kt_bpf_loaded *out)
{
	int h, err;

	err = keep_fd(out, KT_FD_EVENTS, bpf_map__fd(b->skel->maps.events))	      ?:
		      keep_fd(out, KT_FD_DROPPED, bpf_map__fd(b->skel->maps.dropped)) ?:
		      keep_fd(out, KT_FD_OWNERS, bpf_map__fd(b->skel->maps.owners))   ?:
		      keep_fd(out, KT_FD_BACKUP_STATS, bpf_map__fd(b->skel->maps.backup_stats)) ?:
		      keep_fd(out, KT_FD_CODE_HAVE, bpf_map__fd(b->skel->maps.code_have)) ?:
		      keep_fd(out, KT_FD_CODE_STATS, bpf_map__fd(b->skel->maps.code_stats));
	for (h = 0; !err && h < KT_HOOK_MAX; h++) {
		if (!b->links[h])
			continue;
		err = keep_fd(out, KT_FD_LINK + h, bpf_link__fd(b->links[h])) ?:
			      keep_fd(out, KT_FD_PROG + h,
				      bpf_program__fd(hook_prog(b, b->skel, h)));
		/* Freeing the libbpf object must not detach: the fd does that. */
		bpf_link__disconnect(b->links[h]);
		if (err || !b->twins[0][h] || !b->twins[1][h])
			continue;
		err = keep_fd(out, KT_FD_LINK_B + h, bpf_link__fd(b->twins[0][h])) ?:
			      keep_fd(out, KT_FD_LINK_C + h, bpf_link__fd(b->twins[1][h]));
		bpf_link__disconnect(b->twins[0][h]);
		bpf_link__disconnect(b->twins[1][h]);
	}
	if (!err && b->want_walker) {
		out->walker_legacy = b->walker_legacy;
		err = keep_fd(out, KT_FD_WALKER, bpf_program__fd(walker_prog(b, b->skel))) ?:
			      keep_fd(out, KT_FD_WALKER_MAP, bpf_map__fd(b->skel->maps.walker));
	}
	return err;
}

/* The loading itself, in whichever process runs it; the result holds dup()s
 * of the fds, independent of libbpf's objects, which are gone afterwards. */
/* Over 60 lines: the load is one sequence (open, CO-RE fixes per hook, load,
 * attach each, report), easier to check against the kernel in one piece. */
static void load_here(const struct kt_backend_opts *o, struct kt_bpf_loaded *out)
{
	struct loader L, *b = &L;
	bool found[KT_HOOK_MAX + 2];
	int err, h, attached = 0;

	memset(b, 0, sizeof(*b));
	libbpf_set_print(libbpf_print);
	out->err = find_targets(found, out->why, sizeof(out->why));
	if (out->err)
		return;
	decide_hooks(b, o, found);
	kt_trace("bpf backend: hooks decided");

	err = load(b, o);
	kt_trace("bpf backend: programs loaded");
	if (err == -ENOENT) {
		list_hooks(b);
		snprintf(out->why, sizeof(out->why),
			 "no hook can work on this kernel (run with -v for why)");
		goto fail;
	}
	if (err) {
		explain(err, out->why, sizeof(out->why));
		goto fail;
	}
	attached = attach_all(b);
	if (attached && b->prog_del_live && !b->links[KT_HOOK_PROG_DEL]) {
		/* ksym_del was loaded without its program path: again, with it. */
		kt_debug("prog_del did not attach: loading ksym_del with program unloads");
		loader_free(b);
		err = load(b, o);
		if (err) {
			explain(err, out->why, sizeof(out->why));
			goto fail;
		}
		attached = attach_all(b);
	}
	kt_trace("bpf backend: programs attached");
	list_hooks(b);
	if (!attached) {
		snprintf(out->why, sizeof(out->why), "no hook could attach (run with -v for why)");
		err = -ENOENT;
		goto fail;
	}
	err = keep_fds(b, out);
	if (err) {
		snprintf(out->why, sizeof(out->why), "dup: %s", strerror(-err));
		goto fail;
	}
fail:
	for (h = 0; h < KT_HOOK_MAX; h++) {
		snprintf(out->hook_why[h], sizeof(out->hook_why[h]), "%s", b->why[h]);
		out->hook_absent[h] = b->absent[h];
	}
	out->ftrace_caller = b->ftrace_caller;
	out->kprobe_caller = b->kprobe_caller;
	out->err = err;
	loader_free(b);
	if (err)
		kt_bpf_loaded_close(out);
	out->err = err;
}

static void loaded_init(struct kt_bpf_loaded *l)
{
	int i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < KT_FD_MAX; i++)
		l->fd[i] = -1;
	l->page_size = sysconf(_SC_PAGESIZE);
}

void kt_bpf_loaded_close(struct kt_bpf_loaded *l)
{
	int i;

	for (i = 0; i < KT_FD_MAX; i++) {
		if (l->fd[i] >= 0)
			close(l->fd[i]);
		l->fd[i] = -1;
	}
}

/* The result and its fds, in the order of enum kt_bpf_fd, in one
 * SOCK_SEQPACKET message; the receiver tells which came from the values
 * the result holds (>= 0: sent). */
static int send_loaded(int sock, const struct kt_bpf_loaded *l)
{
	char cbuf[CMSG_SPACE(sizeof(int) * KT_FD_MAX)] = {};
	struct iovec iov = { .iov_base = (void *)l, .iov_len = sizeof(*l) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fds[KT_FD_MAX], n = 0, i;
	struct cmsghdr *cm;

	for (i = 0; !l->err && i < KT_FD_MAX; i++)
		if (l->fd[i] >= 0)
			fds[n++] = l->fd[i];
	if (n) {
		msg.msg_control = cbuf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * n);
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof(*l) ? 0 : -errno;
}

static int recv_loaded(int sock, struct kt_bpf_loaded *l)
{
	char cbuf[CMSG_SPACE(sizeof(int) * KT_FD_MAX)];
	struct iovec iov = { .iov_base = l, .iov_len = sizeof(*l) };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	int fds[KT_FD_MAX], n = 0, k = 0, i;
	struct cmsghdr *cm;
	ssize_t r;

	do {
		r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r != (ssize_t)sizeof(*l))
		return -EPROTO; /* the child died before it could say */
	cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds, CMSG_DATA(cm), sizeof(int) * n);
	}
	for (i = 0; i < KT_FD_MAX; i++)
		l->fd[i] = !l->err && l->fd[i] >= 0 && k < n ? fds[k++] : -1;
	while (k < n)
		close(fds[k++]);
	for (i = 0; i < KT_FD_MAX && !l->err; i++)
		if (i <= KT_FD_OWNERS && l->fd[i] < 0)
			return -EPROTO;
	return 0;
}

struct load_call {
	const struct kt_backend_opts *o;
	struct kt_bpf_loaded *out;
	bool child; /* a child was made: its failure is not loaded here */
};

static int load_child(int fd, void *ctx)
{
	struct load_call *c = ctx;
	struct kt_bpf_loaded l;

	loaded_init(&l);
	load_here(c->o, &l);
	return send_loaded(fd, &l);
}

static int load_parent(int fd, void *ctx)
{
	struct load_call *c = ctx;

	c->child = true;
	return recv_loaded(fd, c->out);
}

void kt_bpf_load(const struct kt_backend_opts *o, struct kt_bpf_loaded *out)
{
	struct load_call c = { .o = o, .out = out };
	int err;

	loaded_init(out);
	kt_trace("bpf backend: start");
	err = kt_fork_call(SOCK_SEQPACKET, load_child, load_parent, &c);
	if (err && !c.child) {
		kt_debug("no loader process (%s): loading in this process", strerror(-err));
		load_here(o, out);
	} else if (err) {
		kt_bpf_loaded_close(out);
		out->err = err;
		snprintf(out->why, sizeof(out->why), "the loader process failed: %s",
			 strerror(-err));
	}
}
