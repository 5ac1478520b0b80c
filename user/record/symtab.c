// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "util/base.h"
#include "util/htab.h"
#include "record/symtab.h"

/* Who made a symbol and when, for replays. */
struct ident {
	__u64 time;
	__u64 cgroup_id;
	__u32 pid, tid, cpu;
	__u16 rflags;
	__u8 origin;
	char comm[KT_COMM_LEN];
};

struct sym {
	struct kt_hnode node; /* keyed by the address */
	__u64 addr;
	__u32 len;
	__u16 ksym_type;
	__u8 source;
	__u32 prog_id; /* 0 until its BPF_EVENT names the program */
	bool seen; /* listed by the resync's enumeration (or born since it began) */
	__u64 seq;
	struct ident who;
	char name[]; /* allocated with the entry: one malloc per symbol */
};

struct prog {
	struct kt_hnode node; /* keyed by the id */
	__u32 id;
	__u8 tag[KT_TAG_SIZE];
	bool seen;
	struct ident who;
	char name[]; /* as for struct sym */
};

/* Program KSYMBOLs of one task waiting for their BPF_EVENT, and the program a
 * task last unregistered images of (to complete an unload with id 0). */
#define NPENDING 64
struct pending {
	bool used;
	__u32 tid;
	__u32 last_unreg_id;
	bool open;
	unsigned int n;
	struct sym *syms[KT_MAX_SUBPROGS + 1];
};

struct tomb {
	__u64 addr; /* 0: a program, by id and tag */
	__u32 prog_id;
	__u8 tag[KT_TAG_SIZE];
	char name[KT_NAME_MAX];
};

struct kt_symtab {
	struct kt_htab syms, progs;
	__u64 seq;
	unsigned long long generation;
	struct pending pend[NPENDING];
	unsigned int next_pend, last_pend;
	unsigned long long untracked; /* allocations that failed */
	/* What the last resync unregistered (kt_symtab_unmarked()): the
	 * kernel's own unregister may still be in flight, and is then dropped
	 * as a duplicate.  Cleared when the next resync begins. */
	struct tomb *tombs;
	size_t ntombs, captombs;
};

#define sym_of(n) container_of(n, struct sym, node)
#define prog_of(n) container_of(n, struct prog, node)

struct kt_symtab *kt_symtab_new(void)
{
	struct kt_symtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (kt_htab_init(&t->syms, 256) || kt_htab_init(&t->progs, 256)) {
		kt_symtab_free(t);
		return NULL;
	}
	return t;
}

static void free_sym(struct kt_hnode *n)
{
	free(sym_of(n));
}

static void free_prog(struct kt_hnode *n)
{
	free(prog_of(n));
}

void kt_symtab_free(struct kt_symtab *t)
{
	if (!t)
		return;
	kt_htab_fini(&t->syms, free_sym);
	kt_htab_fini(&t->progs, free_prog);
	free(t->tombs);
	free(t);
}

static struct kt_hnode **find_sym(struct kt_symtab *t, __u64 addr, const char *name)
{
	struct kt_hnode **pp;

	for (pp = kt_htab_chain(&t->syms, addr); *pp; pp = &(*pp)->next)
		if ((*pp)->key == addr && !strcmp(sym_of(*pp)->name, name))
			return pp;
	return NULL;
}

static struct kt_hnode **find_prog(struct kt_symtab *t, __u32 id)
{
	struct kt_hnode **pp;

	for (pp = kt_htab_chain(&t->progs, id); *pp; pp = &(*pp)->next)
		if ((*pp)->key == id)
			return pp;
	return NULL;
}

static struct pending *pending_for(struct kt_symtab *t, __u32 tid, bool create)
{
	struct pending *p = &t->pend[t->last_pend];
	unsigned int i;

	/* One task usually loads many programs in a row: its slot first. */
	if (p->used && p->tid == tid)
		return p;
	for (i = 0; i < NPENDING; i++)
		if (t->pend[i].used && t->pend[i].tid == tid) {
			t->last_pend = i;
			return &t->pend[i];
		}
	if (!create)
		return NULL;
	i = t->next_pend++ % NPENDING;
	p = &t->pend[i];
	/* Not a memset: syms[] is 2 KiB and only n of it counts. */
	p->tid = tid;
	p->used = true;
	p->open = false;
	p->n = 0;
	p->last_unreg_id = 0;
	t->last_pend = i;
	return p;
}

static void ident_from(struct ident *w, const struct kt_record *r)
{
	w->time = r->time;
	w->cgroup_id = r->cgroup_id;
	w->pid = r->pid;
	w->tid = r->tid;
	w->cpu = r->cpu;
	w->rflags = r->rflags &
		    (KT_RF_LOADER_IDENTITY | KT_RF_NO_TASK | KT_RF_SNAPSHOT | KT_RF_TASK_AT_HAND);
	w->origin = r->origin;
	memcpy(w->comm, r->comm, sizeof(w->comm));
}

static void ident_to(struct kt_record *r, const struct ident *w)
{
	r->time = w->time;
	r->cgroup_id = w->cgroup_id;
	r->pid = w->pid;
	r->tid = w->tid;
	r->cpu = w->cpu;
	r->rflags = w->rflags | KT_RF_SNAPSHOT;
	r->origin = w->origin;
	memcpy(r->comm, w->comm, sizeof(r->comm));
}

/*
 * A producer whose records carry the task at hand (KT_RF_TASK_AT_HAND: the BPF
 * backend, which reports a program's unload without its id, the kernel having
 * cleared it, and from whichever task ran it, often a kworker; for programs it
 * saw loaded it keeps no owners entry, bpf/ksymtap.bpf.c prog_add, for the
 * cost of the load path): the table, which has both, puts them in, the same
 * records that entry would have given.  Only from an entry made by a live
 * register of such a producer (not a snapshot's, which has no task).
 */
static void restore_loader(struct kt_record *r, const struct ident *w)
{
	if (!(r->rflags & KT_RF_TASK_AT_HAND) || (r->rflags & KT_RF_LOADER_IDENTITY) ||
	    (w->rflags & (KT_RF_NO_TASK | KT_RF_SNAPSHOT)) || !(w->rflags & KT_RF_TASK_AT_HAND))
		return;
	r->pid = w->pid;
	r->tid = w->tid;
	r->cgroup_id = w->cgroup_id;
	memcpy(r->comm, w->comm, sizeof(r->comm));
	r->rflags |= KT_RF_LOADER_IDENTITY;
}

/* A program image unregistered before its BPF_EVENT came (a load that failed
 * late): no pending list may keep pointing at it. */
static void forget_pending(struct kt_symtab *t, struct sym *s)
{
	unsigned int i, j;

	for (i = 0; i < NPENDING; i++)
		for (j = 0; j < t->pend[i].n;)
			if (t->pend[i].syms[j] == s)
				t->pend[i].syms[j] = t->pend[i].syms[--t->pend[i].n];
			else
				j++;
}

/* The resync's unregister of r's symbol or program, if it made one: r is
 * that unregister arriving late (drop it, once), or a register of the same
 * symbol again (forget the tomb). */
static bool tomb_take(struct kt_symtab *t, const struct kt_record *r)
{
	size_t i;

	for (i = 0; i < t->ntombs; i++) {
		const struct tomb *b = &t->tombs[i];

		if (r->type == KT_RECORD_KSYMBOL ?
			    b->addr == r->addr && !strcmp(b->name, r->name) :
			    !b->addr && (r->prog_id ? b->prog_id == r->prog_id :
						      !memcmp(b->tag, r->tag, KT_TAG_SIZE))) {
			t->tombs[i] = t->tombs[--t->ntombs];
			return true;
		}
	}
	return false;
}

static void tomb_add(struct kt_symtab *t, const struct kt_record *r)
{
	struct tomb *b;

	if (KT_GROW(t->tombs, t->captombs, t->ntombs + 1))
		return; /* a late unregister is then passed on twice */
	b = &t->tombs[t->ntombs++];
	memset(b, 0, sizeof(*b));
	if (r->type == KT_RECORD_KSYMBOL) {
		b->addr = r->addr;
		snprintf(b->name, sizeof(b->name), "%s", r->name);
	} else {
		b->prog_id = r->prog_id;
		memcpy(b->tag, r->tag, KT_TAG_SIZE);
	}
}

/* An unregister of the symbol at pp (NULL: one the table never had). */
static int unregister_sym(struct kt_symtab *t, struct kt_record *r, struct kt_hnode **pp)
{
	struct sym *s;
	struct pending *pd;

	if (!pp)
		/* Born before we looked: still news; unless the resync already
		 * said it died. */
		return t->ntombs && tomb_take(t, r) ? KT_SYMTAB_DUP : KT_SYMTAB_NEW;
	s = sym_of(*pp);
	if (s->prog_id) {
		pd = pending_for(t, r->tid, true);
		pd->last_unreg_id = s->prog_id;
	} else if (s->source == KT_SRC_BPF_PROG) {
		forget_pending(t, s);
	}
	if (s->source == KT_SRC_BPF_PROG) {
		if (!r->prog_id)
			r->prog_id = s->prog_id;
		restore_loader(r, &s->who);
	}
	kt_htab_del(&t->syms, pp);
	free(s);
	t->generation++;
	return KT_SYMTAB_NEW;
}

/* A register of a symbol the table does not have. */
static int register_sym(struct kt_symtab *t, struct kt_record *r)
{
	size_t nlen = strnlen(r->name, KT_NAME_MAX - 1);
	struct sym *s;
	struct pending *pd;

	if (t->ntombs)
		tomb_take(t, r);
	s = malloc(sizeof(*s) + nlen + 1);
	if (!s) {
		t->untracked++;
		return KT_SYMTAB_NEW;
	}
	memset(s, 0, sizeof(*s));
	memcpy(s->name, r->name, nlen);
	s->name[nlen] = 0;
	s->addr = r->addr;
	s->len = r->len;
	s->ksym_type = r->ksym_type;
	s->source = r->source;
	s->prog_id = r->source == KT_SRC_BPF_PROG ? r->prog_id : 0;
	s->seen = true;
	s->seq = ++t->seq;
	ident_from(&s->who, r);
	if (r->source == KT_SRC_BPF_PROG) {
		pd = pending_for(t, r->tid, true);
		if (!pd->open) {
			pd->open = true;
			pd->n = 0;
		}
		if (pd->n < KT_MAX_SUBPROGS + 1)
			pd->syms[pd->n++] = s;
	}
	s->node.key = s->addr;
	kt_htab_add(&t->syms, &s->node);
	t->generation++;
	return KT_SYMTAB_NEW;
}

static int apply_ksymbol(struct kt_symtab *t, struct kt_record *r)
{
	struct kt_hnode **pp = find_sym(t, r->addr, r->name);

	if (r->flags & KT_KSYM_FLAG_UNREGISTER)
		return unregister_sym(t, r, pp);
	return pp ? KT_SYMTAB_DUP : register_sym(t, r);
}

/* The program KSYMBOLs a task registered since its last BPF_EVENT belong to
 * the program that event names. */
static void adopt_pending(struct kt_symtab *t, __u32 tid, __u32 id)
{
	struct pending *pd = pending_for(t, tid, false);
	unsigned int i;

	if (!pd || !pd->open)
		return;
	for (i = 0; i < pd->n; i++)
		pd->syms[i]->prog_id = id;
	pd->n = 0;
	pd->open = false;
}

static int apply_bpf_event(struct kt_symtab *t, struct kt_record *r)
{
	struct kt_hnode **pp;
	struct prog *p;
	struct pending *pd;
	size_t nlen;

	if (r->bpf_type == KT_BPF_EVENT_PROG_UNLOAD) {
		if (!r->prog_id) {
			pd = pending_for(t, r->tid, false);
			if (pd && pd->last_unreg_id) {
				pp = find_prog(t, pd->last_unreg_id);
				if (pp && !memcmp(prog_of(*pp)->tag, r->tag, KT_TAG_SIZE))
					r->prog_id = pd->last_unreg_id;
			}
		}
		pd = pending_for(t, r->tid, false);
		if (pd)
			pd->last_unreg_id = 0;
		pp = r->prog_id ? find_prog(t, r->prog_id) : NULL;
		if (!pp && t->ntombs && tomb_take(t, r))
			return KT_SYMTAB_DUP;
		if (pp) {
			p = prog_of(*pp);
			restore_loader(r, &p->who);
			kt_htab_del(&t->progs, pp);
			free(p);
			t->generation++;
		}
		return KT_SYMTAB_NEW;
	}
	if (r->bpf_type != KT_BPF_EVENT_PROG_LOAD)
		return KT_SYMTAB_NEW;
	if (find_prog(t, r->prog_id))
		return KT_SYMTAB_DUP;
	adopt_pending(t, r->tid, r->prog_id);
	nlen = strnlen(r->name, KT_NAME_MAX - 1);
	p = malloc(sizeof(*p) + nlen + 1);
	if (!p) {
		t->untracked++;
		return KT_SYMTAB_NEW;
	}
	memset(p, 0, sizeof(*p));
	memcpy(p->name, r->name, nlen);
	p->name[nlen] = 0;
	p->id = r->prog_id;
	memcpy(p->tag, r->tag, KT_TAG_SIZE);
	p->seen = true;
	ident_from(&p->who, r);
	p->node.key = p->id;
	kt_htab_add(&t->progs, &p->node);
	t->generation++;
	return KT_SYMTAB_NEW;
}

int kt_symtab_apply(struct kt_symtab *t, struct kt_record *r)
{
	switch (r->type) {
	case KT_RECORD_KSYMBOL:
		return apply_ksymbol(t, r);
	case KT_RECORD_BPF_EVENT:
		return apply_bpf_event(t, r);
	default:
		return KT_SYMTAB_NEW;
	}
}

static int by_prog_then_seq(const void *a, const void *b)
{
	const struct sym *x = *(struct sym *const *)a, *y = *(struct sym *const *)b;

	/* Program images first, by id and registration order; the rest by address. */
	if (!x->prog_id != !y->prog_id)
		return x->prog_id ? -1 : 1;
	if (x->prog_id != y->prog_id)
		return x->prog_id < y->prog_id ? -1 : 1;
	if (x->prog_id)
		return x->seq < y->seq ? -1 : x->seq > y->seq;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_id(const void *a, const void *b)
{
	const struct prog *x = *(struct prog *const *)a, *y = *(struct prog *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void sym_record(struct kt_record *r, const struct sym *s)
{
	memset(r, 0, offsetof(struct kt_record, name));
	r->type = KT_RECORD_KSYMBOL;
	ident_to(r, &s->who);
	r->source = s->source;
	r->addr = s->addr;
	r->len = s->len;
	r->ksym_type = s->ksym_type;
	r->prog_id = s->prog_id;
	memcpy(r->name, s->name, strlen(s->name) + 1);
}

static void prog_record(struct kt_record *r, const struct prog *p)
{
	memset(r, 0, offsetof(struct kt_record, name));
	r->type = KT_RECORD_BPF_EVENT;
	ident_to(r, &p->who);
	r->source = KT_SRC_BPF_PROG;
	r->bpf_type = KT_BPF_EVENT_PROG_LOAD;
	r->prog_id = p->id;
	memcpy(r->tag, p->tag, KT_TAG_SIZE);
	snprintf(r->name, sizeof(r->name), "%s", p->name);
}

/* Which entries a walk visits: all, or the resync's unmarked ones of the
 * sources it listed. */
struct filter {
	bool unmarked;
	unsigned int sources; /* 1 << source of the KSYMBOLs */
	bool progs; /* and programs */
};

static bool sym_in(const struct filter *f, const struct sym *s)
{
	return !f->unmarked || (!s->seen && (f->sources & (1u << s->source)));
}

static bool prog_in(const struct filter *f, const struct prog *p)
{
	return !f->unmarked || (!p->seen && f->progs);
}

static int walk(struct kt_symtab *t, const struct filter *f,
		int (*fn)(void *ctx, struct kt_record *r), void *ctx)
{
	struct sym **ss = NULL;
	struct prog **ps = NULL;
	struct kt_record *r = malloc(sizeof(*r));
	size_t i, j, ns = 0, np = 0;
	struct kt_hnode *n;
	int err = 0;

	ss = malloc((t->syms.n + 1) * sizeof(*ss));
	ps = malloc((t->progs.n + 1) * sizeof(*ps));
	if (!r || !ss || !ps) {
		err = -ENOMEM;
		goto out;
	}
	kt_htab_for_each(&t->syms, i, n)
		if (sym_in(f, sym_of(n)))
			ss[ns++] = sym_of(n);
	kt_htab_for_each(&t->progs, i, n)
		if (prog_in(f, prog_of(n)))
			ps[np++] = prog_of(n);
	qsort(ss, ns, sizeof(*ss), by_prog_then_seq);
	qsort(ps, np, sizeof(*ps), by_id);

	/* Programs in id order, each with its images first; images whose
	 * program is unknown come with the other symbols. */
	j = 0;
	for (i = 0; i < np && !err; i++) {
		while (j < ns && ss[j]->prog_id && ss[j]->prog_id < ps[i]->id) {
			sym_record(r, ss[j++]);
			err = fn(ctx, r);
			if (err)
				goto out;
		}
		while (j < ns && ss[j]->prog_id == ps[i]->id) {
			sym_record(r, ss[j++]);
			err = fn(ctx, r);
			if (err)
				goto out;
		}
		prog_record(r, ps[i]);
		err = fn(ctx, r);
	}
	for (; j < ns && !err; j++) {
		sym_record(r, ss[j]);
		err = fn(ctx, r);
	}
out:
	free(r);
	free(ss);
	free(ps);
	return err;
}

int kt_symtab_walk(struct kt_symtab *t, int (*fn)(void *ctx, struct kt_record *r), void *ctx)
{
	struct filter all = { .unmarked = false };

	return walk(t, &all, fn, ctx);
}

void kt_symtab_mark_begin(struct kt_symtab *t)
{
	struct kt_hnode *n;
	size_t i;

	kt_htab_for_each(&t->syms, i, n)
		sym_of(n)->seen = false;
	kt_htab_for_each(&t->progs, i, n)
		prog_of(n)->seen = false;
	t->ntombs = 0;
}

bool kt_symtab_mark(struct kt_symtab *t, const struct kt_record *r)
{
	struct kt_hnode **pp;
	struct sym *s;

	if (r->type == KT_RECORD_KSYMBOL) {
		pp = find_sym(t, r->addr, r->name);
		if (!pp)
			return false;
		s = sym_of(*pp);
		s->seen = true;
		/* Its PROG_LOAD was lost: the enumeration knows its program. */
		if (r->source == KT_SRC_BPF_PROG && !s->prog_id)
			s->prog_id = r->prog_id;
		return true;
	}
	if (r->type != KT_RECORD_BPF_EVENT || r->bpf_type != KT_BPF_EVENT_PROG_LOAD)
		return false;
	pp = find_prog(t, r->prog_id);
	if (!pp)
		return false;
	prog_of(*pp)->seen = true;
	return true;
}

struct collect {
	struct kt_symtab *t;
	struct kt_record *v;
	size_t n, cap;
};

static int collect_one(void *ctx, struct kt_record *r)
{
	struct collect *c = ctx;
	struct kt_record *v;

	if (KT_GROW(c->v, c->cap, c->n + 1))
		return -ENOMEM;
	v = &c->v[c->n++];
	*v = *r;
	v->rflags = KT_RF_NO_TASK;
	v->time = 0;
	v->pid = v->tid = v->cpu = 0;
	v->cgroup_id = 0;
	memset(v->comm, 0, sizeof(v->comm));
	if (v->type == KT_RECORD_KSYMBOL)
		v->flags |= KT_KSYM_FLAG_UNREGISTER;
	else
		v->bpf_type = KT_BPF_EVENT_PROG_UNLOAD;
	tomb_add(c->t, v);
	return 0;
}

int kt_symtab_unmarked(struct kt_symtab *t, unsigned int sources, bool progs,
		       struct kt_record **out, size_t *n)
{
	struct filter f = { .unmarked = true, .sources = sources, .progs = progs };
	struct collect c = { .t = t };
	int err = walk(t, &f, collect_one, &c);

	if (err) {
		free(c.v);
		t->ntombs = 0;
		return err;
	}
	*out = c.v;
	*n = c.n;
	return 0;
}

size_t kt_symtab_nsyms(const struct kt_symtab *t)
{
	return t->syms.n;
}

size_t kt_symtab_nprogs(const struct kt_symtab *t)
{
	return t->progs.n;
}

unsigned long long kt_symtab_generation(const struct kt_symtab *t)
{
	return t->generation;
}

unsigned long long kt_symtab_untracked(const struct kt_symtab *t)
{
	return t->untracked;
}
