/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one hash table of the user side: chained, intrusive (a struct
 * kt_hnode embedded in the entry, recovered with container_of), keyed by a
 * 64-bit value (an address, a program id, a cgroup id), as the kernel's
 * hashtable.h.  Several entries may share a key (symbols at one address). */
#ifndef KT_HTAB_H
#define KT_HTAB_H

#include <stddef.h>
#include <linux/types.h>
#include "util/base.h"
#include "util/hash.h"

struct kt_hnode {
	struct kt_hnode *next;
	__u64 key;
};

struct kt_htab {
	struct kt_hnode **b;
	size_t nb; /* a power of two */
	size_t n;
};

/* nb: the first number of buckets, a power of two.  0 or -ENOMEM. */
int kt_htab_init(struct kt_htab *h, size_t nb);
/* Unlinks every entry, handing each to fn (which may free it); the
 * buckets stay for the next entries. */
void kt_htab_clear(struct kt_htab *h, void (*fn)(struct kt_hnode *n));
/* kt_htab_clear(), and the buckets freed. */
void kt_htab_fini(struct kt_htab *h, void (*fn)(struct kt_hnode *n));
/* Adds n under n->key; the buckets double when there are as many entries
 * (if that allocation fails, the chains just get longer). */
void kt_htab_add(struct kt_htab *h, struct kt_hnode *n);
/* Unlinks *pp (a link found by walking kt_htab_chain()). */
void kt_htab_del(struct kt_htab *h, struct kt_hnode **pp);

/* The link that heads key's chain: walk it with pp = &(*pp)->next and
 * compare (*pp)->key, as entries of other keys share the bucket. */
static inline struct kt_hnode **kt_htab_chain(const struct kt_htab *h, __u64 key)
{
	return &h->b[kt_hash64(key, h->nb)];
}

#define kt_htab_for_each(h, i, pos)                   \
	for ((i) = 0; (i) < (h)->nb; (i)++)           \
		for ((pos) = (h)->b[i]; (pos); (pos) = (pos)->next)

#endif
