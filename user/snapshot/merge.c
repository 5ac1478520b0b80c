// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "snapshot/merge.h"
#include "util/htab.h"

/* A key's first live record. */
struct first {
	struct kt_hnode node; /* the address, or the program id */
	const char *name; /* into live's buffer; NULL for a program */
	bool reg; /* a register (a PROG_LOAD) */
};

static struct first *find(const struct kt_htab *h, __u64 key, const char *name)
{
	struct kt_hnode **pp;
	struct first *f;

	for (pp = kt_htab_chain(h, key); *pp; pp = &(*pp)->next) {
		f = container_of(*pp, struct first, node);
		if (f->node.key == key && (!name || !strcmp(f->name, name)))
			return f;
	}
	return NULL;
}

/* The key of r (a KSYMBOL's address and name, a BPF_EVENT's id), and
 * whether it is a register; false if r has none. */
static bool key_of(const struct kt_record *r, __u64 *key, bool *reg)
{
	if (r->type == KT_RECORD_KSYMBOL) {
		*key = r->addr;
		*reg = !(r->flags & KT_KSYM_FLAG_UNREGISTER);
		return true;
	}
	if (r->type == KT_RECORD_BPF_EVENT && r->prog_id &&
	    (r->bpf_type == KT_BPF_EVENT_PROG_LOAD || r->bpf_type == KT_BPF_EVENT_PROG_UNLOAD)) {
		*key = r->prog_id;
		*reg = r->bpf_type == KT_BPF_EVENT_PROG_LOAD;
		return true;
	}
	return false;
}

int kt_snapshot_merge(const struct kt_recbuf *snap, const struct kt_recbuf *live, bool *keep)
{
	struct kt_htab syms = {}, progs = {};
	struct first *v = NULL, *f;
	struct kt_record *r;
	size_t off = 0, at = 0, i = 0, n = 0;
	__u64 key;
	bool reg;
	int err = -ENOMEM;

	r = malloc(sizeof(*r));
	if (!r || kt_htab_init(&syms, 64) || kt_htab_init(&progs, 16) ||
	    (live->n && !(v = calloc(live->n, sizeof(*v)))))
		goto out;
	for (; kt_recbuf_next(live, &off, r); at = off) {
		const char *name = kt_recbuf_name(live, at);
		bool sym = r->type == KT_RECORD_KSYMBOL;

		if (!key_of(r, &key, &reg) || find(sym ? &syms : &progs, key, sym ? name : NULL))
			continue;
		f = &v[n++];
		f->node.key = key;
		f->name = sym ? name : NULL;
		f->reg = reg;
		kt_htab_add(sym ? &syms : &progs, &f->node);
	}
	for (off = 0; kt_recbuf_next(snap, &off, r); i++) {
		bool sym = r->type == KT_RECORD_KSYMBOL;

		keep[i] = true;
		if (key_of(r, &key, &reg) && (f = find(sym ? &syms : &progs, key, sym ? r->name : NULL)))
			keep[i] = !f->reg;
	}
	err = 0;
out:
	kt_htab_fini(&syms, NULL);
	kt_htab_fini(&progs, NULL);
	free(v);
	free(r);
	return err;
}

int kt_snapshot_emit_merged(const struct kt_recbuf *snap, const struct kt_recbuf *live,
			    kt_emit_fn emit, void *ctx, size_t *left)
{
	struct kt_record *r = malloc(sizeof(*r));
	bool *keep = calloc(snap->n ? snap->n : 1, sizeof(*keep));
	size_t off = 0, i = 0;
	int err = -ENOMEM;

	*left = 0;
	if (!r || !keep || kt_snapshot_merge(snap, live, keep))
		goto out;
	for (err = 0; !err && kt_recbuf_next(snap, &off, r); i++) {
		if (keep[i])
			err = emit(ctx, r);
		else
			(*left)++;
	}
	for (off = 0; !err && kt_recbuf_next(live, &off, r);)
		err = emit(ctx, r);
out:
	free(keep);
	free(r);
	return err;
}
