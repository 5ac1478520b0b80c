// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The staged copies of programs' code, between the reader and main threads. */
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "archive/stage.h"

void kt_stage_init(struct kt_code_stage *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->lock, NULL);
	s->have_fd = -1;
}

void kt_staged_free(struct kt_staged *st)
{
	free(st->blob);
	free(st->btf);
	memset(st, 0, sizeof(*st));
}

__u64 kt_stage_put(struct kt_code_stage *s, struct kt_staged *st)
{
	struct kt_staged *slot;
	__u64 seq;

	pthread_mutex_lock(&s->lock);
	seq = st->seq = ++s->last_seq;
	if (s->n == KT_STAGE_MAX) {
		kt_staged_free(&s->e[s->head]);
		s->head = (s->head + 1) % KT_STAGE_MAX;
		s->n--;
		__atomic_fetch_add(&s->unclaimed, 1, __ATOMIC_RELAXED);
	}
	slot = &s->e[(s->head + s->n) % KT_STAGE_MAX];
	*slot = *st;
	s->n++;
	pthread_mutex_unlock(&s->lock);
	memset(st, 0, sizeof(*st));
	return seq;
}

bool kt_stage_take(struct kt_code_stage *s, __u64 seq, struct kt_staged *out)
{
	bool found = false;
	size_t i, at, to;

	pthread_mutex_lock(&s->lock);
	for (i = s->n; i-- > 0 && !found;) {
		at = (s->head + i) % KT_STAGE_MAX;
		if (s->e[at].seq != seq)
			continue;
		*out = s->e[at];
		/* Close the gap: the later entries move down one. */
		for (; i + 1 < s->n; i++) {
			to = (s->head + i) % KT_STAGE_MAX;
			s->e[to] = s->e[(to + 1) % KT_STAGE_MAX];
		}
		s->n--;
		found = true;
	}
	pthread_mutex_unlock(&s->lock);
	return found;
}

void kt_stage_have(struct kt_code_stage *s, __u64 addr, __u64 load_time)
{
	if (s && s->have_fd >= 0 && addr)
		bpf_map_update_elem(s->have_fd, &addr, &load_time, BPF_ANY);
}

void kt_stage_fini(struct kt_code_stage *s)
{
	while (s->n) {
		kt_staged_free(&s->e[s->head]);
		s->head = (s->head + 1) % KT_STAGE_MAX;
		s->n--;
	}
	pthread_mutex_destroy(&s->lock);
}
