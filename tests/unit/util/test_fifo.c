// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The reader's queue (user/util/fifo.h): order, the bound, chunks, threads. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "util/fifo.h"
#include "unit.h"

static void test_order_and_bound(void)
{
	struct kt_fifo f;
	struct kt_fifo_batch b;
	const void *e;
	size_t len, n = 0;
	bool empty;
	int i, v, err = 0;

	if (!unit_start("fifo_order_bound"))
		return;
	ASSERT_EQ(kt_fifo_init(&f, 1000), 0, "init");
	for (i = 0; !err; i++)
		err = kt_fifo_push(&f, &i, sizeof(i), false, &empty);
	ASSERT_EQ(err, -ENOSPC, "push past the bound");
	/* Each entry is 16 bytes (length + 4, padded to 8): 62 fit in 1000. */
	ASSERT_EQ(i - 1, 62, "entries that fit");
	ASSERT_EQ(kt_fifo_push(&f, &i, sizeof(i), true, &empty), 0, "forced push");
	kt_fifo_take(&f, &b);
	while ((e = kt_fifo_next(&b, &len))) {
		v = *(const int *)e;
		if (!ASSERT_EQ(len, sizeof(int), "length") ||
		    !ASSERT_EQ(v, n < 62 ? (int)n : i, "order"))
			break;
		n++;
	}
	ASSERT_EQ(n, 63, "entries taken");
	kt_fifo_release(&f, &b);
	ASSERT_EQ(kt_fifo_push(&f, &i, sizeof(i), false, &empty), 0, "room again");
	ASSERT_TRUE(empty, "empty before that push");
	ASSERT_EQ(kt_fifo_push(&f, &i, sizeof(i), false, &empty), 0, "second push");
	ASSERT_TRUE(!empty, "not empty before the second");
	kt_fifo_fini(&f);
	unit_end();
}

/* Entries across many chunks, and an entry too big for any. */
static void test_chunks(void)
{
	char buf[600], *big;
	struct kt_fifo f;
	struct kt_fifo_batch b;
	const char *e;
	size_t len, n = 0;
	bool empty, ok = true;
	int i;

	if (!unit_start("fifo_chunks"))
		return;
	ASSERT_EQ(kt_fifo_init(&f, 16 << 20), 0, "init");
	for (i = 0; i < 2000; i++) {
		memset(buf, i & 0xff, sizeof(buf));
		ok &= !kt_fifo_push(&f, buf, 1 + i % sizeof(buf), false, &empty);
	}
	ASSERT_TRUE(ok, "2000 pushes");
	kt_fifo_take(&f, &b);
	for (; (e = kt_fifo_next(&b, &len)); n++)
		if (len != 1 + n % sizeof(buf) || (unsigned char)e[len - 1] != (n & 0xff))
			ok = false;
	ASSERT_TRUE(ok, "lengths and contents");
	ASSERT_EQ(n, 2000, "entries");
	kt_fifo_release(&f, &b);
	big = calloc(1, KT_FIFO_CHUNK);
	ASSERT_EQ(kt_fifo_push(&f, big, KT_FIFO_CHUNK / 2, true, &empty), -EINVAL, "too big");
	free(big);
	kt_fifo_fini(&f);
	unit_end();
}

struct prod {
	struct kt_fifo *f;
	int n;
};

static void *producer(void *arg)
{
	struct prod *p = arg;
	bool empty;
	int i;

	for (i = 0; i < p->n; i++)
		while (kt_fifo_push(p->f, &i, sizeof(i), false, &empty))
			;
	return NULL;
}

/* One thread pushes, this one takes: nothing lost, nothing reordered. */
static void test_threads(void)
{
	struct prod p;
	struct kt_fifo f;
	struct kt_fifo_batch b;
	pthread_t t;
	const void *e;
	size_t len;
	int next = 0;
	bool ok = true;

	if (!unit_start("fifo_threads"))
		return;
	ASSERT_EQ(kt_fifo_init(&f, 4096), 0, "init");
	p.f = &f;
	p.n = 200000;
	ASSERT_EQ(pthread_create(&t, NULL, producer, &p), 0, "thread");
	while (next < p.n && ok) {
		kt_fifo_take(&f, &b);
		while ((e = kt_fifo_next(&b, &len)))
			ok &= *(const int *)e == next++;
		kt_fifo_release(&f, &b);
	}
	pthread_join(t, NULL);
	ASSERT_TRUE(ok, "every entry, in order");
	ASSERT_EQ(next, p.n, "entries");
	kt_fifo_fini(&f);
	unit_end();
}

int main(void)
{
	test_order_and_bound();
	test_chunks();
	test_threads();
	return unit_exit();
}
