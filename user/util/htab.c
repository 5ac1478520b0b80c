// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include "util/htab.h"

int kt_htab_init(struct kt_htab *h, size_t nb)
{
	h->b = calloc(nb, sizeof(*h->b));
	h->nb = h->b ? nb : 0;
	h->n = 0;
	return h->b ? 0 : -ENOMEM;
}

void kt_htab_clear(struct kt_htab *h, void (*fn)(struct kt_hnode *n))
{
	size_t i;

	for (i = 0; i < h->nb; i++)
		while (h->b[i]) {
			struct kt_hnode *n = h->b[i];

			h->b[i] = n->next;
			if (fn)
				fn(n);
		}
	h->n = 0;
}

void kt_htab_fini(struct kt_htab *h, void (*fn)(struct kt_hnode *n))
{
	kt_htab_clear(h, fn);
	free(h->b);
	h->b = NULL;
	h->nb = h->n = 0;
}

static void rehash(struct kt_htab *h)
{
	size_t nb = h->nb * 2, i;
	struct kt_hnode **b = calloc(nb, sizeof(*b));

	if (!b)
		return;
	for (i = 0; i < h->nb; i++)
		while (h->b[i]) {
			struct kt_hnode *n = h->b[i];
			size_t k = kt_hash64(n->key, nb);

			h->b[i] = n->next;
			n->next = b[k];
			b[k] = n;
		}
	free(h->b);
	h->b = b;
	h->nb = nb;
}

void kt_htab_add(struct kt_htab *h, struct kt_hnode *n)
{
	struct kt_hnode **pp;

	if (h->n >= h->nb)
		rehash(h);
	pp = kt_htab_chain(h, n->key);
	n->next = *pp;
	*pp = n;
	h->n++;
}

void kt_htab_del(struct kt_htab *h, struct kt_hnode **pp)
{
	*pp = (*pp)->next;
	h->n--;
}
