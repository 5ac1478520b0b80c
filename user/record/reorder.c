// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/base.h"
#include "record/reorder.h"

int kt_reorder_init(struct kt_reorder *q, __u64 window, size_t max)
{
	memset(q, 0, sizeof(*q));
	q->window = window;
	q->max = max ? max : 1;
	return 0;
}

void kt_reorder_fini(struct kt_reorder *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		free(q->ents[q->head + i].data);
	free(q->ents);
	memset(q, 0, sizeof(*q));
}

static int make_room(struct kt_reorder *q)
{
	if (q->head + q->n < q->cap)
		return 0;
	if (q->head) {
		memmove(q->ents, q->ents + q->head, q->n * sizeof(*q->ents));
		q->head = 0;
		return 0;
	}
	return KT_GROW(q->ents, q->cap, q->n + 1);
}

int kt_reorder_push(struct kt_reorder *q, __u64 time, __u64 now, const void *data, size_t len)
{
	struct kt_reorder_ent *base;
	unsigned char *copy;
	size_t i;

	copy = malloc(len ? len : 1);
	if (!copy || make_room(q)) {
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, data, len);
	/* Nearly sorted input: the place is almost always at the tail.  Ties keep
	 * arrival order, which keeps a program's KSYMBOLs before its BPF_EVENT. */
	base = q->ents + q->head;
	for (i = q->n; i > 0 && base[i - 1].time > time; i--)
		;
	memmove(base + i + 1, base + i, (q->n - i) * sizeof(*base));
	base[i] = (struct kt_reorder_ent){ .time = time, .arrival = now, .len = len, .data = copy };
	q->n++;
	return 0;
}

const struct kt_reorder_ent *kt_reorder_peek(const struct kt_reorder *q, __u64 now, bool all)
{
	const struct kt_reorder_ent *e;

	if (!q->n)
		return NULL;
	e = q->ents + q->head;
	/*
	 * Waiting on the arrival clock, not on newer timestamps, lets a lone
	 * record out on time when nothing follows it (live pipes), and is as
	 * safe: a record stamped before e arrives within the window after e
	 * unless the delay between stamping and committing exceeds it.
	 */
	if (all || q->n > q->max || now - e->arrival >= q->window)
		return e;
	return NULL;
}

__u64 kt_reorder_wake(const struct kt_reorder *q)
{
	return q->n ? q->ents[q->head].arrival + q->window : 0;
}

void kt_reorder_pop(struct kt_reorder *q)
{
	struct kt_reorder_ent *e;

	if (!q->n)
		return;
	e = q->ents + q->head;
	if (e->time && e->time < q->last_out)
		q->late++;
	if (e->time > q->last_out)
		q->last_out = e->time;
	free(e->data);
	q->head++;
	q->n--;
	if (!q->n)
		q->head = 0;
}
