// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The reader thread (user/backend/pump.h) around a backend made up here:
 * every record through, in order; a full queue counted and said once as a
 * LOST record of origin "queue"; sync() as a drain's first step. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "backend/pump.h"
#include "unit.h"

struct fake {
	struct kt_backend base;
	kt_emit_fn emit;
	void *ctx;
	int efd;
	int made; /* records made so far; made_to: the kernel's side */
	volatile int made_to;
};

static int fake_fd(struct kt_backend *kb)
{
	return ((struct fake *)kb)->efd;
}

/* Everything "the kernel" made since the last poll, as KSYMBOLs named by
 * their number. */
static int fake_poll(struct kt_backend *kb, int timeout_ms)
{
	struct fake *f = (struct fake *)kb;
	struct kt_record r;
	__u64 v;
	int n = 0, err;

	if (read(f->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return -errno;
	while (f->made < f->made_to) {
		memset(&r, 0, sizeof(r));
		r.type = KT_RECORD_KSYMBOL;
		r.addr = f->made;
		snprintf(r.name, sizeof(r.name), "sym_%d", f->made);
		f->made++;
		err = f->emit(f->ctx, &r);
		if (err)
			return err;
		n++;
	}
	return n;
}

static void fake_describe(struct kt_backend *kb, char *buf, size_t size)
{
	snprintf(buf, size, "fake");
}

static void fake_close(struct kt_backend *kb)
{
	close(((struct fake *)kb)->efd);
	free(kb);
}

static const struct kt_backend_ops fake_ops = {
	.name = "fake",
	.fd = fake_fd,
	.poll = fake_poll,
	.describe = fake_describe,
	.close = fake_close,
};

/* The kernel makes n more records and wakes the reader. */
static void make(struct fake *f, int n)
{
	__u64 one = 1;

	f->made_to += n;
	if (write(f->efd, &one, sizeof(one)) < 0)
		unit_failf(__FILE__, __LINE__, "eventfd write");
}

struct got {
	int n, lost, lost_records, next;
	bool in_order;
};

static int collect(void *ctx, struct kt_record *r)
{
	struct got *g = ctx;

	if (r->type == KT_RECORD_LOST) {
		g->lost++;
		g->lost_records += r->lost;
		g->in_order &= r->origin == KT_ORIGIN_QUEUE;
		return 0;
	}
	g->in_order &= r->addr >= (unsigned long long)g->next;
	g->next = r->addr + 1;
	g->n++;
	return 0;
}

static struct kt_backend *open_fake(size_t queue, struct got *g, struct fake **out)
{
	struct kt_pump *p;
	struct fake *f;

	if (kt_pump_new(&p, queue, collect, g))
		return NULL;
	f = calloc(1, sizeof(*f));
	f->base.ops = &fake_ops;
	f->emit = kt_pump_emit;
	f->ctx = p;
	f->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	*out = f;
	return kt_pump_wrap(p, &f->base);
}

/* Until the run loop's poll has delivered everything the thread queued. */
static int drain(struct kt_backend *b)
{
	int n, total = 0, err = b->ops->sync(b);

	if (err)
		return err;
	while ((n = b->ops->poll(b, 0)) > 0)
		total += n;
	return n < 0 ? n : total;
}

static void test_through(void)
{
	struct got g = { .in_order = true };
	struct kt_backend *b;
	struct fake *f;
	int i;

	if (!unit_start("pump_every_record"))
		return;
	b = open_fake(16 << 20, &g, &f);
	if (!ASSERT_TRUE(b != NULL, "open"))
		goto out;
	ASSERT_STREQ(b->ops->name, "fake", "the wrapped backend's name");
	/* Before start: the caller's thread polls the backend itself. */
	make(f, 10);
	ASSERT_EQ(b->ops->poll(b, 0), 10, "before start");
	ASSERT_EQ(b->ops->start(b), 0, "start");
	for (i = 0; i < 50; i++)
		make(f, 100);
	ASSERT_TRUE(drain(b) >= 0, "drain");
	ASSERT_EQ(g.n, 5010, "records");
	ASSERT_EQ(g.lost, 0, "lost records");
	ASSERT_TRUE(g.in_order, "in order");
	b->ops->close(b);
out:
	unit_end();
}

/* The run loop does not poll while 5,000 records come: 64K holds a few
 * hundred; the rest is one LOST record of origin queue, counted. */
static void test_full(void)
{
	struct got g = { .in_order = true };
	struct kt_queue_stats st;
	struct kt_backend *b;
	struct fake *f;
	int i;

	if (!unit_start("pump_queue_full"))
		return;
	b = open_fake(64 << 10, &g, &f);
	if (!ASSERT_TRUE(b != NULL, "open"))
		goto out;
	ASSERT_EQ(b->ops->start(b), 0, "start");
	make(f, 5000);
	ASSERT_EQ(b->ops->sync(b), 0, "sync");
	b->ops->queue(b, &st);
	ASSERT_EQ(st.bound, 64 << 10, "bound");
	ASSERT_TRUE(st.bytes > 0 && st.bytes <= st.bound + 1024, "queued bytes within the bound");
	/* The LOST record comes once the run loop made room, though the
	 * kernel makes nothing more (no drain). */
	for (i = 0; i < 200 && !g.lost; i++) {
		if (b->ops->poll(b, 0) < 0)
			break;
		usleep(5000);
	}
	ASSERT_EQ(g.lost, 1, "LOST record without a drain");
	ASSERT_TRUE(drain(b) >= 0, "drain");
	ASSERT_TRUE(g.n > 100 && g.n < 5000, "some through, not all");
	ASSERT_EQ(g.lost, 1, "one LOST record");
	ASSERT_EQ(g.n + g.lost_records, 5000, "through + lost = made");
	ASSERT_EQ(st.lost, 5000 - g.n, "counted as lost");
	ASSERT_TRUE(g.in_order, "in order, origin queue");
	/* Room again: the next records all come through. */
	make(f, 100);
	ASSERT_TRUE(drain(b) >= 0, "drain");
	ASSERT_EQ(g.n + g.lost_records, 5100, "all of the next ones");
	b->ops->close(b);
out:
	unit_end();
}

int main(void)
{
	test_through();
	test_full();
	return unit_exit();
}
