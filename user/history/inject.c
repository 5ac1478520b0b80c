// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The decisions of `ksymtap inject` (inject.h; why, in docs/inject.md).
 *
 * Times: ksymtap's records are on perf's clock (local_clock()), as perf
 * record's are by default, so one timeline orders both.  FILE's snapshot
 * records carry time 0 (as perf's synthesized ones do); they say only that
 * the symbol existed when ksymtap started (T0).  Such a record is decided at
 * time 0, where it covers all of IN, unless IN's own records touched its
 * address range between 0 and T0: then it is decided right after the last of
 * those, so it never covers an older symbol that IN saw live at the same
 * address.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/base.h"
#include "history/inject.h"
#include "util/log.h"

/* ksymtap's hooks and the kernel's perf_event_ksymbol() stamp the same event
 * a few microseconds apart: IN's copy of a record of FILE is looked for this
 * far ahead. */
#define INJ_WINDOW_NS (10ULL * 1000 * 1000)

void kt_inject_init(struct kt_inject *ij, bool verbose)
{
	memset(ij, 0, sizeof(*ij));
	ij->verbose = verbose;
}

static void free_syms(struct kt_inj_sym *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(s[i].name);
	free(s);
}

void kt_inject_fini(struct kt_inject *ij)
{
	free(ij->f);
	free(ij->f_time);
	free_syms(ij->h, ij->nh);
	free_syms(ij->m, ij->nm);
	free(ij->hb);
	free(ij->j);
	memset(ij, 0, sizeof(*ij));
}

int kt_inject_add_file(struct kt_inject *ij, const struct kt_record *r)
{
	if (r->type == KT_RECORD_LOST) {
		ij->f_lost += r->lost;
		return 0;
	}
	if (r->type != KT_RECORD_KSYMBOL && r->type != KT_RECORD_BPF_EVENT)
		return 0;
	if (KT_GROW(ij->f, ij->f_cap, ij->nf + 1) ||
	    KT_GROW(ij->f_time, ij->ft_cap, ij->nf + 1))
		return -ENOMEM;
	ij->f[ij->nf] = *r;
	ij->f_time[ij->nf] = r->time;
	ij->nf++;
	if (r->type == KT_RECORD_KSYMBOL && !(r->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER))
		ij->f_ksym_reg++;
	return 0;
}

/* Decide in time order; a stable order keeps a program's KSYMBOLs before its
 * BPF_EVENT, and an unregister after its register. */
static void sort_file(struct kt_inject *ij)
{
	size_t i, k;

	for (i = 1; i < ij->nf; i++) {
		struct kt_record r;
		__u64 t = ij->f_time[i];

		if (ij->f_time[i - 1] <= t)
			continue;
		r = ij->f[i];
		for (k = i; k > 0 && ij->f_time[k - 1] > t; k--) {
			ij->f[k] = ij->f[k - 1];
			ij->f_time[k] = ij->f_time[k - 1];
		}
		ij->f[k] = r;
		ij->f_time[k] = t;
	}
}

static bool touches(const struct kt_inj_sym *s, __u64 addr, __u64 end)
{
	__u64 send = s->addr + (s->len ? s->len : 1);

	return s->addr < end && addr < send;
}

/* T0, the first live record's time; a snapshot record's decision time is the
 * last time IN touched its range before T0 (0 if never). */
void kt_inject_file_done(struct kt_inject *ij)
{
	__u64 t0 = ~0ULL;
	size_t i, k;

	for (i = 0; i < ij->nf; i++)
		if (ij->f[i].time && ij->f[i].time < t0)
			t0 = ij->f[i].time;
	for (i = 0; i < ij->nf; i++) {
		const struct kt_record *r = &ij->f[i];
		__u64 end = r->addr + (r->len ? r->len : 1), t = 0;

		if (r->time || r->type != KT_RECORD_KSYMBOL)
			continue;
		for (k = 0; k < ij->nh && ij->h[k].time < t0; k++)
			if (ij->h[k].time && touches(&ij->h[k], r->addr, end))
				t = ij->h[k].time;
		ij->f_time[i] = t;
	}
	sort_file(ij);
}

static int bpf_key_cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static bool in_has_bpf(const struct kt_inject *ij, __u16 type, __u32 id)
{
	__u64 key = (__u64)type << 32 | id;

	return ij->nhb && bsearch(&key, ij->hb, ij->nhb, sizeof(key), bpf_key_cmp);
}

static int add_in_bpf(struct kt_inject *ij, __u16 type, __u32 id)
{
	__u64 key = (__u64)type << 32 | id;
	size_t i;

	if (in_has_bpf(ij, type, id))
		return 0;
	if (KT_GROW(ij->hb, ij->hb_cap, ij->nhb + 1))
		return -ENOMEM;
	for (i = ij->nhb; i > 0 && ij->hb[i - 1] > key; i--)
		ij->hb[i] = ij->hb[i - 1];
	ij->hb[i] = key;
	ij->nhb++;
	return 0;
}

int kt_inject_add_in(struct kt_inject *ij, const void *rec, __u64 time, __u64 off)
{
	const unsigned char *p = rec;
	const struct perf_event_header *h = rec;
	struct kt_inj_sym s = { .time = time, .off = off };
	size_t nlen;

	if (h->type == PERF_RECORD_BPF_EVENT) {
		__u16 type;
		__u32 id;

		if (h->size < sizeof(*h) + 16)
			return -EINVAL;
		memcpy(&type, p + 8, 2);
		memcpy(&id, p + 12, 4);
		return add_in_bpf(ij, type, id);
	}
	if (h->type != PERF_RECORD_KSYMBOL)
		return 0;
	if (h->size < sizeof(*h) + 24)
		return -EINVAL;
	memcpy(&s.addr, p + 8, 8);
	memcpy(&s.len, p + 16, 4);
	memcpy(&s.flags, p + 22, 2);
	nlen = strnlen((const char *)p + 24, h->size - 24);
	if (nlen == (size_t)h->size - 24)
		return -EINVAL;
	s.name = strndup((const char *)p + 24, nlen);
	if (!s.name || KT_GROW(ij->h, ij->h_cap, ij->nh + 1)) {
		free(s.name);
		return -ENOMEM;
	}
	ij->h[ij->nh++] = s;
	return 0;
}

static int hist_cmp(const void *a, const void *b)
{
	const struct kt_inj_sym *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

void kt_inject_in_done(struct kt_inject *ij)
{
	if (ij->nh > 1)
		qsort(ij->h, ij->nh, sizeof(*ij->h), hist_cmp);
}

/* The model's map covering addr, or -1. */
static long map_at(const struct kt_inject *ij, __u64 addr)
{
	size_t i;

	for (i = 0; i < ij->nm && ij->m[i].addr <= addr; i++)
		if (addr < ij->m[i].addr + ij->m[i].len)
			return i;
	return -1;
}

static void map_del(struct kt_inject *ij, size_t i)
{
	free(ij->m[i].name);
	memmove(&ij->m[i], &ij->m[i + 1], (ij->nm - i - 1) * sizeof(ij->m[0]));
	ij->nm--;
}

static int map_add(struct kt_inject *ij, const struct kt_inj_sym *s)
{
	size_t i;

	if (KT_GROW(ij->m, ij->m_cap, ij->nm + 1))
		return -ENOMEM;
	for (i = ij->nm; i > 0 && ij->m[i - 1].addr > s->addr; i--)
		ij->m[i] = ij->m[i - 1];
	ij->m[i] = *s;
	ij->m[i].last_off = s->off;
	ij->m[i].name = strdup(s->name);
	if (!ij->m[i].name) {
		memmove(&ij->m[i], &ij->m[i + 1], (ij->nm - i) * sizeof(ij->m[0]));
		return -ENOMEM;
	}
	ij->nm++;
	return 0;
}

/* What perf's machine.c does with one of IN's records. */
static int apply_in(struct kt_inject *ij, const struct kt_inj_sym *s)
{
	long i = map_at(ij, s->addr);

	if (s->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
		if (i >= 0)
			map_del(ij, i);
		return 0;
	}
	/* A covering map only gains a symbol at its start: its extent stays.
	 * ksymtap's record that replaces the map must come after this one. */
	if (i >= 0) {
		if (!ij->m[i].ours && s->off > ij->m[i].last_off)
			ij->m[i].last_off = s->off;
		return 0;
	}
	return map_add(ij, s);
}

static void apply_until(struct kt_inject *ij, __u64 t)
{
	while (ij->h_applied < ij->nh && ij->h[ij->h_applied].time <= t) {
		if (apply_in(ij, &ij->h[ij->h_applied]))
			kt_warn("inject: out of memory: perf's maps model is incomplete");
		ij->h_applied++;
	}
}

/* IN has the same record within the window after t (not yet applied). */
static bool in_soon(const struct kt_inject *ij, const struct kt_record *r, __u64 t)
{
	size_t i;

	for (i = ij->h_applied; i < ij->nh && ij->h[i].time <= t + INJ_WINDOW_NS; i++)
		if (ij->h[i].addr == r->addr && ij->h[i].flags == r->flags &&
		    ((r->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) ||
		     (ij->h[i].len == r->len && !strcmp(ij->h[i].name, r->name))))
			return true;
	return false;
}

static int out(struct kt_inject *ij, const struct kt_record *r, __u64 t, __u64 dep)
{
	struct kt_inj_out *o;

	if (KT_GROW(ij->j, ij->j_cap, ij->nj + 1))
		return -ENOMEM;
	o = &ij->j[ij->nj++];
	o->time = t;
	o->dep = dep;
	o->done = false;
	o->r = *r;
	o->r.time = t;
	if (r->type == KT_RECORD_BPF_EVENT)
		ij->added_bpf++;
	else
		ij->added_ksym++;
	return 0;
}

/* ksymtap's register r at time t: drop every map of perf's it overlaps
 * (unless it is the same symbol), then add r.  Over 60 lines: the model's
 * cases of docs/inject.md's table, in one place. */
static int decide_register(struct kt_inject *ij, const struct kt_record *r, __u64 t, __u64 pos)
{
	__u64 end = r->addr + (r->len ? r->len : 1), dep = KT_INJ_NO_DEP;
	struct kt_inj_sym mine = { .time = t,
				   .off = KT_INJ_NO_DEP,
				   .addr = r->addr,
				   .len = r->len,
				   .ours = true,
				   .name = (char *)r->name };
	struct kt_record un;
	size_t i, first = 0, n = 0;
	int err;

	for (i = 0; i < ij->nm; i++) {
		if (!touches(&ij->m[i], r->addr, end))
			continue;
		if (!n++)
			first = i;
		/* Replacing IN's map: after the last of IN's records in it,
		 * or perf would make it again (time-0 records are
		 * delivered where they stand, equal times keep file order). */
		if (!ij->m[i].ours && ij->m[i].last_off >= pos &&
		    (dep == KT_INJ_NO_DEP || ij->m[i].last_off > dep))
			dep = ij->m[i].last_off;
	}
	if (n == 1 && ij->m[first].addr == r->addr && ij->m[first].len == r->len &&
	    !strcmp(ij->m[first].name, r->name)) {
		ij->present++;
		ij->common += !ij->m[first].ours;
		return 0;
	}
	if (!n && in_soon(ij, r, t)) {
		ij->present++;
		ij->common++;
		return 0;
	}
	for (i = 0; i < ij->nm;) {
		const struct kt_inj_sym *m = &ij->m[i];

		if (!touches(m, r->addr, end)) {
			i++;
			continue;
		}
		if (ij->verbose)
			kt_info("inject: at %llu: perf's %s [%#llx, +%#x) replaced by %s [%#llx, +%#x)",
				(unsigned long long)t, m->name, (unsigned long long)m->addr, m->len,
				r->name, (unsigned long long)r->addr, r->len);
		un = *r;
		un.addr = m->addr;
		un.len = m->len;
		un.flags = PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER;
		snprintf(un.name, sizeof(un.name), "%s", m->name);
		if (!m->ours)
			ij->replaced++;
		err = out(ij, &un, t, dep);
		if (err)
			return err;
		map_del(ij, i);
	}
	err = out(ij, r, t, dep);
	return err ? err : map_add(ij, &mine);
}

static int decide_one(struct kt_inject *ij, const struct kt_record *r, __u64 t, __u64 pos)
{
	long i;

	if (r->type == KT_RECORD_BPF_EVENT) {
		if (in_has_bpf(ij, r->bpf_type, r->prog_id)) {
			ij->present++;
			return 0;
		}
		return out(ij, r, t, KT_INJ_NO_DEP);
	}
	if (!(r->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER))
		return decide_register(ij, r, t, pos);
	i = map_at(ij, r->addr);
	if (i < 0 || in_soon(ij, r, t)) {
		ij->present++;
		return 0;
	}
	map_del(ij, i);
	return out(ij, r, t, KT_INJ_NO_DEP);
}

int kt_inject_decide(struct kt_inject *ij, __u64 limit, __u64 pos)
{
	int err;

	while (ij->f_next < ij->nf && ij->f_time[ij->f_next] < limit) {
		__u64 t = ij->f_time[ij->f_next];

		apply_until(ij, t);
		err = decide_one(ij, &ij->f[ij->f_next], t, pos);
		if (err)
			return err;
		ij->f_next++;
	}
	return 0;
}

bool kt_inject_strangers(const struct kt_inject *ij)
{
	size_t i;
	bool in_reg = false;

	for (i = 0; i < ij->nh && !in_reg; i++)
		in_reg = !(ij->h[i].flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
	return in_reg && ij->f_ksym_reg && !ij->common;
}
