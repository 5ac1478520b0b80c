// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Symbol history (history.h). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "util/base.h"
#include "history/history.h"

void kt_history_init(struct kt_history *h)
{
	memset(h, 0, sizeof(*h));
}

void kt_history_fini(struct kt_history *h)
{
	size_t i, j;

	for (i = 0; i < h->ns; i++) {
		for (j = 0; j < h->s[i].n; j++)
			free(h->s[i].g[j].name);
		free(h->s[i].g);
	}
	free(h->s);
	free(h->dq);
	memset(h, 0, sizeof(*h));
}

/* The one search of both arrays (slots by address, a slot's generations by
 * birth): the index of the last of n elements, each size bytes and sorted by
 * the __u64 at offset off, whose key is at or below key; -1 if none is. */
static long last_le(const void *base, size_t n, size_t size, size_t off, __u64 key)
{
	long lo = 0, hi = (long)n - 1, ans = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;
		__u64 k;

		memcpy(&k, (const char *)base + (size_t)mid * size + off, sizeof(k));
		if (k <= key) {
			ans = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return ans;
}
#define LAST_LE(arr, n, field, key) \
	last_le(arr, n, sizeof(*(arr)), offsetof(__typeof__(*(arr)), field), key)

/* Index of the last slot starting at or below addr, or -1. */
static long last_at_or_below(const struct kt_history *h, __u64 addr)
{
	return LAST_LE(h->s, h->ns, addr, addr);
}

static struct kt_hslot *slot_get(struct kt_history *h, __u64 addr, bool create)
{
	long i = last_at_or_below(h, addr);

	if (i >= 0 && h->s[i].addr == addr)
		return &h->s[i];
	if (!create)
		return NULL;
	if (h->ns == h->scap) {
		size_t was = h->scap;

		if (KT_GROW(h->s, h->scap, h->ns + 1))
			return NULL;
		h->bytes += (h->scap - was) * sizeof(*h->s);
	}
	i++;
	memmove(&h->s[i + 1], &h->s[i], (h->ns - i) * sizeof(*h->s));
	h->ns++;
	memset(&h->s[i], 0, sizeof(*h->s));
	h->s[i].addr = addr;
	return &h->s[i];
}

static void sync_last(struct kt_hslot *sl)
{
	sl->last_birth = sl->g[sl->n - 1].birth;
	sl->last_death = sl->g[sl->n - 1].death;
	sl->last_len = sl->g[sl->n - 1].len;
}

/* A generation born at birth, kept in birth order (records come in time
 * order, so this is an append but for unregisters of unseen symbols). */
static struct kt_hsym *gen_add(struct kt_history *h, const struct kt_record *r, __u64 birth)
{
	struct kt_hslot *sl = slot_get(h, r->addr, true);
	struct kt_hsym *g;
	__u32 i;

	if (!sl)
		return NULL;
	if (sl->n == sl->cap) {
		__u32 cap = sl->cap ? sl->cap * 2 : 2;

		g = realloc(sl->g, cap * sizeof(*g));
		if (!g)
			return NULL;
		h->bytes += (cap - sl->cap) * sizeof(*g);
		sl->g = g;
		sl->cap = cap;
	}
	for (i = sl->n; i > 0 && sl->g[i - 1].birth > birth; i--)
		;
	g = &sl->g[i];
	memmove(g + 1, g, (sl->n - i) * sizeof(*g));
	g->name = strdup(r->name);
	if (!g->name) {
		memmove(g, g + 1, (sl->n - i) * sizeof(*g));
		return NULL;
	}
	h->bytes += strlen(g->name) + 1;
	sl->n++;
	g->addr = r->addr;
	g->len = r->len ? r->len : 1;
	g->source = r->source;
	g->ksym_type = r->ksym_type;
	g->birth = birth;
	g->death = KT_HIST_ALIVE;
	if (g->len > sl->max_len)
		sl->max_len = g->len;
	sync_last(sl);
	if (g->len > h->max_len)
		h->max_len = g->len;
	h->live++;
	return g;
}

static int died(struct kt_history *h, struct kt_hslot *sl, struct kt_hsym *g, __u64 t)
{
	if (h->dq_n == h->dq_cap) {
		size_t cap = h->dq_cap ? h->dq_cap * 2 : 256, i;
		struct kt_hdeath *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (i = 0; i < h->dq_n; i++)
			q[i] = h->dq[(h->dq_head + i) % h->dq_cap];
		free(h->dq);
		h->bytes += (cap - h->dq_cap) * sizeof(*q);
		h->dq = q;
		h->dq_head = 0;
		h->dq_cap = cap;
	}
	h->dq[(h->dq_head + h->dq_n++) % h->dq_cap] = (struct kt_hdeath){ g->addr, t };
	g->death = t;
	sync_last(sl);
	h->live--;
	h->dead++;
	return 0;
}

int kt_history_add(struct kt_history *h, const struct kt_record *r)
{
	struct kt_hslot *sl;
	struct kt_hsym *g;
	__u32 i;

	if (r->time > h->end)
		h->end = r->time;
	if (r->type != KT_RECORD_KSYMBOL)
		return 0;
	if (!(r->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER))
		return gen_add(h, r, r->time) ? 0 : -ENOMEM;
	/* The newest live symbol at that address dies. */
	sl = slot_get(h, r->addr, false);
	for (i = sl ? sl->n : 0; i-- > 0;)
		if (sl->g[i].death == KT_HIST_ALIVE)
			return died(h, sl, &sl->g[i], r->time);
	g = gen_add(h, r, 0);
	if (!g)
		return -ENOMEM;
	return died(h, slot_get(h, r->addr, false), g, r->time);
}

void kt_history_done(struct kt_history *h)
{
	(void)h;
}

/* Forget the dead generation of addr that died at death. */
static void forget(struct kt_history *h, const struct kt_hdeath *d)
{
	struct kt_hslot *sl = slot_get(h, d->addr, false);
	__u32 i;

	if (!sl)
		return;
	for (i = 0; i < sl->n; i++)
		if (sl->g[i].death == d->death)
			break;
	if (i == sl->n)
		return;
	h->bytes -= strlen(sl->g[i].name) + 1;
	free(sl->g[i].name);
	memmove(&sl->g[i], &sl->g[i + 1], (sl->n - i - 1) * sizeof(*sl->g));
	sl->n--;
	h->dead--;
	h->evicted++;
	if (sl->n)
		sync_last(sl);
	if (!sl->n) {
		size_t k = sl - h->s;

		h->bytes -= sl->cap * sizeof(*sl->g);
		free(sl->g);
		memmove(sl, sl + 1, (h->ns - k - 1) * sizeof(*sl));
		h->ns--;
	}
}

void kt_history_trim(struct kt_history *h, size_t max_dead, __u64 min_death)
{
	while (h->dq_n && (h->dq_n > max_dead || h->dq[h->dq_head].death < min_death)) {
		forget(h, &h->dq[h->dq_head]);
		h->dq_head = (h->dq_head + 1) % h->dq_cap;
		h->dq_n--;
	}
}

__u64 kt_history_oldest_death(const struct kt_history *h)
{
	return h->dq_n ? h->dq[h->dq_head].death : 0;
}

/* The generation of sl alive at t, or NULL: the last one born by t. */
static const struct kt_hsym *gen_at(const struct kt_hslot *sl, __u64 t)
{
	long i;

	/* The newest first: most lookups are of fresh samples. */
	if (sl->n && sl->g[sl->n - 1].birth <= t)
		return t < sl->g[sl->n - 1].death ? &sl->g[sl->n - 1] : NULL;
	i = LAST_LE(sl->g, sl->n, birth, t);
	return i >= 0 && t < sl->g[i].death ? &sl->g[i] : NULL;
}

const struct kt_hsym *kt_history_find(const struct kt_history *h, __u64 addr, __u64 t)
{
	const struct kt_hsym *g;
	long i;

	/* Symbols that can hold addr start within max_len below it. */
	for (i = last_at_or_below(h, addr); i >= 0 && addr - h->s[i].addr < h->max_len; i--) {
		const struct kt_hslot *sl = &h->s[i];

		if (addr - sl->addr >= sl->max_len)
			continue;
		if (sl->last_birth <= t) {
			if (t < sl->last_death && addr - sl->addr < sl->last_len)
				return &sl->g[sl->n - 1];
			continue;
		}
		g = gen_at(sl, t);
		if (g && addr - g->addr < g->len)
			return g;
	}
	return NULL;
}

const struct kt_hsym *kt_history_find_last(const struct kt_history *h, __u64 addr)
{
	const struct kt_hsym *best = NULL;
	long i, j;

	for (i = last_at_or_below(h, addr); i >= 0 && addr - h->s[i].addr < h->max_len; i--) {
		const struct kt_hslot *sl = &h->s[i];

		for (j = (long)sl->n - 1; j >= 0; j--) {
			const struct kt_hsym *g = &sl->g[j];

			if (addr - g->addr < g->len) {
				if (!best || g->birth > best->birth)
					best = g;
				break;
			}
		}
	}
	return best;
}

int kt_history_each_at(const struct kt_history *h, __u64 t,
		       int (*fn)(void *ctx, const struct kt_hsym *s), void *ctx)
{
	const struct kt_hsym *g;
	size_t i;
	int err;

	for (i = 0; i < h->ns; i++) {
		g = gen_at(&h->s[i], t);
		if (g) {
			err = fn(ctx, g);
			if (err)
				return err;
		}
	}
	return 0;
}
