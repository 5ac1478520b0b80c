// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF backend: open -> decide hooks -> load -> attach -> poll, the
 * libbpf-bootstrap lifecycle.  A hook whose target this kernel lacks, or that
 * the kernel refuses, is turned off alone (bcc libbpf-tools style); the backend
 * fails only when nothing attaches.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "backend.h"
#include "clock.h"
#include "hooks.h"
#include "kallsyms.h"
#include "log.h"
#include "ksymtap.skel.h"

struct bpf_backend {
	struct kt_backend base;
	struct ksymtap_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *links[KT_HOOK_MAX];
	bool want[KT_HOOK_MAX];
	char why[KT_HOOK_MAX][96];
	struct kt_range ftrace_caller, kprobe_caller;
	kt_emit_fn emit;
	void *ctx;
	__s64 clock_off;
	unsigned long long dropped_seen;
	int ncpus;
	int emit_err;
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* -v: libbpf's warnings and info; -vv: its debug output too. */
	if (kt_verbose < 1 || (level == LIBBPF_DEBUG && kt_verbose < 2))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void hook_off(struct bpf_backend *b, int h, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void hook_off(struct bpf_backend *b, int h, const char *fmt, ...)
{
	va_list ap;

	b->want[h] = false;
	va_start(ap, fmt);
	vsnprintf(b->why[h], sizeof(b->why[h]), fmt, ap);
	va_end(ap);
}

static struct bpf_program *hook_prog(struct ksymtap_bpf *skel, int h)
{
	return bpf_object__find_program_by_name(skel->obj, kt_hooks[h].prog);
}

/* Which hooks can work here, from BTF and kallsyms, before anything loads. */
static void decide_hooks(struct bpf_backend *b, const struct kt_backend_opts *o, struct btf *vmlinux)
{
	static const char *const callers[] = { "arch_ftrace_update_trampoline",
					       "alloc_insn_page" };
	struct kt_range r[2];
	int h, n;

	for (h = 0; h < KT_HOOK_MAX; h++) {
		b->want[h] = true;
		if (o->disabled & (1UL << h))
			hook_off(b, h, "disabled by --disable-hook");
		else if (btf__find_by_name_kind(vmlinux, kt_hooks[h].target, BTF_KIND_FUNC) < 0)
			hook_off(b, h, "kernel has no %s()", kt_hooks[h].target);
	}
	/* < 6.10: module_alloc() serves everyone; only the caller says who. */
	if (b->want[KT_HOOK_MODULE_ALLOC]) {
		n = kt_kallsyms_func_ranges(NULL, callers, 2, r);
		if (n < 0) {
			hook_off(b, KT_HOOK_MODULE_ALLOC, "cannot resolve its callers in kallsyms: %s",
				 strerror(-n));
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

static int open_skel(struct bpf_backend *b, const struct kt_backend_opts *o, int only,
		     struct ksymtap_bpf **out)
{
	struct ksymtap_bpf *skel = ksymtap_bpf__open();
	int h, err;

	if (!skel)
		return -errno;
	for (h = 0; h < KT_HOOK_MAX; h++)
		bpf_program__set_autoload(hook_prog(skel, h), only < 0 ? b->want[h] : h == only);
	skel->rodata->ftrace_caller.start = b->ftrace_caller.start;
	skel->rodata->ftrace_caller.end = b->ftrace_caller.end;
	skel->rodata->kprobe_caller.start = b->kprobe_caller.start;
	skel->rodata->kprobe_caller.end = b->kprobe_caller.end;
	skel->rodata->page_size = sysconf(_SC_PAGESIZE);
	err = bpf_map__set_max_entries(skel->maps.events, o->ringbuf_size);
	if (err) {
		ksymtap_bpf__destroy(skel);
		return err;
	}
	*out = skel;
	return 0;
}

/* The whole object failed to load: find the programs this kernel refuses, one
 * at a time, and turn only those off. */
static void isolate_failures(struct bpf_backend *b, const struct kt_backend_opts *o)
{
	struct ksymtap_bpf *skel;
	int h, err;

	for (h = 0; h < KT_HOOK_MAX; h++) {
		if (!b->want[h])
			continue;
		err = open_skel(b, o, h, &skel);
		if (!err)
			err = ksymtap_bpf__load(skel);
		if (skel)
			ksymtap_bpf__destroy(skel);
		if (err)
			hook_off(b, h, "kernel refused to load it: %s", strerror(-err));
	}
}

static int load(struct bpf_backend *b, const struct kt_backend_opts *o)
{
	int err, h, n = 0;

	for (h = 0; h < KT_HOOK_MAX; h++)
		n += b->want[h];
	if (!n)
		return -ENOENT;
	err = open_skel(b, o, -1, &b->skel);
	if (err)
		return err;
	err = ksymtap_bpf__load(b->skel);
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
	return ksymtap_bpf__load(b->skel);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct bpf_backend *b = ctx;
	struct kt_record r;
	int err;

	if (kt_record_from_event(&r, data, size)) {
		kt_warn("malformed event from the ring buffer (%zu bytes), skipped", size);
		return 0;
	}
	r.time += b->clock_off;
	err = b->emit(b->ctx, &r);
	/* A program's KSYMBOL and BPF_EVENT in one ring record: the kernel's
	 * order, KSYMBOL first, same time. */
	if (!err && !kt_record_bpf_event_of(&r, data, size))
		err = b->emit(b->ctx, &r);
	if (err)
		b->emit_err = err;
	return err;
}

static unsigned long long read_dropped(struct bpf_backend *b)
{
	unsigned long long total = 0, *v;
	__u32 zero = 0;
	int i;

	v = calloc(b->ncpus, sizeof(*v));
	if (!v)
		return b->dropped_seen;
	if (!bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.dropped), &zero, v))
		for (i = 0; i < b->ncpus; i++)
			total += v[i];
	free(v);
	return total;
}

static int bpf_poll(struct kt_backend *kb, int timeout_ms)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;
	unsigned long long d;
	struct kt_record r;
	int n, err;

	n = ring_buffer__poll(b->rb, timeout_ms);
	if (n == -EINTR)
		n = 0;
	if (b->emit_err)
		return b->emit_err;
	if (n < 0)
		return n;
	d = read_dropped(b);
	if (d > b->dropped_seen) {
		memset(&r, 0, offsetof(struct kt_record, name));
		r.name[0] = 0;
		r.type = KT_RECORD_LOST;
		r.origin = KT_ORIGIN_BPF;
		r.rflags = KT_RF_NO_TASK;
		r.time = kt_monotonic_ns() + b->clock_off;
		r.lost = d - b->dropped_seen;
		kt_warn("ring buffer full: %llu records lost (raise --ringbuf-size)", d - b->dropped_seen);
		b->dropped_seen = d;
		err = b->emit(b->ctx, &r);
		if (err)
			return err;
	}
	return n;
}

static int bpf_fd(struct kt_backend *kb)
{
	return ring_buffer__epoll_fd(((struct bpf_backend *)kb)->rb);
}

static unsigned long long bpf_dropped(struct kt_backend *kb)
{
	return ((struct bpf_backend *)kb)->dropped_seen;
}

static bool live(struct bpf_backend *b, int h)
{
	return b->links[h] != NULL;
}

static unsigned long bpf_hooks(struct kt_backend *kb)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;
	unsigned long mask = 0;
	int h;

	for (h = 0; h < KT_HOOK_MAX; h++)
		if (live(b, h))
			mask |= 1UL << h;
	return mask;
}

static void bpf_describe(struct kt_backend *kb, char *buf, size_t size)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;
	bool ftrace = (live(b, KT_HOOK_MODULE_ALLOC) && b->ftrace_caller.start) ||
		      live(b, KT_HOOK_EXECMEM_ALLOC);
	bool kprobe = live(b, KT_HOOK_INSN_SLOT) &&
		      ((live(b, KT_HOOK_MODULE_ALLOC) && b->kprobe_caller.start) ||
		       live(b, KT_HOOK_EXECMEM_ALLOC));

	snprintf(buf, size, "%s%s%s%s", live(b, KT_HOOK_PROG_ADD) ? " bpf_prog" : "",
		 live(b, KT_HOOK_KSYM_ADD) ? " bpf_image" : "", ftrace ? " ftrace" : "",
		 kprobe ? " kprobe" : "");
	if (buf[0] == ' ')
		memmove(buf, buf + 1, strlen(buf));
}

/* ftrace trampolines and kprobe pages die at module_memfree()/execmem_free(),
 * which the BPF side recognizes only by an owners entry made at birth. */
static int bpf_adopt(struct kt_backend *kb, const struct kt_record *r)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;
	struct kt_owner o;
	__u64 key = r->addr;

	if (r->type != KT_RECORD_KSYMBOL ||
	    (r->source != KT_SRC_FTRACE && r->source != KT_SRC_KPROBE))
		return 0;
	memset(&o, 0, sizeof(o));
	o.source = r->source;
	o.len = r->len;
	memcpy(o.name, r->name, strnlen(r->name, sizeof(o.name) - 1));
	/* A birth the hooks saw already has its entry, with its task. */
	if (bpf_map_update_elem(bpf_map__fd(b->skel->maps.owners), &key, &o, BPF_NOEXIST) &&
	    errno != EEXIST)
		return -errno;
	return 0;
}

static void bpf_close(struct kt_backend *kb)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;
	int h;

	if (!b)
		return;
	ring_buffer__free(b->rb);
	for (h = 0; h < KT_HOOK_MAX; h++)
		bpf_link__destroy(b->links[h]);
	ksymtap_bpf__destroy(b->skel);
	free(b);
}

/* -v: every hook, and why any is off. */
static void list_hooks(struct bpf_backend *b)
{
	int h;

	for (h = 0; h < KT_HOOK_MAX; h++)
		kt_debug("hook %-20s on %-30s %s%s", kt_hooks[h].prog, kt_hooks[h].target,
			 b->links[h] ? "live" : "off: ", b->links[h] ? "" : b->why[h]);
}

static void explain(int err, char *why, size_t size)
{
	if (err == -EPERM && geteuid() != 0)
		snprintf(why, size, "loading tracing programs: %s (missing CAP_BPF/CAP_PERFMON? run as root)",
			 strerror(-err));
	else if (err == -EPERM)
		snprintf(why, size, "tracing programs refused by this kernel (lockdown or LSM?): %s",
			 strerror(-err));
	else
		snprintf(why, size, "loading BPF programs: %s", strerror(-err));
}

static int bpf_open(struct kt_backend **out, const struct kt_backend_opts *o, kt_emit_fn emit,
		    void *ctx, char *why, size_t why_size)
{
	struct bpf_backend *b;
	struct btf *vmlinux;
	int err, h, i, attached = 0;

	libbpf_set_print(libbpf_print);
	kt_trace("bpf backend: start");
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, why_size,
			 "kernel has no BTF (/sys/kernel/btf/vmlinux: %s; needs CONFIG_DEBUG_INFO_BTF=y)",
			 strerror(errno));
		return -ENOENT;
	}
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		err = -errno;
		snprintf(why, why_size, "reading kernel BTF: %s", strerror(-err));
		return err;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		btf__free(vmlinux);
		return -ENOMEM;
	}
	b->base.ops = &kt_bpf_backend;
	b->emit = emit;
	b->ctx = ctx;
	b->ncpus = libbpf_num_possible_cpus();
	kt_trace("bpf backend: kernel BTF parsed");
	decide_hooks(b, o, vmlinux);
	btf__free(vmlinux);
	kt_trace("bpf backend: hooks decided");

	err = load(b, o);
	kt_trace("bpf backend: programs loaded");
	if (err == -ENOENT) {
		list_hooks(b);
		snprintf(why, why_size, "no hook can work on this kernel (run with -v for why)");
		goto fail;
	}
	if (err) {
		explain(err, why, why_size);
		goto fail;
	}
	/* Deaths before births: a symbol whose birth is seen then has its death
	 * seen too.  The other way round, one born between the two attaches and
	 * gone before the second would stay in the table for good. */
	for (i = 0; i < 2 * KT_HOOK_MAX; i++) {
		h = i % KT_HOOK_MAX;
		if (!b->want[h] || kt_hooks[h].birth != (i >= KT_HOOK_MAX))
			continue;
		b->links[h] = bpf_program__attach(hook_prog(b->skel, h));
		if (!b->links[h]) {
			err = -errno;
			b->links[h] = NULL;
			hook_off(b, h, "attach failed: %s", strerror(-err));
			continue;
		}
		attached++;
	}
	kt_trace("bpf backend: programs attached");
	list_hooks(b);
	if (!attached) {
		snprintf(why, why_size, "no hook could attach (run with -v for why)");
		err = -ENOENT;
		goto fail;
	}
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.events), on_event, b, NULL);
	if (!b->rb) {
		err = -errno;
		snprintf(why, why_size, "creating ring buffer: %s", strerror(-err));
		goto fail;
	}
	/* KSYMTAP_DEBUG_KTIME: keep the BPF side's raw bpf_ktime_get_ns()
	 * (CLOCK_MONOTONIC), so a reader can time delivery on the same clock
	 * with no calibrated offset in between (tests/bench). */
	if (getenv("KSYMTAP_DEBUG_KTIME"))
		kt_debug("KSYMTAP_DEBUG_KTIME: timestamps are raw CLOCK_MONOTONIC");
	else if (kt_perf_clock_offset(&b->clock_off))
		kt_debug("perf clock unavailable; timestamps are CLOCK_MONOTONIC");
	*out = &b->base;
	return 0;
fail:
	bpf_close(&b->base);
	return err;
}

const struct kt_backend_ops kt_bpf_backend = {
	.name = "bpf",
	.open = bpf_open,
	.fd = bpf_fd,
	.poll = bpf_poll,
	.describe = bpf_describe,
	.hooks = bpf_hooks,
	.adopt = bpf_adopt,
	.dropped = bpf_dropped,
	.close = bpf_close,
};
