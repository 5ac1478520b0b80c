// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/base.h"
#include "record/compare.h"

/* Reasons for known kernel deviations (see docs/compare.md). */
static const char why_page_len[] =
	"the kernel reports PAGE_SIZE for a BPF image that shares a packed page "
	"(bpf_image_ksym_add(), 6.x); ksymtap reports the image's own extent";
static const char why_struct_ops[] =
	"struct_ops trampolines get kallsyms entries (6.10+) but the kernel emits no "
	"perf record for them";
static const char why_edge[] = "at the edge of the common window (one side started or "
			       "stopped listening in between)";

void kt_compare_init(struct kt_compare *c, unsigned int page_size)
{
	memset(c, 0, sizeof(*c));
	c->page_size = page_size;
	c->edge_ns = 2000000; /* 2 ms: backends open and drain one after the other */
}

void kt_compare_fini(struct kt_compare *c)
{
	free(c->rec[0]);
	free(c->rec[1]);
	free(c->items);
	memset(c, 0, sizeof(*c));
}

int kt_compare_add(struct kt_compare *c, const struct kt_record *r)
{
	int side = r->origin == KT_ORIGIN_NATIVE ? 0 : 1;

	if (r->type != KT_RECORD_KSYMBOL && r->type != KT_RECORD_BPF_EVENT)
		return 0;
	if (KT_GROW(c->rec[side], c->cap[side], c->n[side] + 1))
		return -ENOMEM;
	c->rec[side][c->n[side]++] = *r;
	return 0;
}

const char *kt_cmp_kind_name(enum kt_cmp_kind k)
{
	static const char *const names[] = { "matched", "only-native", "only-bpf", "mismatch",
					     "explained" };

	return k < KT_CMP_NKINDS ? names[k] : "?";
}

static bool same_identity(const struct kt_record *a, const struct kt_record *b)
{
	if (a->type != b->type)
		return false;
	if (a->type == KT_RECORD_KSYMBOL)
		return a->addr == b->addr && a->ksym_type == b->ksym_type && a->flags == b->flags &&
		       !strcmp(a->name, b->name);
	return a->bpf_type == b->bpf_type && a->prog_id == b->prog_id;
}

static size_t hash_identity(const struct kt_record *r)
{
	size_t h = r->type * 1000003u;
	const char *s;

	if (r->type == KT_RECORD_KSYMBOL) {
		h ^= (size_t)r->addr * 0x9e3779b97f4a7c15ULL;
		h ^= r->flags;
		for (s = r->name; *s; s++)
			h = h * 31 + (unsigned char)*s;
	} else {
		h ^= ((size_t)r->prog_id << 8) ^ r->bpf_type;
	}
	return h;
}

static int add_item(struct kt_compare *c, enum kt_cmp_kind kind, const struct kt_record *nat,
		    const struct kt_record *bpf, const char *field, const char *reason)
{
	c->count[kind]++;
	if (kind == KT_CMP_MATCHED)
		return 0;
	c->items[c->nitems++] = (struct kt_cmp_item){
		.kind = kind,
		.native = nat,
		.bpf = bpf,
		.field = field,
		.reason = reason,
	};
	return 0;
}

static const char *field_difference(const struct kt_compare *c, const struct kt_record *n,
				    const struct kt_record *b, const char **reason)
{
	*reason = NULL;
	if (n->type == KT_RECORD_BPF_EVENT) {
		if (n->bpf_flags != b->bpf_flags)
			return "flags";
		if (memcmp(n->tag, b->tag, KT_TAG_SIZE))
			return "tag";
		return NULL;
	}
	if (n->len == b->len)
		return NULL;
	if (n->ksym_type == KT_KSYM_TYPE_BPF && n->len == c->page_size && b->len < c->page_size &&
	    strncmp(n->name, "bpf_prog_", 9))
		*reason = why_page_len;
	return "len";
}

static const char *unpaired_reason(const struct kt_compare *c, const struct kt_record *r,
				   bool only_bpf, __u64 t0, __u64 t1)
{
	if (r->time < t0 + c->edge_ns || r->time + c->edge_ns > t1)
		return why_edge;
	if (only_bpf && r->type == KT_RECORD_KSYMBOL && !strncmp(r->name, "bpf__", 5))
		return why_struct_ops;
	return NULL;
}

/* Over 60 lines: the matching passes belong together (docs/compare.md
 * describes them in this order). */
int kt_compare_run(struct kt_compare *c, __u64 t0, __u64 t1)
{
	size_t nb = 0, i, j, nbuckets = 1, *head = NULL, *next = NULL;
	const struct kt_record *n, *b;
	const char *field, *reason;
	bool *used = NULL;
	int err = 0;

	free(c->items);
	c->items = calloc(c->n[0] + c->n[1] + 1, sizeof(*c->items));
	memset(c->count, 0, sizeof(c->count));
	c->nitems = c->outside = 0;
	while (nbuckets < 2 * c->n[1] + 1)
		nbuckets <<= 1;
	head = malloc(nbuckets * sizeof(*head));
	next = malloc((c->n[1] + 1) * sizeof(*next));
	used = calloc(c->n[1] + 1, sizeof(*used));
	if (!c->items || !head || !next || !used) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nbuckets; i++)
		head[i] = (size_t)-1;
	/* Chains keep insertion (time) order: the earliest unused twin matches. */
	for (i = c->n[1]; i-- > 0;) {
		b = &c->rec[1][i];
		if (b->time < t0 || b->time > t1) {
			used[i] = true;
			c->outside++;
			continue;
		}
		j = hash_identity(b) & (nbuckets - 1);
		next[i] = head[j];
		head[j] = i;
		nb++;
	}
	for (i = 0; i < c->n[0]; i++) {
		n = &c->rec[0][i];
		if (n->time < t0 || n->time > t1) {
			c->outside++;
			continue;
		}
		for (j = head[hash_identity(n) & (nbuckets - 1)]; j != (size_t)-1; j = next[j])
			if (!used[j] && same_identity(n, &c->rec[1][j]))
				break;
		if (j == (size_t)-1) {
			reason = unpaired_reason(c, n, false, t0, t1);
			add_item(c, reason ? KT_CMP_EXPLAINED : KT_CMP_ONLY_NATIVE, n, NULL, NULL,
				 reason);
			continue;
		}
		used[j] = true;
		b = &c->rec[1][j];
		field = field_difference(c, n, b, &reason);
		if (!field)
			add_item(c, KT_CMP_MATCHED, n, b, NULL, NULL);
		else
			add_item(c, reason ? KT_CMP_EXPLAINED : KT_CMP_MISMATCH, n, b, field,
				 reason);
	}
	for (j = 0; j < c->n[1]; j++) {
		if (used[j])
			continue;
		b = &c->rec[1][j];
		reason = unpaired_reason(c, b, true, t0, t1);
		add_item(c, reason ? KT_CMP_EXPLAINED : KT_CMP_ONLY_BPF, NULL, b, NULL, reason);
	}
out:
	free(head);
	free(next);
	free(used);
	return err;
}
