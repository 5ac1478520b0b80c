// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Symbol history (history.h). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include "history.h"

void kt_history_init(struct kt_history *h)
{
	memset(h, 0, sizeof(*h));
}

void kt_history_fini(struct kt_history *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->v[i].name);
	free(h->v);
	memset(h, 0, sizeof(*h));
}

static struct kt_hsym *append(struct kt_history *h, const struct kt_record *r, __u64 birth)
{
	struct kt_hsym *s;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 256;
		struct kt_hsym *v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		h->v = v;
		h->cap = cap;
	}
	s = &h->v[h->n];
	s->name = strdup(r->name);
	if (!s->name)
		return NULL;
	s->addr = r->addr;
	s->len = r->len ? r->len : 1;
	s->source = r->source;
	s->birth = birth;
	s->death = KT_HIST_ALIVE;
	if (s->len > h->max_len)
		h->max_len = s->len;
	h->n++;
	return s;
}

int kt_history_add(struct kt_history *h, const struct kt_record *r)
{
	struct kt_hsym *s;
	size_t i;

	if (r->time > h->end)
		h->end = r->time;
	if (r->type != KT_RECORD_KSYMBOL)
		return 0;
	if (!(r->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER))
		return append(h, r, r->time) ? 0 : -ENOMEM;
	/* The newest live symbol at that address dies. */
	for (i = h->n; i-- > 0;) {
		if (h->v[i].addr == r->addr && h->v[i].death == KT_HIST_ALIVE) {
			h->v[i].death = r->time;
			return 0;
		}
	}
	s = append(h, r, 0);
	if (!s)
		return -ENOMEM;
	s->death = r->time;
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct kt_hsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->birth < y->birth ? -1 : x->birth > y->birth;
}

void kt_history_done(struct kt_history *h)
{
	if (h->n > 1)
		qsort(h->v, h->n, sizeof(*h->v), by_addr);
}

/* Index of the last symbol starting at or below addr, or -1. */
static long last_at_or_below(const struct kt_history *h, __u64 addr)
{
	long lo = 0, hi = (long)h->n - 1, ans = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (h->v[mid].addr <= addr) {
			ans = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return ans;
}

const struct kt_hsym *kt_history_find(const struct kt_history *h, __u64 addr, __u64 t)
{
	const struct kt_hsym *best = NULL;
	long i;

	/* Symbols that can hold addr start within max_len below it. */
	for (i = last_at_or_below(h, addr); i >= 0 && addr - h->v[i].addr < h->max_len; i--) {
		const struct kt_hsym *s = &h->v[i];

		if (addr - s->addr < s->len && s->birth <= t && t < s->death &&
		    (!best || s->birth > best->birth))
			best = s;
	}
	return best;
}

int kt_history_each_at(const struct kt_history *h, __u64 t,
		       int (*fn)(void *ctx, const struct kt_hsym *s), void *ctx)
{
	size_t i;
	int err;

	for (i = 0; i < h->n; i++) {
		if (h->v[i].birth <= t && t < h->v[i].death) {
			err = fn(ctx, &h->v[i]);
			if (err)
				return err;
		}
	}
	return 0;
}
