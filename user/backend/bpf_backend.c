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
#include "backend/code_capture.h"
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
	unsigned long long missed_seen; /* hook runs lost (skipped, not made up) */
	unsigned long long missed_calc; /* the last read's figure, not yet confirmed */
	unsigned long long skipped_seen; /* the main programs' recursion_misses */
	unsigned long long made_up_seen; /* the runs of those the twins did */
	bool confirm; /* a loss a later read must confirm */
	__u64 confirm_at; /* that read, at the soonest */
	unsigned long long *percpu; /* lookup buffer for the drop counters */
	__u64 dropped_next; /* the counters' next read, at the soonest */
	bool unread; /* records consumed since the counters were read */
	__u64 wakeup_ns; /* --wakeup-ms: batched wakeups, a poll this often */
	int ncpus;
	int emit_err;
	/* The BPF side's copies of programs' code (code_capture.h), or NULL. */
	struct kt_code_stage *stage;
	struct kt_code_asm *code;
};

static int on_event(void *ctx, void *data, size_t size)
{
	struct bpf_backend *b = ctx;
	struct kt_record r;
	int err;

	if (b->code && kt_code_asm_feed(b->code, data, size))
		return 0;
	if (kt_record_from_event(&r, data, size)) {
		kt_warn("malformed event from the ring buffer (%zu bytes), skipped", size);
		return 0;
	}
	r.time += b->clock_off;
	if (b->code && r.type == KT_RECORD_KSYMBOL && r.source == KT_SRC_BPF_PROG &&
	    r.flags & KT_KSYM_FLAG_UNREGISTER)
		r.code_seq = kt_code_asm_take(b->code, r.addr);
	if (kt_verbose >= 3) {
		const struct kt_event *e = data;

		kt_info("event from hook %s: %s",
			e->hook < KT_HOOK_MAX ? kt_hooks[e->hook].name : "?", r.name);
	}
	err = b->emit(b->ctx, &r);
	/* A program's KSYMBOL and BPF_EVENT in one ring record: the kernel's
	 * order, KSYMBOL first, same time. */
	r.code_seq = 0;
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
	if (!bpf_map_lookup_elem(b->l.fd[KT_FD_DROPPED], &zero, b->percpu))
		for (i = 0; i < b->ncpus; i++)
			total += b->percpu[i];
	return total;
}

/* A per-CPU counter of map fd i, summed. */
static unsigned long long percpu_stat(struct bpf_backend *b, enum kt_bpf_fd i, __u32 key)
{
	unsigned long long total = 0;
	int c;

	if (b->l.fd[i] < 0 || bpf_map_lookup_elem(b->l.fd[i], &key, b->percpu))
		return 0;
	for (c = 0; c < b->ncpus; c++)
		total += b->percpu[c];
	return total;
}

/* The twins' counters (bpf/ksymtap.bpf.c backup_stats). */
static unsigned long long backup_stat(struct bpf_backend *b, __u32 key)
{
	return percpu_stat(b, KT_FD_BACKUP_STATS, key);
}

/*
 * Hook runs the kernel skipped: a trampoline does not run a program that is
 * already running on that CPU (bpf_prog_inc_misses_counter(), 5.12,
 * 9ed9e9ba2337).  That happens when a task is preempted inside a hook and
 * another one on the same CPU makes or frees a symbol, which full and lazy
 * preemption allow (6.18 and 7.x run lazy by default).  Each hook's twin
 * makes up for the runs its main program skipped (bpf/ksymtap.bpf.c): a
 * run is lost only when both were skipped, which is the main program's
 * recursion_misses plus its marks that failed, less the runs the twin made
 * up.  Without a twin (off, or < 5.12, which skips nothing) every skipped
 * run is lost.  *skipped: the main programs' recursion_misses alone.
 */
static unsigned long long read_missed(struct bpf_backend *b, unsigned long long *skipped,
				      unsigned long long *made_up_all)
{
	unsigned long long total = 0, misses, made_up;
	int h;

	*skipped = *made_up_all = 0;
	for (h = 0; h < KT_HOOK_MAX; h++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		if (b->l.fd[KT_FD_PROG + h] < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(b->l.fd[KT_FD_PROG + h], &info, &len))
			continue;
		/* The misses first: a run the twin makes up after this read is
		 * then counted as made up too early, never as lost. */
		misses = info.recursion_misses;
		*skipped += misses;
		if (b->l.fd[KT_FD_LINK_B + h] < 0) {
			total += misses;
			continue;
		}
		misses += backup_stat(b, KT_HOOK_MAX + h);
		made_up = backup_stat(b, h);
		*made_up_all += made_up;
		total += misses > made_up ? misses - made_up : 0;
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

#define CONFIRM_NS 100000000ULL

/*
 * Skipped runs not (yet) made up.  A twin runs right after the main program
 * it stands in for, but a preempted task may delay it: a loss is taken as
 * such when a read at least 100 ms after the one that first showed it still
 * shows it (the smaller figure of the two).
 */
static int check_missed(struct bpf_backend *b)
{
	unsigned long long d, lost, skipped, made_up;
	__u64 now = kt_monotonic_ns();

	d = read_missed(b, &skipped, &made_up);
	__atomic_store_n(&b->skipped_seen, skipped, __ATOMIC_RELAXED);
	__atomic_store_n(&b->made_up_seen, made_up, __ATOMIC_RELAXED);
	if (d <= b->missed_seen) {
		b->confirm = false;
		return 0;
	}
	if (!b->confirm || now < b->confirm_at) {
		if (!b->confirm)
			b->missed_calc = d;
		b->confirm = true;
		b->confirm_at = b->confirm_at > now ? b->confirm_at : now + CONFIRM_NS;
		return 0;
	}
	lost = d < b->missed_calc ? d : b->missed_calc;
	b->missed_calc = d;
	b->confirm_at = now + CONFIRM_NS;
	b->confirm = d > lost;
	if (lost <= b->missed_seen)
		return 0;
	d = lost - b->missed_seen;
	kt_warn("the kernel skipped %llu hook runs that no backup twin made up (a hook "
		"preempted on the same CPU): their records are lost",
		d);
	__atomic_store_n(&b->missed_seen, lost, __ATOMIC_RELAXED);
	return emit_lost(b, d);
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
		/* Read by the run loop's thread (metrics), written here on the
		 * reader's (user/backend/pump.h). */
		__atomic_store_n(&b->dropped_seen, d, __ATOMIC_RELAXED);
		if (err)
			return err;
	}
	return check_missed(b);
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
	if ((b->unread && (n == 0 || now >= b->dropped_next)) ||
	    (b->confirm && now >= b->confirm_at)) {
		b->unread = false;
		b->dropped_next = now + 100000000ULL;
		err = read_counters(b);
		if (err)
			return err;
	}
	b->base.wake_ns = kt_wake_min(kt_wake_min(b->unread ? b->dropped_next : 0,
						  b->confirm ? b->confirm_at : 0),
				      b->wakeup_ns ? now + b->wakeup_ns : 0);
	return n;
}

static int bpf_fd(struct kt_backend *kb)
{
	return ring_buffer__epoll_fd(((struct bpf_backend *)kb)->rb);
}

static unsigned long long bpf_missed(struct kt_backend *kb)
{
	return __atomic_load_n(&((struct bpf_backend *)kb)->missed_seen, __ATOMIC_RELAXED);
}

static unsigned long long bpf_skipped(struct kt_backend *kb, unsigned long long *made_up)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;

	*made_up = __atomic_load_n(&b->made_up_seen, __ATOMIC_RELAXED);
	return __atomic_load_n(&b->skipped_seen, __ATOMIC_RELAXED);
}

static unsigned long long bpf_dropped(struct kt_backend *kb, bool native)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;

	return native ? 0 : __atomic_load_n(&b->dropped_seen, __ATOMIC_RELAXED);
}

static bool live(struct bpf_backend *b, int h)
{
	return b->l.fd[KT_FD_LINK + h] >= 0;
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
	if (bpf_map_update_elem(b->l.fd[KT_FD_OWNERS], &key, &o, BPF_NOEXIST) && errno != EEXIST)
		return -errno;
	return 0;
}

static int bpf_walker(struct kt_backend *kb, struct kt_walker *out)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;

	if (b->l.fd[KT_FD_WALKER] < 0)
		return -ENOENT;
	out->prog_fd = b->l.fd[KT_FD_WALKER];
	out->map_fd = b->l.fd[KT_FD_WALKER_MAP];
	out->legacy = b->l.walker_legacy;
	b->l.fd[KT_FD_WALKER] = b->l.fd[KT_FD_WALKER_MAP] = -1;
	return 0;
}

/* The recursion_misses of the program behind a link: 0 if unknown. */
static unsigned long long link_misses(int link_fd)
{
	struct bpf_link_info li;
	struct bpf_prog_info pi;
	__u32 len = sizeof(li);
	int fd;

	memset(&li, 0, sizeof(li));
	if (link_fd < 0 || bpf_obj_get_info_by_fd(link_fd, &li, &len))
		return 0;
	fd = bpf_prog_get_fd_by_id(li.prog_id);
	if (fd < 0)
		return 0;
	len = sizeof(pi);
	memset(&pi, 0, sizeof(pi));
	if (bpf_obj_get_info_by_fd(fd, &pi, &len))
		pi.recursion_misses = 0;
	close(fd);
	return pi.recursion_misses;
}

/* -v, at the end: each hook's skipped runs and what became of them. */
static void report_skips(struct bpf_backend *b)
{
	struct bpf_prog_info info;
	__u32 len;
	int h;

	for (h = 0; kt_verbose && h < KT_HOOK_MAX; h++) {
		len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (b->l.fd[KT_FD_PROG + h] < 0 ||
		    bpf_obj_get_info_by_fd(b->l.fd[KT_FD_PROG + h], &info, &len))
			continue;
		if (!info.recursion_misses && !backup_stat(b, h) &&
		    !backup_stat(b, KT_HOOK_MAX + h))
			continue;
		kt_debug(
			"hook %s: %llu runs skipped, %llu made up by its twins, %llu marks failed; "
			"twins skipped %llu and %llu",
			kt_hooks[h].name, (unsigned long long)info.recursion_misses,
			backup_stat(b, h), backup_stat(b, KT_HOOK_MAX + h),
			link_misses(b->l.fd[KT_FD_LINK_B + h]),
			link_misses(b->l.fd[KT_FD_LINK_C + h]));
	}
}

static void bpf_close(struct kt_backend *kb)
{
	struct bpf_backend *b = (struct bpf_backend *)kb;

	if (!b)
		return;
	report_skips(b);
	if (b->stage) {
		b->stage->no_room = percpu_stat(b, KT_FD_CODE_STATS, KT_CODE_ST_ROOM);
		b->stage->partial += percpu_stat(b, KT_FD_CODE_STATS, KT_CODE_ST_PARTIAL);
		b->stage->have_fd = -1;
	}
	kt_code_asm_free(b->code);
	ring_buffer__free(b->rb);
	kt_bpf_loaded_close(&b->l);
	free(b->percpu);
	free(b);
}

/* The copies of programs' code at unload go to stage (NULL: none made). */
static int code_open(struct bpf_backend *b, struct kt_code_stage *stage)
{
	if (!stage || b->l.fd[KT_FD_CODE_HAVE] < 0)
		return 0;
	b->code = kt_code_asm_new(stage);
	if (!b->code)
		return -ENOMEM;
	b->stage = stage;
	b->stage->have_fd = b->l.fd[KT_FD_CODE_HAVE];
	return 0;
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
	err = code_open(b, o->code_stage);
	if (err) {
		snprintf(why, why_size, "%s", strerror(-err));
		goto fail;
	}
	b->rb = ring_buffer__new(b->l.fd[KT_FD_EVENTS], on_event, b, NULL);
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
	.skipped = bpf_skipped,
	.close = bpf_close,
};
