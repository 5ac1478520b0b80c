// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF backend at run time: the ring buffer consumer, the drop counter, the
 * owners map for adopted snapshot symbols.  Loading and attaching happen in
 * user/backend/bpf_loader.c, which leaves only fds behind.
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
#include "backend/backend.h"
#include "record/bpf_event.h"
#include "backend/bpf_loader.h"
#include "snapshot/snapshot.h"
#include "util/clock.h"
#include "backend/hooks.h"
#include "record/kallsyms.h"
#include "util/log.h"

struct bpf_backend {
	struct kt_backend base;
	struct kt_bpf_loaded l; /* the maps and links, as fds */
	struct ring_buffer *rb;
	kt_emit_fn emit;
	void *ctx;
	__s64 clock_off;
	unsigned long long dropped_seen;
	unsigned long long missed_seen; /* hook runs the kernel skipped */
	unsigned long long *percpu; /* lookup buffer for the drop counters */
	__u64 dropped_next; /* the counters' next read, at the soonest */
	bool unread; /* records consumed since the counters were read */
	__u64 wakeup_ns; /* --wakeup-ms: batched wakeups, a poll this often */
	int ncpus;
	int emit_err;
};

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
	if (kt_verbose >= 3) {
		const struct kt_event *e = data;

		kt_info("event from hook %s: %s",
			e->hook < KT_HOOK_MAX ? kt_hooks[e->hook].name : "?", r.name);
	}
	err = b->emit(b->ctx, &r);
	/* A program's KSYMBOL and BPF_EVENT in one ring record: the kernel's
	 * order, KSYMBOL first, same time. */
	if (!err && !kt_record_bpf_event_of(&r, data, size))
		err = b->emit(b->ctx, &r);
	if (err)
		b->emit_err = err;
	return err;
}

/* The per-CPU drop counters, summed: a syscall, so at most every 100 ms
 * and when a drain ends (kt_run's last poll with timeout 0). */
static unsigned long long read_dropped(struct bpf_backend *b)
{
	unsigned long long total = 0;
	__u32 zero = 0;
	int i;

	if (!b->percpu)
		return b->dropped_seen;
	if (!bpf_map_lookup_elem(b->l.dropped_fd, &zero, b->percpu))
		for (i = 0; i < b->ncpus; i++)
			total += b->percpu[i];
	return total;
}

/*
 * Hook runs the kernel skipped: a trampoline does not run a program that is
 * already running on that CPU (bpf_prog_inc_misses_counter(), 5.12,
 * 9ed9e9ba2337).  That happens when a task is preempted inside a hook and
 * another one on the same CPU makes or frees a symbol, which full and lazy
 * preemption allow (measured on 7.3 under churn: tests/soak).  Each is a
 * record lost without a trace in the ring buffer: counted from the programs'
 * recursion_misses, read with the drop counters.  0 on kernels before 5.12,
 * which do not skip.
 */
static unsigned long long read_missed(struct bpf_backend *b)
{
	unsigned long long total = 0;
	__u32 ids[KT_HOOK_MAX];
	int h, i, n = 0;

	for (h = 0; h < KT_HOOK_MAX; h++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		if (b->l.prog_fd[h] < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(b->l.prog_fd[h], &info, &len))
			continue;
		/* Hooks that share a program count once. */
		for (i = 0; i < n && ids[i] != info.id; i++)
			;
		if (i < n)
			continue;
		ids[n++] = info.id;
		total += info.recursion_misses;
	}
	return total;
}

static int emit_lost(struct bpf_backend *b, unsigned long long n)
{
	struct kt_record r;

	memset(&r, 0, offsetof(struct kt_record, name));
	r.name[0] = 0;
	r.type = KT_RECORD_LOST;
	r.origin = KT_ORIGIN_BPF;
	r.rflags = KT_RF_NO_TASK;
	r.time = kt_monotonic_ns() + b->clock_off;
	r.lost = n;
	return b->emit(b->ctx, &r);
}

/* The drop and skip counters: new losses become a LOST record each. */
static int read_counters(struct bpf_backend *b)
{
	unsigned long long d;
	int err;

	d = read_dropped(b);
	if (d > b->dropped_seen) {
		kt_warn("ring buffer full: %llu records lost (raise --ringbuf-size)",
			d - b->dropped_seen);
		err = emit_lost(b, d - b->dropped_seen);
		b->dropped_seen = d;
		if (err)
			return err;
	}
	d = read_missed(b);
	if (d > b->missed_seen) {
		kt_warn("the kernel skipped %llu hook runs (a hook preempted on the same CPU): "
			"their records are lost",
			d - b->missed_seen);
		err = emit_lost(b, d - b->missed_seen);
		b->missed_seen = d;
		if (err)
			return err;
	}
	return 0;
}

/*
 * The counters are syscalls: read after records came, at most every 100 ms;
 * a batch that came sooner leaves them for the wake-up at dropped_next, or
 * for the end of the drain (a poll that finds nothing).  A ring that loses
 * records has woken us already, so nothing needs reading while none come.
 */
static int bpf_poll(struct kt_backend *kb, int timeout_ms)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;
	__u64 now;
	int n, err;

	/* The run loops wait on fd() themselves and call this with timeout 0:
	 * then one consume, without another epoll_wait() (a syscall per
	 * wake-up saved); it also finds records a batched wake-up left. */
	n = timeout_ms ? ring_buffer__poll(b->rb, timeout_ms) : 0;
	if (n == -EINTR)
		n = 0;
	if (n == 0 && !b->emit_err)
		n = ring_buffer__consume(b->rb);
	if (b->emit_err)
		return b->emit_err;
	if (n < 0)
		return n;
	now = kt_monotonic_ns();
	b->unread |= n > 0;
	if (b->unread && (n == 0 || now >= b->dropped_next)) {
		b->unread = false;
		b->dropped_next = now + 100000000ULL;
		err = read_counters(b);
		if (err)
			return err;
	}
	b->base.wake_ns =
		kt_wake_min(b->unread ? b->dropped_next : 0, b->wakeup_ns ? now + b->wakeup_ns : 0);
	return n;
}

static int bpf_fd(struct kt_backend *kb)
{
	return ring_buffer__epoll_fd(((struct bpf_backend *)kb)->rb);
}

static unsigned long long bpf_missed(struct kt_backend *kb)
{
	return ((struct bpf_backend *)kb)->missed_seen;
}

static unsigned long long bpf_dropped(struct kt_backend *kb, bool native)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;

	return native ? 0 : b->dropped_seen;
}

static bool live(struct bpf_backend *b, int h)
{
	return b->l.link_fd[h] >= 0;
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

/* A source is watched when the hooks of both its births and its deaths are
 * live; it is absent when the hooks that would watch it are off only because
 * the kernel lacks their functions (no such code in this kernel). */
#ifdef __aarch64__
#define KT_ARCH_ARM64 1
#else
#define KT_ARCH_ARM64 0
#endif

static void src_state(struct bpf_backend *b, struct kt_source_report *r, unsigned int src,
		      bool watched, const int *hooks, int nhooks)
{
	bool absent = true;
	int i, h;

	r->state[src] = KT_SS_LIVE;
	r->why[src][0] = 0;
	if (watched)
		return;
	for (i = 0; i < nhooks; i++)
		absent &= !live(b, hooks[i]) && b->l.hook_absent[hooks[i]];
	r->state[src] = absent ? KT_SS_ABSENT : KT_SS_OFF;
	for (i = 0; i < nhooks; i++) {
		h = hooks[i];
		if (!live(b, h) && (absent || !b->l.hook_absent[h])) {
			snprintf(r->why[src], sizeof(r->why[src]), "hook %s: %s", kt_hooks[h].name,
				 b->l.hook_why[h]);
			return;
		}
	}
}

static void bpf_sources(struct kt_backend *kb, struct kt_source_report *r)
{
	static const int prog[] = { KT_HOOK_PROG_ADD, KT_HOOK_PROG_DEL, KT_HOOK_KSYM_DEL };
	static const int image[] = { KT_HOOK_KSYM_ADD, KT_HOOK_KSYM_DEL };
	static const int text[] = { KT_HOOK_EXECMEM_ALLOC, KT_HOOK_EXECMEM_FREE,
				    KT_HOOK_MODULE_ALLOC, KT_HOOK_MODULE_MEMFREE };
	static const int kprobe[] = { KT_HOOK_INSN_SLOT, KT_HOOK_EXECMEM_ALLOC,
				      KT_HOOK_EXECMEM_FREE, KT_HOOK_MODULE_ALLOC,
				      KT_HOOK_MODULE_MEMFREE };
	struct bpf_backend *b = (struct bpf_backend *)kb;
	bool execmem = live(b, KT_HOOK_EXECMEM_ALLOC) && live(b, KT_HOOK_EXECMEM_FREE);
	bool modmem = live(b, KT_HOOK_MODULE_ALLOC) && live(b, KT_HOOK_MODULE_MEMFREE);

	memset(r, 0, sizeof(*r));
	src_state(b, r, KT_SRC_BPF_PROG,
		  live(b, KT_HOOK_PROG_ADD) &&
			  (live(b, KT_HOOK_PROG_DEL) || live(b, KT_HOOK_KSYM_DEL)),
		  prog, 3);
	src_state(b, r, KT_SRC_BPF_IMAGE, live(b, KT_HOOK_KSYM_ADD) && live(b, KT_HOOK_KSYM_DEL),
		  image, 2);
	src_state(b, r, KT_SRC_FTRACE, execmem || (modmem && b->l.ftrace_caller.start), text, 4);
	src_state(b, r, KT_SRC_KPROBE,
		  live(b, KT_HOOK_INSN_SLOT) && (execmem || (modmem && b->l.kprobe_caller.start)),
		  kprobe, 5);
	/* arm64 has no per-ftrace_ops trampolines: its ftrace calls an ops
	 * through the pointer stored before each function (call_ops, 6.4+;
	 * before, through the shared ftrace_caller), and
	 * arch_ftrace_update_trampoline() is the weak stub.  Nothing to watch. */
	if (KT_ARCH_ARM64) {
		r->state[KT_SRC_FTRACE] = KT_SS_ABSENT;
		snprintf(r->why[KT_SRC_FTRACE], sizeof(r->why[0]),
			 "arm64 has no per-ops ftrace trampolines");
	}
	/* Live allocator hooks, but module_alloc()'s callers unknown. */
	if (r->state[KT_SRC_FTRACE] == KT_SS_OFF && !r->why[KT_SRC_FTRACE][0])
		snprintf(r->why[KT_SRC_FTRACE], sizeof(r->why[0]),
			 "module_alloc(): its ftrace caller is not in kallsyms");
	if (r->state[KT_SRC_KPROBE] == KT_SS_OFF && !r->why[KT_SRC_KPROBE][0])
		snprintf(r->why[KT_SRC_KPROBE], sizeof(r->why[0]),
			 "module_alloc(): its kprobe caller is not in kallsyms");
}

static void bpf_describe(struct kt_backend *kb, char *buf, size_t size)
{
	struct kt_source_report r;

	bpf_sources(kb, &r);
	kt_sources_describe(&r, 0, buf, size);
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
	if (bpf_map_update_elem(b->l.owners_fd, &key, &o, BPF_NOEXIST) && errno != EEXIST)
		return -errno;
	return 0;
}

static int bpf_walker(struct kt_backend *kb, struct kt_walker *out)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;

	if (b->l.walker_fd < 0)
		return -ENOENT;
	out->prog_fd = b->l.walker_fd;
	out->map_fd = b->l.walker_map_fd;
	out->legacy = b->l.walker_legacy;
	b->l.walker_fd = b->l.walker_map_fd = -1;
	return 0;
}

static void bpf_close(struct kt_backend *kb)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;

	if (!b)
		return;
	ring_buffer__free(b->rb);
	kt_bpf_loaded_close(&b->l);
	free(b->percpu);
	free(b);
}

static int bpf_open(struct kt_backend **out, const struct kt_backend_opts *o, kt_emit_fn emit,
		    void *ctx, char *why, size_t why_size)
{
	struct bpf_backend *b = calloc(1, sizeof(*b));
	int err;

	if (!b) {
		snprintf(why, why_size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	b->base.ops = &kt_bpf_backend;
	b->wakeup_ns = o->wakeup_ms * 1000000ULL;
	if (b->wakeup_ns)
		b->base.wake_ns = kt_monotonic_ns() + b->wakeup_ns;
	b->emit = emit;
	b->ctx = ctx;
	b->ncpus = libbpf_num_possible_cpus();
	b->percpu = calloc(b->ncpus > 0 ? b->ncpus : 1, sizeof(*b->percpu));
	if (!b->percpu) {
		snprintf(why, why_size, "%s", strerror(ENOMEM));
		free(b);
		return -ENOMEM;
	}
	kt_bpf_load(o, &b->l);
	if (b->l.err) {
		err = b->l.err;
		snprintf(why, why_size, "%s", b->l.why[0] ? b->l.why : strerror(-err));
		free(b->percpu);
		free(b);
		return err;
	}
	b->rb = ring_buffer__new(b->l.events_fd, on_event, b, NULL);
	if (!b->rb) {
		err = -errno;
		snprintf(why, why_size, "creating ring buffer: %s", strerror(-err));
		goto fail;
	}
	/* KSYMTAP_DEBUG_KTIME: keep the BPF side's raw bpf_ktime_get_ns()
	 * (CLOCK_MONOTONIC), so a reader can time delivery on the same clock
	 * with no calibrated offset in between (tests/bench). */
	if (o->debug_empty)
		kt_warn("KSYMTAP_DEBUG_EMPTY: the program hooks return at once: no program records");
	if (o->debug_ktime)
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
	.sources = bpf_sources,
	.hooks = bpf_hooks,
	.adopt = bpf_adopt,
	.walker = bpf_walker,
	.dropped = bpf_dropped,
	.missed = bpf_missed,
	.close = bpf_close,
};
