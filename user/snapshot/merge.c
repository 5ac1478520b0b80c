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

/* The first live record of each key, in syms (KSYMBOLs) and progs
 * (BPF_EVENTs); the entries in *v, to be freed.  0 or -ENOMEM. */
static int index_live(const struct kt_recbuf *live, struct kt_record *r, struct kt_htab *syms,
		      struct kt_htab *progs, struct first **v)
{
	size_t off = 0, at = 0, n = 0;
	struct first *f;
	__u64 key;
	bool reg;

	if (kt_htab_init(syms, 64) || kt_htab_init(progs, 16) ||
	    (live->n && !(*v = calloc(live->n, sizeof(**v)))))
		return -ENOMEM;
	for (; kt_recbuf_next(live, &off, r); at = off) {
		const char *name = kt_recbuf_name(live, at);
		bool sym = r->type == KT_RECORD_KSYMBOL;

		if (!key_of(r, &key, &reg) || find(sym ? syms : progs, key, sym ? name : NULL))
			continue;
		f = &(*v)[n++];
		f->node.key = key;
		f->name = sym ? name : NULL;
		f->reg = reg;
		kt_htab_add(sym ? syms : progs, &f->node);
	}
	return 0;
}

int kt_snapshot_emit_merged(const struct kt_recbuf *snap, const struct kt_recbuf *live,
			    kt_emit_fn emit, void *ctx, size_t *left)
{
	struct kt_record *r = malloc(sizeof(*r));
	struct kt_htab syms = {}, progs = {};
	struct first *v = NULL, *f;
	size_t off = 0;
	__u64 key;
	bool reg, sym;
	int err = -ENOMEM;

	*left = 0;
	if (!r || index_live(live, r, &syms, &progs, &v))
		goto out;
	for (err = 0; !err && kt_recbuf_next(snap, &off, r);) {
		sym = r->type == KT_RECORD_KSYMBOL;
		f = key_of(r, &key, &reg) ? find(sym ? &syms : &progs, key, sym ? r->name : NULL) :
					    NULL;
		if (f && f->reg)
			(*left)++;
		else
			err = emit(ctx, r);
	}
	for (off = 0; !err && kt_recbuf_next(live, &off, r);)
		err = emit(ctx, r);
out:
	kt_htab_fini(&syms, NULL);
	kt_htab_fini(&progs, NULL);
	free(v);
	free(r);
	return err;
}
