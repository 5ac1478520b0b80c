// SPDX-License-Identifier: GPL-2.0
/*
 * ksymtap's kernel side: fentry/fexit programs on the functions where dynamic
 * kernel symbols are born and die.  Every event goes into one ring buffer in the
 * layout of include/ksymtap.h; the loader turns them into perf records.
 *
 * Each program mirrors what the kernel's own perf emitter does at the same point
 * (kernel/events/core.c perf_event_bpf_emit_ksymbols(), kernel/bpf/core.c
 * bpf_image_ksym_add(), kernel/kprobes.c __get_insn_slot(), kernel/trace/ftrace.c
 * ftrace_update_trampoline()), so the records match field by field, but without
 * depending on a perf listener being present.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ksymtap.h"
#include "core_fixes.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Not in the BTF of kernels built without CONFIG_KPROBES (the dev host's 6.18). */
struct kprobe_insn_cache___kt {
	const char *sym;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20); /* the loader sets --ringbuf-size */
} events SEC(".maps");

/* Events that did not fit into the ring buffer, per CPU; the loader sums them. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} dropped SEC(".maps");

/*
 * Backup attachments (issue 34).  A trampoline does not run a program that
 * is already running on the same CPU (5.12, ca06f55b9002 "bpf: Add
 * per-program recursion prevention mechanism"): with full or lazy
 * preemption (6.18 and 7.x run lazy by default) a task preempted inside a
 * hook makes that hook skip the runs of every other task on its CPU.  So
 * each hook's program (role 0) has two twins (roles 1 and 2), programs of
 * their own, with recursion counters of their own, attached to the same
 * function.  The trampoline runs the most recently attached program first
 * (__bpf_trampoline_link_prog() adds at the head, 5.5 to 7.x) and the loader
 * attaches role 2, then 1, then 0, so they run in the order of their roles.
 *
 * The first of the three that runs does the work and leaves a mark (hook,
 * task, the run's kernel object: no two runs of one hook on one object
 * overlap); a later one that finds the mark does nothing, and role 2 takes
 * the mark away.  A run is lost only when all three were skipped: with one
 * twin, a task preempted in the main program and a second one preempted in
 * the twin (which then does the whole work, so is as long as the main
 * program) made 26 to 44 losses in a 20,000-program burst on 7.3 under TCG
 * (BENCHMARKS.md); a third program takes that to the product of three.
 *
 * Marks live in the task's own storage (a task local storage map, 5.11+ for
 * tracing programs; twins need bpf_loop(), 5.17+, anyway): a lookup there is
 * a pointer and a cache slot, and a mark is a plain store, where the LRU hash
 * of ca030a2 cost an update, a lookup and a delete per run, about 700
 * instructions a program (bpf_stats under icount, BENCHMARKS.md).  A task
 * holds one mark per hook, for the run's kernel object.  That is enough: the
 * hooked functions run in process context (workers and kthreads included),
 * not from interrupts, and where one calls another (bpf_prog_kallsyms_add()
 * -> bpf_ksym_add()) it does so inside the traced body, after the fentry or
 * before the fexit programs, so two runs of one hook on one task never
 * interleave.
 *
 * A mark left behind because role 2 was skipped must not pass for a later
 * run on the same object, whose main program was skipped (the slab hands the
 * same addresses out again at once: without the note below, 5 runs of a
 * 20,000-program burst on 7.3 were lost, BENCHMARKS.md): role 1 notes in the
 * mark that it saw it, and a mark it already saw is from an earlier run.
 * One left behind with both twins skipped is taken for absent once older
 * than CLAIM_FRESH_JIFFIES (4 s at Debian's HZ=250, 1 s at HZ=1000; jiffies,
 * as coarse time is not allowed in tracing programs).  Role 0 writes its own
 * over either.  Only a run whose programs are more than that apart (a task
 * preempted between two of them for that long) could then be reported
 * twice.  Without storage (the kernel could not allocate it, or another
 * task on this CPU holds the storage's lock while creating) no mark can be
 * made: roles 0 and 1 leave the work to the next role; role 2 works without
 * one.
 */
#define CLAIM_FRESH_JIFFIES 1024

struct claim_mark {
	u64 obj; /* 0: none */
	u64 time; /* jiffies when made */
	u64 seen_by_1; /* role 1 has seen it */
};

struct claim_task {
	struct claim_mark m[KT_HOOK_MAX];
};

/* The loader makes this a one-entry array where no twins load (5.10 has no
 * task storage): the code that uses it is then dead to the verifier. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct claim_task);
} claims SEC(".maps");

/* [hook]: runs a twin did because no earlier program had; [KT_HOOK_MAX +
 * hook]: the main program's marks that found no slot (so it did not work).
 * Runs lost = the main program's recursion_misses + these - the first. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * KT_HOOK_MAX);
	__type(key, u32);
	__type(value, u64);
} backup_stats SEC(".maps");

/* The twins are loaded: the main program marks its runs. */
const volatile bool backup_live = false;
/* Set by the loader once all three programs of a hook are attached: until
 * then the twins do nothing (a run of one before the main program was
 * attached would count as made up what was never skipped). */
bool backup_on[KT_HOOK_MAX] = {};

static __always_inline void backup_count(u32 idx)
{
	u64 *n = bpf_map_lookup_elem(&backup_stats, &idx);

	if (n)
		*n += 1;
}

/* May this program (role 0: main, 1 and 2: twins) do the work of this run
 * of hook on obj? */
static __always_inline bool claim(u64 obj, u32 hook, const int role)
{
	struct claim_task *t;
	struct claim_mark *m;
	bool mine;
	u64 now;

	if (role == 0 && !backup_live)
		return true;
	if (hook >= KT_HOOK_MAX || (role != 0 && !backup_on[hook]))
		return false;
	t = bpf_task_storage_get(&claims, bpf_get_current_task_btf(), NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) {
		if (role == 0)
			backup_count(KT_HOOK_MAX + hook);
		else if (role == 2)
			backup_count(hook);
		return role == 2;
	}
	m = &t->m[hook];
	/* Inlined to a load of jiffies (do_misc_fixups()). */
	now = bpf_jiffies64();
	/* This run's mark, made by an earlier role (role 1 takes one it
	 * already saw for an earlier run's). */
	mine = m->obj == obj && now - m->time < CLAIM_FRESH_JIFFIES;
	if (role == 2) {
		if (mine) {
			m->obj = 0;
			return false;
		}
		backup_count(hook);
		return true;
	}
	if (role == 1 && mine && !m->seen_by_1) {
		m->seen_by_1 = 1;
		return false;
	}
	m->obj = obj;
	m->time = now;
	m->seen_by_1 = role == 1;
	if (role == 1)
		backup_count(hook);
	return true;
}

/* An event is built here and then copied into the ring with only the bytes of
 * its name: names are up to 512 bytes, but most are under 64.  Tracing programs
 * run with migration, not preemption, disabled (__bpf_prog_enter()), so another
 * task may preempt a program on the same CPU mid-event: the busy count sends
 * such a nested event straight into a full-size ring reservation instead. */
struct scratch {
	u64 busy;
	struct kt_event e;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/*
 * Who made a symbol, kept from its birth to its death.  Unloads often run from a
 * workqueue (bpf_prog_put_deferred) or an RCU callback (trampoline images), where
 * the current task says nothing about the owner; and a program's id is already
 * zero when bpf_prog_kallsyms_del() runs (bpf_prog_free_id() comes first).  Keyed
 * by the kernel object: the bpf_prog_aux for programs, the bpf_ksym for images,
 * the text address for ftrace trampolines and kprobe pages.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, u64);
	__type(value, struct kt_owner);
} owners SEC(".maps");

/* A kprobe page allocated by this thread, waiting for __get_insn_slot() to
 * return, where the cache (and so the name) is known. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, u64);
} pending_insn SEC(".maps");

/* 6.1's module_alloc() serves ftrace trampolines, kprobe pages, BPF images and
 * modules alike: the caller tells them apart.  The loader fills these in from
 * /proc/kallsyms (arch_ftrace_update_trampoline, alloc_insn_page). */
const volatile struct kt_range ftrace_caller = {};
const volatile struct kt_range kprobe_caller = {};
const volatile __u32 page_size = 4096;
/* KSYMTAP_DEBUG_EMPTY (make bench): the program-path hooks attach but return
 * at once, which measures what the trampolines alone cost.  Constant at load
 * time, so the verifier drops the test where it is off. */
const volatile bool debug_empty = false;
/* The loader counts on prog_del for program unloads (its target is in BTF;
 * if it then fails to attach, the loader loads again without this): ksym_del's
 * program path is then dead code to the verifier. */
const volatile bool prog_del_live = false;

/* nrec: the records the lost event stood for (a program's KSYMBOL and its
 * BPF_EVENT travel in one). */
static __always_inline void count_drop(u32 nrec)
{
	u32 zero = 0;
	u64 *n = bpf_map_lookup_elem(&dropped, &zero);

	if (n)
		*n += nrec;
}

/* An event under construction: in the per-CPU scratch, or reserved in the ring. */
struct ev {
	struct kt_event *e;
	u64 *busy;
};

static __always_inline void ev_fill(struct kt_event *e, u16 record_type, u8 source, u8 hook)
{
	u64 id = bpf_get_current_pid_tgid();

	e->time = bpf_ktime_get_ns();
	e->cgroup_id = bpf_get_current_cgroup_id();
	e->addr = 0;
	e->len = 0;
	e->ksym_type = 0;
	e->flags = 0;
	e->prog_id = 0;
	e->bpf_type = 0;
	e->bpf_flags = 0;
	__builtin_memset(e->tag, 0, sizeof(e->tag));
	e->pid = id >> 32;
	e->tid = (u32)id;
	e->cpu = bpf_get_smp_processor_id();
	e->record_type = record_type;
	e->source = source;
	e->hook = hook;
	e->ev_flags = 0;
	e->name_len = 0;
	e->name[0] = 0;
	e->prog_name[0] = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
}

static __always_inline bool ev_init(struct ev *v, u16 record_type, u8 source, u8 hook, u32 nrec)
{
	u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct kt_event *e;

	if (!s)
		return false;
	if (kt_take(&s->busy)) {
		v->busy = &s->busy;
		e = &s->e;
	} else {
		kt_release(&s->busy);
		v->busy = NULL;
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (!e) {
			count_drop(nrec);
			return false;
		}
	}
	v->e = e;
	ev_fill(e, record_type, source, hook);
	return true;
}

static __always_inline void ev_name(struct kt_event *e, const void *src)
{
	long n = bpf_probe_read_kernel_str(e->name, sizeof(e->name), src);

	e->name_len = n > 0 ? n - 1 : 0;
	if (n <= 0)
		e->name[0] = 0;
}

#define KSYM_FAST_LEN 64

/*
 * A bpf_ksym's name (char[KSYM_NAME_LEN], so 64 bytes are always there to
 * read): its first 64 bytes in one bpf_probe_read_kernel(), which copies 8
 * bytes at a time, where bpf_probe_read_kernel_str() goes byte by byte
 * (strncpy_from_kernel_nofault(): a fifth of prog_add's instructions,
 * bpf_stats under icount, BENCHMARKS.md).  The length, or -1 if the name does
 * not end in those 64 bytes (rare: program names are bpf_prog_<tag>_ and up
 * to 15 characters).
 */
static __always_inline int ksym_name_fast(u64 nm[KSYM_FAST_LEN / 8], const char *src)
{
	u64 v, m;
	int i, j;

	if (bpf_probe_read_kernel(nm, KSYM_FAST_LEN, src))
		return -1;
#pragma unroll
	for (i = 0; i < KSYM_FAST_LEN / 8; i++) {
		v = nm[i];
		/* A flag in each zero byte's top bit (Mycroft's test; bytes above
		 * the first zero may be flagged too, the lowest flag is exact). */
		m = (v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL;
		if (!m)
			continue;
		/* Little endian: the lowest flagged byte, by halving (no ctz in
		 * BPF; a loop per byte made every program 2.5x larger to verify). */
		j = 0;
		if (!(m & 0xffffffffULL)) {
			j += 4;
			m >>= 32;
		}
		if (!(m & 0xffffULL)) {
			j += 2;
			m >>= 16;
		}
		if (!(m & 0xffULL))
			j += 1;
		return i * 8 + j;
	}
	return -1;
}

/*
 * An event named by a short bpf_ksym name (len >= 0 from ksym_name_fast()):
 * reserved in the ring at its final size and filled in place, the name
 * included, instead of built in the scratch and copied by
 * bpf_ringbuf_output().  Otherwise ev_init(), and the caller reads the name.
 */
static __always_inline bool ev_init_named(struct ev *v, u16 record_type, u8 source, u8 hook,
					  u32 nrec, const u64 nm[KSYM_FAST_LEN / 8], int len)
{
	struct kt_event *e;
	u64 *dst;
	int i;

	if (len < 0)
		return ev_init(v, record_type, source, hook, nrec);
	e = bpf_ringbuf_reserve(&events, KT_EVENT_HDR_SIZE + KSYM_FAST_LEN, 0);
	if (!e) {
		count_drop(nrec);
		return false;
	}
	v->busy = NULL;
	v->e = e;
	ev_fill(e, record_type, source, hook);
	dst = (u64 *)e->name;
#pragma unroll
	for (i = 0; i < KSYM_FAST_LEN / 8; i++)
		dst[i] = nm[i];
	e->name_len = len;
	return true;
}

/* Replace the current task's identity with the owner's (unload paths).  The
 * loader's snapshot seeds owners without a task (pid 0): keep the current one. */
static __always_inline void ev_owner(struct kt_event *e, const struct kt_owner *o)
{
	if (!o || !o->pid)
		return;
	e->pid = o->pid;
	e->tid = o->tid;
	e->cgroup_id = o->cgroup_id;
	__builtin_memcpy(e->comm, o->comm, sizeof(e->comm));
	e->ev_flags |= KT_EVF_LOADER_IDENTITY;
}

/*
 * Wake the reader only once wakeup_bytes are waiting; otherwise it polls
 * every --wakeup-ms.  A wakeup per record (the ring buffer's default whenever
 * the reader has caught up) costs a cross-CPU wakeup and a reader pass per
 * record on the program-load path (BENCHMARKS.md).  0: the default.
 */
const volatile __u64 wakeup_bytes = 0;

static __always_inline u64 wakeup_flag(void)
{
	if (!wakeup_bytes)
		return 0;
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP :
									       BPF_RB_NO_WAKEUP;
}

static __always_inline void ev_submit(struct ev *v)
{
	struct kt_event *e = v->e;
	u64 n = (e->name_len + 8) & ~7U;

	if (!v->busy) {
		bpf_ringbuf_submit(e, wakeup_flag());
		return;
	}
	/* The verifier loses the bound through the mask: clamp after it. */
	asm volatile("" : "+r"(n));
	if (n > KT_NAME_MAX)
		n = KT_NAME_MAX;
	if (bpf_ringbuf_output(&events, e, KT_EVENT_HDR_SIZE + n, wakeup_flag()))
		count_drop(e->ev_flags & KT_EVF_BPF_EVENT ? 2 : 1);
	kt_release(v->busy);
}

static __always_inline void owner_save(u64 key, u8 source, u32 prog_id, u32 len, const char *name)
{
	struct kt_owner o = {};
	u64 id = bpf_get_current_pid_tgid();

	o.pid = id >> 32;
	o.tid = (u32)id;
	o.cgroup_id = bpf_get_current_cgroup_id();
	o.prog_id = prog_id;
	o.len = len;
	o.source = source;
	bpf_get_current_comm(o.comm, sizeof(o.comm));
	if (name)
		bpf_probe_read_kernel_str(o.name, sizeof(o.name), name);
	bpf_map_update_elem(&owners, &key, &o, BPF_ANY);
}

/* ---- BPF programs and their subprograms ---------------------------------- */

/* A bpf_ksym is in kallsyms once bpf_ksym_add() linked it; __bpf_ksym_del()
 * checks the same list_empty().  list_del_rcu() leaves next alone, so a deleted
 * entry still counts as "was added".  Through a BTF-typed pointer a plain
 * load; through one read from memory (a scalar to the verifier) a probe read. */
#define KSYM_LISTED(k) ((k)->lnode.next != &(k)->lnode)

static __always_inline bool ksym_listed_probed(struct bpf_ksym *k)
{
	return BPF_CORE_READ(k, lnode.next) != &k->lnode;
}

/*
 * What is reported of one program, read once by the hook: on the load path
 * directly through the BTF-typed argument (plain loads), on the unload path,
 * where the program is found from its bpf_ksym, with probe reads.
 */
struct prog_info {
	struct bpf_prog_aux *aux;
	struct bpf_prog **func;
	u64 func_cnt;
	u64 bpf_func;
	u32 jited_len;
	u32 id;
	u8 tag[KT_TAG_SIZE];
};

#include "code_copy.bpf.h"

struct prog_ctx {
	struct bpf_prog **func;
	const struct kt_owner *owner;
	u32 first;
	u32 prog_id;
	u16 flags;
	u8 hook;
};

static __always_inline void emit_prog_ksym(u64 addr, u32 len, struct bpf_prog_aux *aux,
					   const struct prog_ctx *c, const struct prog_info *bpf_ev,
					   u16 bpf_type)
{
	u64 nm[KSYM_FAST_LEN / 8];
	int nlen = ksym_name_fast(nm, aux->ksym.name);
	struct ev v;

	if (!ev_init_named(&v, KT_RECORD_KSYMBOL, KT_SRC_BPF_PROG, c->hook, bpf_ev ? 2 : 1, nm,
			   nlen))
		return;
	v.e->addr = addr;
	v.e->len = len;
	v.e->ksym_type = KT_KSYM_TYPE_BPF;
	v.e->flags = c->flags;
	/* Not in perf's record: the program this image belongs to, the
	 * "module" of the 2018 design discussion (../shared/seed). */
	v.e->prog_id = c->prog_id;
	if (bpf_ev) {
		v.e->ev_flags |= KT_EVF_BPF_EVENT;
		v.e->bpf_type = bpf_type;
		__builtin_memcpy(v.e->tag, bpf_ev->tag, KT_TAG_SIZE);
		/* char[BPF_OBJ_NAME_LEN], NUL-terminated (bpf_obj_name_cpy()):
		 * all of it, no byte-wise copy. */
		bpf_probe_read_kernel(v.e->prog_name, sizeof(v.e->prog_name), &bpf_ev->aux->name);
	}
	if (nlen < 0)
		ev_name(v.e, &aux->ksym.name);
	ev_owner(v.e, c->owner);
	ev_submit(&v);
}

static __always_inline long emit_subprog_at(u32 i, struct prog_ctx *c)
{
	struct bpf_prog *sub = NULL;
	u32 idx = c->first + i;

	if (idx >= KT_MAX_SUBPROGS)
		return 1;
	bpf_probe_read_kernel(&sub, sizeof(sub), &c->func[idx]);
	if (sub)
		emit_prog_ksym((u64)BPF_CORE_READ(sub, bpf_func), BPF_CORE_READ(sub, jited_len),
			       BPF_CORE_READ(sub, aux), c, NULL, 0);
	return 0;
}

static long emit_subprog(u32 i, void *data)
{
	return emit_subprog_at(i, data);
}

/*
 * One subprogram on kernels without bpf_loop() (bpf/core_fixes.bpf.h): a
 * global function, which the verifier checks once, on its own, with unknown
 * scalar arguments (5.6+), where a static one would be walked again for
 * every iteration of the loop that calls it (the 5.10 verifier gave up on
 * that: 1M instructions).  Global functions take only scalars there, so the
 * context comes as scalars and the owner is looked up again by its key.
 */
__noinline int kt_emit_subprog_legacy(u64 func, u32 idx, u32 prog_id, u32 flags_hook, u64 owner_key)
{
	struct prog_ctx c = {
		.func = (struct bpf_prog **)func,
		.prog_id = prog_id,
		.flags = flags_hook & 0xffff,
		.hook = flags_hook >> 16,
	};

	if (owner_key)
		c.owner = bpf_map_lookup_elem(&owners, &owner_key);
	return emit_subprog_at(idx, &c);
}

/* Subprograms first..first+nr-1: bpf_loop() where the kernel has it, else a
 * bounded loop over the global function above. */
static __always_inline void emit_subprogs(struct prog_ctx *c, u64 nr, u64 owner_key,
					  const bool legacy)
{
	u32 i;

	if (!legacy) {
		bpf_loop(nr, emit_subprog, c, 0);
		return;
	}
	/* The key is a pointer to the verifier, and a global function takes
	 * only scalars: read back through a helper, it is a scalar. */
	if (owner_key)
		bpf_probe_read_kernel(&owner_key, sizeof(owner_key), &owner_key);
	for (i = 0; i < KT_MAX_SUBPROGS; i++) {
		if (i >= nr)
			return;
		if (kt_emit_subprog_legacy((u64)c->func, c->first + i, c->prog_id,
					   c->flags | (u32)c->hook << 16, owner_key))
			return;
	}
}

/*
 * The KSYMBOLs of one program, as perf_event_bpf_emit_ksymbols() emits them:
 * the program itself, then subprograms 1..n-1.  Since 0108a4e9f358 ("bpf:
 * ensure main program has an extable", 6.4, in 6.1.y too) func[0] is never
 * added to kallsyms and its ksym name stays empty; the main program's own ksym
 * (main tag) stands for it, and 0be9ae5486cd made perf report that one.
 * Before, func[0] had its own kallsyms entry and perf reported func[0..n-1]:
 * func[0]'s list node tells which kernel this is.  Then the BPF_EVENT, in the
 * same ring record as the KSYMBOL for a program without subprograms.
 */
static __always_inline void emit_prog(const struct prog_info *pi, u16 bpf_type,
				      const struct kt_owner *o, u64 owner_key, u8 hook,
				      const bool legacy)
{
	struct prog_ctx c = {
		.func = pi->func,
		.owner = o,
		.flags = bpf_type == KT_BPF_EVENT_PROG_UNLOAD ? KT_KSYM_FLAG_UNREGISTER : 0,
		.hook = hook,
		.prog_id = pi->id,
	};
	struct bpf_prog *func0 = NULL;
	struct bpf_prog_aux *aux0;
	struct ev v;
	u64 nr;

	if (pi->func_cnt && pi->func)
		bpf_probe_read_kernel(&func0, sizeof(func0), &pi->func[0]);
	if (!func0) {
		emit_prog_ksym(pi->bpf_func, pi->jited_len, pi->aux, &c, pi, bpf_type);
		return;
	}
	aux0 = BPF_CORE_READ(func0, aux);
	if (!ksym_listed_probed(&aux0->ksym)) {
		emit_prog_ksym(pi->bpf_func, pi->jited_len, pi->aux, &c, NULL, 0);
		c.first = 1;
	}
	/* In 64 bits: clang lowers a u32 subtraction to an add of 0xffffffff,
	 * and the verifier's inlined bpf_loop() compares the whole register
	 * against BPF_MAX_LOOPS (-E2BIG). */
	nr = pi->func_cnt - (u64)c.first;
	if ((s64)nr > 0)
		emit_subprogs(&c, nr, owner_key, legacy);

	if (!ev_init(&v, KT_RECORD_BPF_EVENT, KT_SRC_BPF_PROG, hook, 1))
		return;
	v.e->bpf_type = bpf_type;
	v.e->prog_id = pi->id;
	__builtin_memcpy(v.e->tag, pi->tag, KT_TAG_SIZE);
	/* Not part of the perf record; the loader shows it in JSON. */
	ev_name(v.e, &pi->aux->name);
	ev_owner(v.e, o);
	ev_submit(&v);
}

static __always_inline void prog_unload(struct prog_info *pi, u8 hook, const bool legacy)
{
	/* A local: BPF_CORE_READ(pi->aux, ...) would relocate prog_info too. */
	struct bpf_prog_aux *aux = pi->aux;
	u64 key = (u64)aux;
	struct kt_owner *o;

	/* bpf_prog_free_id() already zeroed aux->id.  A listed program has no
	 * owners entry (prog_add): the loader's table fills in its id and its
	 * loader (user/record/symtab.c), as it does for one loaded before we attached. */
	o = NULL;
	pi->id = 0;
	if (!ksym_listed_probed(&aux->ksym)) {
		o = bpf_map_lookup_elem(&owners, &key);
		/* None: a load that failed before kallsyms, never reported. */
		if (!o)
			return;
		pi->id = o->prog_id;
	}
	code_copy(pi);
	emit_prog(pi, KT_BPF_EVENT_PROG_UNLOAD, o, o ? key : 0, hook, legacy);
	if (o)
		bpf_map_delete_elem(&owners, &key);
}

/* The program's fields through a BTF-typed pointer: plain loads. */
static __always_inline void prog_info_direct(struct prog_info *pi, struct bpf_prog *fp)
{
	pi->aux = fp->aux;
	pi->func = pi->aux->func;
	pi->func_cnt = pi->aux->func_cnt;
	pi->bpf_func = (u64)fp->bpf_func;
	pi->jited_len = fp->jited_len;
	pi->id = pi->aux->id;
	__builtin_memcpy(pi->tag, fp->tag, KT_TAG_SIZE);
}

/* The same from an untyped pointer, with probe reads. */
static __always_inline void prog_info_probed(struct prog_info *pi, struct bpf_prog *fp,
					     struct bpf_prog_aux *aux)
{
	pi->aux = aux;
	pi->func = BPF_CORE_READ(aux, func);
	pi->func_cnt = BPF_CORE_READ(aux, func_cnt);
	pi->bpf_func = (u64)BPF_CORE_READ(fp, bpf_func);
	pi->jited_len = BPF_CORE_READ(fp, jited_len);
	pi->id = 0;
	bpf_probe_read_kernel(pi->tag, sizeof(pi->tag), &fp->tag);
}

/* bpf_prog_load() calls bpf_prog_kallsyms_add() for the main program right
 * after bpf_prog_alloc_id() and right before perf_event_bpf_event(PROG_LOAD).
 * The verifier calls it earlier for each subprogram (is_func); those are
 * reported with their main program, as perf does. */
static __always_inline void prog_add(struct bpf_prog *fp, const bool legacy, const int role)
{
	struct prog_info pi;

	if (debug_empty)
		return;
	if (!claim((u64)fp, KT_HOOK_PROG_ADD, role))
		return;
	if (KT_CORE_READ_BIT(fp, is_func))
		return;
	prog_info_direct(&pi, fp);
	/* A program in kallsyms (bpf_prog_kallsyms_add() lists what it does not
	 * skip) goes again through bpf_ksym_del(), where the loader's symbol
	 * table supplies its id and the loader's identity: no owners entry, the
	 * largest part of this program's cost (bpf_stats, BENCHMARKS.md).  The
	 * rest only ever reach prog_del. */
	if (!KSYM_LISTED(&pi.aux->ksym))
		owner_save((u64)pi.aux, KT_SRC_BPF_PROG, pi.id, 0, NULL);
	emit_prog(&pi, KT_BPF_EVENT_PROG_LOAD, NULL, 0, KT_HOOK_PROG_ADD, legacy);
}

SEC("fexit/bpf_prog_kallsyms_add")
int BPF_PROG(prog_add_loop, struct bpf_prog *fp)
{
	prog_add(fp, false, 0);
	return 0;
}

SEC("fexit/bpf_prog_kallsyms_add")
int BPF_PROG(prog_add_loop_b, struct bpf_prog *fp)
{
	prog_add(fp, false, 1);
	return 0;
}

SEC("fexit/bpf_prog_kallsyms_add")
int BPF_PROG(prog_add_loop_c, struct bpf_prog *fp)
{
	prog_add(fp, false, 2);
	return 0;
}

SEC("fexit/bpf_prog_kallsyms_add")
int BPF_PROG(prog_add_legacy, struct bpf_prog *fp)
{
	prog_add(fp, true, 0);
	return 0;
}

/* __bpf_prog_put_noref() -> bpf_prog_kallsyms_del_all(): once per program,
 * typed (plain loads), before it deletes the subprograms and then the program
 * from kallsyms.  Its bpf_prog_kallsyms_del() calls are inlined on 6.1 and
 * 6.12, so that function would see nothing; bpf_ksym_del() sees every image
 * but only through probe reads, and is where unloads are taken when this hook
 * is off. */
static __always_inline void prog_del(struct bpf_prog *fp, const bool legacy, const int role)
{
	struct prog_info pi;

	if (debug_empty)
		return;
	if (!claim((u64)fp, KT_HOOK_PROG_DEL, role))
		return;
	if (KT_CORE_READ_BIT(fp, is_func))
		return;
	prog_info_direct(&pi, fp);
	prog_unload(&pi, KT_HOOK_PROG_DEL, legacy);
}

SEC("fentry/bpf_prog_kallsyms_del_all")
int BPF_PROG(prog_del_loop, struct bpf_prog *fp)
{
	prog_del(fp, false, 0);
	return 0;
}

SEC("fentry/bpf_prog_kallsyms_del_all")
int BPF_PROG(prog_del_loop_b, struct bpf_prog *fp)
{
	prog_del(fp, false, 1);
	return 0;
}

SEC("fentry/bpf_prog_kallsyms_del_all")
int BPF_PROG(prog_del_loop_c, struct bpf_prog *fp)
{
	prog_del(fp, false, 2);
	return 0;
}

SEC("fentry/bpf_prog_kallsyms_del_all")
int BPF_PROG(prog_del_legacy, struct bpf_prog *fp)
{
	prog_del(fp, true, 0);
	return 0;
}

/* ---- trampolines, dispatchers, struct_ops: every non-program bpf_ksym ------ */

static __always_inline void emit_image(struct bpf_ksym *ksym, u16 flags, const struct kt_owner *o,
				       u8 hook)
{
	u64 nm[KSYM_FAST_LEN / 8];
	int nlen = ksym_name_fast(nm, ksym->name);
	unsigned long start, end;
	struct ev v;

	if (!ev_init_named(&v, KT_RECORD_KSYMBOL, KT_SRC_BPF_IMAGE, hook, 1, nm, nlen))
		return;
	start = ksym->start;
	end = ksym->end;
	v.e->addr = start;
	/* The real extent.  6.12's bpf_image_ksym_add() reports PAGE_SIZE to perf
	 * although trampolines share packed pages there (docs/kernel-facts.md). */
	v.e->len = end - start;
	v.e->ksym_type = KT_KSYM_TYPE_BPF;
	v.e->flags = flags;
	if (nlen < 0)
		ev_name(v.e, &ksym->name);
	ev_owner(v.e, o);
	ev_submit(&v);
}

static __always_inline void ksym_add_run(struct bpf_ksym *ksym, const int role)
{
	u64 key = (u64)ksym;

	if (debug_empty)
		return;
	if (!claim(key, KT_HOOK_KSYM_ADD, role))
		return;
	/* Programs are reported by prog_add, with their BPF_EVENT. */
	if (ksym->prog)
		return;
	owner_save(key, KT_SRC_BPF_IMAGE, 0, 0, NULL);
	emit_image(ksym, 0, NULL, KT_HOOK_KSYM_ADD);
}

SEC("fexit/bpf_ksym_add")
int BPF_PROG(ksym_add, struct bpf_ksym *ksym)
{
	ksym_add_run(ksym, 0);
	return 0;
}

SEC("fexit/bpf_ksym_add")
int BPF_PROG(ksym_add_b, struct bpf_ksym *ksym)
{
	ksym_add_run(ksym, 1);
	return 0;
}

SEC("fexit/bpf_ksym_add")
int BPF_PROG(ksym_add_c, struct bpf_ksym *ksym)
{
	ksym_add_run(ksym, 2);
	return 0;
}

static __always_inline void ksym_del(struct bpf_ksym *ksym, const bool legacy, const int role)
{
	u64 key = (u64)ksym;
	struct bpf_prog_aux *aux;
	struct bpf_prog *prog;
	struct prog_info pi;
	struct kt_owner *o;

	if (debug_empty)
		return;
	if (!claim(key, KT_HOOK_KSYM_DEL, role))
		return;
	/* Never added (func[0] since 0108a4e9f358): the kernel returns too. */
	if (!KSYM_LISTED(ksym))
		return;
	if (ksym->prog) {
		/* prog_del has it (and is the cheaper path): every program
		 * unload goes through bpf_prog_kallsyms_del_all(), which calls
		 * this.  prog_del attaches only from a skeleton loaded with
		 * prog_del_live (user/backend/bpf_loader.c). */
		if (prog_del_live)
			return;
		aux = (void *)((u64)ksym - bpf_core_field_offset(struct bpf_prog_aux, ksym));
		prog = BPF_CORE_READ(aux, prog);
		if (!prog || BPF_CORE_READ_BITFIELD_PROBED(prog, is_func))
			return;
		prog_info_probed(&pi, prog, aux);
		prog_unload(&pi, KT_HOOK_KSYM_DEL, legacy);
		return;
	}
	o = bpf_map_lookup_elem(&owners, &key);
	emit_image(ksym, KT_KSYM_FLAG_UNREGISTER, o, KT_HOOK_KSYM_DEL);
	if (o)
		bpf_map_delete_elem(&owners, &key);
}

SEC("fentry/bpf_ksym_del")
int BPF_PROG(ksym_del_loop, struct bpf_ksym *ksym)
{
	ksym_del(ksym, false, 0);
	return 0;
}

SEC("fentry/bpf_ksym_del")
int BPF_PROG(ksym_del_loop_b, struct bpf_ksym *ksym)
{
	ksym_del(ksym, false, 1);
	return 0;
}

SEC("fentry/bpf_ksym_del")
int BPF_PROG(ksym_del_loop_c, struct bpf_ksym *ksym)
{
	ksym_del(ksym, false, 2);
	return 0;
}

SEC("fentry/bpf_ksym_del")
int BPF_PROG(ksym_del_legacy, struct bpf_ksym *ksym)
{
	ksym_del(ksym, true, 0);
	return 0;
}

/* ---- ftrace trampolines and kprobe pages: the text allocator ------------- */

/*
 * ftrace's own functions are built without fentry sites (arch_ftrace_update_trampoline
 * and friends attach with EBUSY), so the reliable point is the allocator they call:
 * create_trampoline() -> alloc_tramp() gets exactly ops->trampoline_size bytes and
 * that region becomes the trampoline that ftrace_update_trampoline() then reports
 * as OOL "ftrace_trampoline".  6.1: module_alloc(size), told apart by the caller;
 * 6.10+: execmem_alloc(EXECMEM_FTRACE, size) (commit 12af2b83d0b1).
 */
static __always_inline void emit_ool(u64 addr, u32 len, u16 flags, const char *name, u8 source,
				     u8 hook, const struct kt_owner *o)
{
	struct ev v;

	if (!ev_init(&v, KT_RECORD_KSYMBOL, source, hook, 1))
		return;
	v.e->addr = addr;
	v.e->len = len;
	v.e->ksym_type = KT_KSYM_TYPE_OOL;
	v.e->flags = flags;
	ev_name(v.e, o ? o->name : name);
	ev_owner(v.e, o);
	ev_submit(&v);
}

static const char ftrace_sym[] = "ftrace_trampoline";

static __always_inline void ftrace_born(u64 addr, u32 size, u8 hook)
{
	owner_save(addr, KT_SRC_FTRACE, 0, size, ftrace_sym);
	emit_ool(addr, size, 0, ftrace_sym, KT_SRC_FTRACE, hook, NULL);
}

static __always_inline void text_freed(u64 addr, u8 hook)
{
	struct kt_owner *o = bpf_map_lookup_elem(&owners, &addr);

	if (!o)
		return;
	if (o->source == KT_SRC_FTRACE || o->source == KT_SRC_KPROBE) {
		emit_ool(addr, o->len, KT_KSYM_FLAG_UNREGISTER, NULL, o->source, hook, o);
		bpf_map_delete_elem(&owners, &addr);
	}
}

static __always_inline void kprobe_page_pending(u64 addr)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();

	bpf_map_update_elem(&pending_insn, &tid, &addr, BPF_ANY);
}

static __always_inline bool in_range(u64 ip, const volatile struct kt_range *r)
{
	return ip >= r->start && ip < r->end;
}

static __always_inline void module_alloc_run(void *ctx, unsigned long size, void *ret,
					     const int role)
{
	u64 stack[6] = {};
	long n;
	int i;

	if (!claim((u64)ret, KT_HOOK_MODULE_ALLOC, role))
		return;
	if (!ret || (!ftrace_caller.start && !kprobe_caller.start))
		return;
	/* [0] trampoline, [1] this program, [2] module_alloc, [3] its caller:
	 * alloc_tramp() and create_trampoline() are inlined into
	 * arch_ftrace_update_trampoline(); alloc_insn_page() calls directly. */
	n = bpf_get_stack(ctx, stack, sizeof(stack), 0);
	if (n <= 0)
		return;
	for (i = 0; i < 6; i++) {
		if (in_range(stack[i], &ftrace_caller)) {
			ftrace_born((u64)ret, size, KT_HOOK_MODULE_ALLOC);
			return;
		}
		if (in_range(stack[i], &kprobe_caller)) {
			kprobe_page_pending((u64)ret);
			return;
		}
	}
}

SEC("fexit/module_alloc")
int BPF_PROG(module_alloc_exit, unsigned long size, void *ret)
{
	module_alloc_run(ctx, size, ret, 0);
	return 0;
}

SEC("fexit/module_alloc")
int BPF_PROG(module_alloc_exit_b, unsigned long size, void *ret)
{
	module_alloc_run(ctx, size, ret, 1);
	return 0;
}

SEC("fexit/module_alloc")
int BPF_PROG(module_alloc_exit_c, unsigned long size, void *ret)
{
	module_alloc_run(ctx, size, ret, 2);
	return 0;
}

static __always_inline void text_free_run(void *ptr, u32 hook, const int role)
{
	if (claim((u64)ptr, hook, role))
		text_freed((u64)ptr, hook);
}

SEC("fentry/module_memfree")
int BPF_PROG(module_memfree_entry, void *region)
{
	text_free_run(region, KT_HOOK_MODULE_MEMFREE, 0);
	return 0;
}

SEC("fentry/module_memfree")
int BPF_PROG(module_memfree_entry_b, void *region)
{
	text_free_run(region, KT_HOOK_MODULE_MEMFREE, 1);
	return 0;
}

SEC("fentry/module_memfree")
int BPF_PROG(module_memfree_entry_c, void *region)
{
	text_free_run(region, KT_HOOK_MODULE_MEMFREE, 2);
	return 0;
}

static __always_inline void execmem_alloc_run(enum execmem_type type, size_t size, void *ret,
					      const int role)
{
	if (!claim((u64)ret, KT_HOOK_EXECMEM_ALLOC, role) || !ret)
		return;
	if (type == bpf_core_enum_value(enum execmem_type, EXECMEM_FTRACE))
		ftrace_born((u64)ret, size, KT_HOOK_EXECMEM_ALLOC);
	else if (type == bpf_core_enum_value(enum execmem_type, EXECMEM_KPROBES))
		kprobe_page_pending((u64)ret);
}

SEC("fexit/execmem_alloc")
int BPF_PROG(execmem_alloc_exit, enum execmem_type type, size_t size, void *ret)
{
	execmem_alloc_run(type, size, ret, 0);
	return 0;
}

SEC("fexit/execmem_alloc")
int BPF_PROG(execmem_alloc_exit_b, enum execmem_type type, size_t size, void *ret)
{
	execmem_alloc_run(type, size, ret, 1);
	return 0;
}

SEC("fexit/execmem_alloc")
int BPF_PROG(execmem_alloc_exit_c, enum execmem_type type, size_t size, void *ret)
{
	execmem_alloc_run(type, size, ret, 2);
	return 0;
}

SEC("fentry/execmem_free")
int BPF_PROG(execmem_free_entry, void *ptr)
{
	text_free_run(ptr, KT_HOOK_EXECMEM_FREE, 0);
	return 0;
}

SEC("fentry/execmem_free")
int BPF_PROG(execmem_free_entry_b, void *ptr)
{
	text_free_run(ptr, KT_HOOK_EXECMEM_FREE, 1);
	return 0;
}

SEC("fentry/execmem_free")
int BPF_PROG(execmem_free_entry_c, void *ptr)
{
	text_free_run(ptr, KT_HOOK_EXECMEM_FREE, 2);
	return 0;
}

/* A new kprobe page is reported by __get_insn_slot() after c->alloc() returned
 * it, under the cache's name (kprobe_insn_page or kprobe_optinsn_page), len
 * PAGE_SIZE.  Pages are freed by collect_one_slot() -> c->free().  Once
 * c->alloc() succeeded, __get_insn_slot() cannot fail (5.10 to 7.x), so the
 * return value is not read: 5.10's verifier refuses fexit access to a return
 * value that points to anything but a struct (kprobe_opcode_t *, "func
 * '__get_insn_slot' arg1 type INT is not a struct"). */
static __always_inline void insn_slot_run(struct kprobe_insn_cache___kt *c, const int role)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	const char *sym;
	u64 *addr;
	u64 page;

	if (!claim((u64)c, KT_HOOK_INSN_SLOT, role))
		return;
	addr = bpf_map_lookup_elem(&pending_insn, &tid);
	if (!addr)
		return;
	page = *addr;
	bpf_map_delete_elem(&pending_insn, &tid);
	sym = BPF_CORE_READ(c, sym);
	owner_save(page, KT_SRC_KPROBE, 0, page_size, sym);
	emit_ool(page, page_size, 0, sym, KT_SRC_KPROBE, KT_HOOK_INSN_SLOT, NULL);
}

SEC("fexit/__get_insn_slot")
int BPF_PROG(insn_slot_exit, struct kprobe_insn_cache___kt *c)
{
	insn_slot_run(c, 0);
	return 0;
}

SEC("fexit/__get_insn_slot")
int BPF_PROG(insn_slot_exit_b, struct kprobe_insn_cache___kt *c)
{
	insn_slot_run(c, 1);
	return 0;
}

SEC("fexit/__get_insn_slot")
int BPF_PROG(insn_slot_exit_c, struct kprobe_insn_cache___kt *c)
{
	insn_slot_run(c, 2);
	return 0;
}
