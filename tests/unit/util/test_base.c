// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The base (user/util/base.h, htab.h): the growable array and the hash table
 * every table of the user side is built on. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "util/base.h"
#include "util/htab.h"
#include "unit.h"

static void test_grow(void)
{
	struct {
		int a;
		char b[12];
	} *v = NULL, *was;
	size_t cap = 0, i;

	if (!unit_start("grow"))
		return;
	ASSERT_EQ(KT_GROW(v, cap, 0), 0, "nothing needed");
	ASSERT_TRUE(v == NULL && cap == 0, "no allocation for nothing");
	for (i = 0; i < 1000; i++) {
		if (!ASSERT_EQ(KT_GROW(v, cap, i + 1), 0, "grow"))
			break;
		v[i].a = (int)i;
	}
	ASSERT_EQ(cap, 1024, "capacity doubles from 16");
	for (i = 0; i < 1000 && v[i].a == (int)i; i++)
		;
	ASSERT_EQ(i, 1000, "elements kept across reallocations");
	was = v;
	ASSERT_EQ(KT_GROW(v, cap, 1024), 0, "room enough");
	ASSERT_TRUE(v == was, "no reallocation when there is room");
	ASSERT_EQ(KT_GROW(v, cap, SIZE_MAX / 2), -ENOMEM, "overflow refused");
	ASSERT_TRUE(v == was && cap == 1024, "array untouched by a failure");
	free(v);
	unit_end();
}

struct ent {
	int payload;
	struct kt_hnode node;
};

static int freed;

static void free_ent(struct kt_hnode *n)
{
	freed++;
	free(container_of(n, struct ent, node));
}

/* How many entries hold key. */
static int count_key(struct kt_htab *h, __u64 key)
{
	struct kt_hnode **pp;
	int n = 0;

	for (pp = kt_htab_chain(h, key); *pp; pp = &(*pp)->next)
		n += (*pp)->key == key;
	return n;
}

static void test_htab(void)
{
	struct kt_htab h;
	struct kt_hnode **pp, *n;
	struct ent *e;
	size_t i, seen = 0;
	int ok = 1;

	if (!unit_start("htab"))
		return;
	ASSERT_EQ(kt_htab_init(&h, 4), 0, "init");
	for (i = 0; i < 5000 && ok; i++) {
		e = calloc(1, sizeof(*e));
		ok = ASSERT_TRUE(e != NULL, "alloc");
		e->payload = (int)i;
		/* Addresses one page apart, and a key that two entries share. */
		e->node.key = 0xffffffffc0000000ULL + (i % 4000) * 4096;
		kt_htab_add(&h, &e->node);
	}
	ASSERT_EQ(h.n, 5000, "count");
	ASSERT_TRUE(h.nb >= 4096, "buckets grew with the entries");
	ASSERT_EQ(count_key(&h, 0xffffffffc0000000ULL + 7 * 4096), 2, "shared key: both");
	ASSERT_EQ(count_key(&h, 0xffffffffc0000000ULL + 999 * 4096), 2, "last shared key");
	ASSERT_EQ(count_key(&h, 0xffffffffc0000000ULL + 4000 * 4096), 0, "absent key");
	kt_htab_for_each(&h, i, n)
		seen++;
	ASSERT_EQ(seen, 5000, "for_each visits every entry once");
	for (pp = kt_htab_chain(&h, 0xffffffffc0000000ULL); *pp;)
		if ((*pp)->key == 0xffffffffc0000000ULL) {
			n = *pp;
			kt_htab_del(&h, pp);
			free_ent(n);
		} else {
			pp = &(*pp)->next;
		}
	ASSERT_EQ(count_key(&h, 0xffffffffc0000000ULL), 0, "deleted");
	ASSERT_EQ(h.n, 4998, "count after deletes");
	freed = 0;
	kt_htab_clear(&h, free_ent);
	ASSERT_EQ(freed, 4998, "clear hands every entry over");
	ASSERT_EQ(h.n, 0, "empty");
	ASSERT_TRUE(h.b != NULL, "clear keeps the buckets");
	kt_htab_fini(&h, free_ent);
	ASSERT_TRUE(h.b == NULL && h.nb == 0, "fini frees them");
	unit_end();
}

int main(void)
{
	test_grow();
	test_htab();
	return unit_exit();
}
