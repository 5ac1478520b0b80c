// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "util/log.h"
#include "sink/pipeline.h"
#include "util/clock.h"

int kt_pipeline_init(struct kt_pipeline *p)
{
	memset(p, 0, sizeof(*p));
	p->tab = kt_symtab_new();
	p->attrib = kt_attrib_new(NULL);
	return p->tab && p->attrib ? 0 : -ENOMEM;
}

void kt_pipeline_fini(struct kt_pipeline *p)
{
	kt_symtab_free(p->tab);
	p->tab = NULL;
	kt_attrib_free(p->attrib);
	p->attrib = NULL;
}

int kt_pipeline_add_sink(struct kt_pipeline *p, struct kt_sink *s)
{
	if (p->nsinks == KT_MAX_SINKS)
		return -E2BIG;
	p->sinks[p->nsinks++] = s;
	return 0;
}

int kt_pipeline_emit(void *ctx, struct kt_record *r)
{
	struct kt_pipeline *p = ctx;
	int i, err;

	if (p->hold)
		return kt_recbuf_push(p->hold, r);
	if (kt_symtab_apply(p->tab, r) == KT_SYMTAB_DUP) {
		p->dups++;
		return 0;
	}
	if (kt_symtab_untracked(p->tab) != p->untracked) {
		if (!p->untracked)
			kt_warn("symbol table: out of memory; %s is passed on but not kept (the "
				"--kallsyms file and new clients' tables lack it; counted in "
				"ksymtap_table_untracked_total)",
				r->name);
		p->untracked = kt_symtab_untracked(p->tab);
	}
	switch (r->type) {
	case KT_RECORD_KSYMBOL:
		p->ksymbols[r->source < KT_SRC_MAX ? r->source : 0]++;
		break;
	case KT_RECORD_BPF_EVENT:
		p->bpf_events++;
		break;
	case KT_RECORD_LOST:
		p->lost += r->lost;
		/* A serve client's own loss is its queue's, not the table's. */
		if (r->origin != KT_ORIGIN_SERVE)
			p->resync.wanted = true;
		break;
	}
	kt_attrib_fill(p->attrib, r);
	for (i = 0; i < p->nsinks; i++) {
		err = p->sinks[i]->record(p->sinks[i], r);
		if (err) {
			if (!p->failed)
				p->failed = p->sinks[i];
			return err;
		}
	}
	return 0;
}

static int flush_sinks(struct kt_pipeline *p, bool periodic)
{
	int i, err, first = 0;

	for (i = 0; i < p->nsinks; i++) {
		if (!p->sinks[i]->flush)
			continue;
		p->sinks[i]->periodic = periodic;
		err = p->sinks[i]->flush(p->sinks[i]);
		if (err && !first) {
			first = err;
			if (!p->failed)
				p->failed = p->sinks[i];
		}
	}
	return first;
}

int kt_pipeline_flush(struct kt_pipeline *p)
{
	int err;

	if (p->resync.wanted && p->resync.run && (err = p->resync.run(p, true)))
		return err;
	return flush_sinks(p, false);
}

struct walk_ctx {
	struct kt_pipeline *p;
	int (*fn)(void *ctx, struct kt_record *r);
	void *ctx;
};

static int walk_one(void *ctx, struct kt_record *r)
{
	struct walk_ctx *w = ctx;

	kt_attrib_fill(w->p->attrib, r);
	return w->fn(w->ctx, r);
}

int kt_pipeline_walk(struct kt_pipeline *p, int (*fn)(void *ctx, struct kt_record *r), void *ctx)
{
	struct walk_ctx w = { .p = p, .fn = fn, .ctx = ctx };

	return kt_symtab_walk(p->tab, walk_one, &w);
}

int kt_pipeline_cgroup_root(struct kt_pipeline *p, const char *root)
{
	struct kt_attrib_cache *a = kt_attrib_new(root);

	if (!a)
		return -ENOMEM;
	kt_attrib_free(p->attrib);
	p->attrib = a;
	return kt_attrib_root(a) ? 0 : -ENOENT;
}

int kt_pipeline_tick(void *ctx)
{
	struct kt_pipeline *p = ctx;

	int err;

	kt_attrib_tick(p->attrib);
	if (p->resync.wanted && p->resync.run && (err = p->resync.run(p, false)))
		return err;
	return flush_sinks(p, true);
}

__u64 kt_pipeline_wake_ns(const struct kt_pipeline *p)
{
	__u64 wake = kt_attrib_wake_ns(p->attrib);
	int i;

	if (p->resync.wanted && p->resync.run)
		wake = kt_wake_min(wake, p->resync.not_before ? p->resync.not_before : 1);
	for (i = 0; i < p->nsinks; i++)
		if (p->sinks[i]->wake_ns)
			wake = kt_wake_min(wake, p->sinks[i]->wake_ns(p->sinks[i]));
	return wake;
}

int kt_sink_fail(struct kt_sink *s, int err, const char *fmt, ...)
{
	va_list ap;

	if (!s->why[0]) {
		va_start(ap, fmt);
		vsnprintf(s->why, sizeof(s->why), fmt, ap);
		va_end(ap);
	}
	return err;
}

const char *kt_pipeline_why(const struct kt_pipeline *p)
{
	return p->failed && p->failed->why[0] ? p->failed->why : NULL;
}
