// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/fifo.h"

/* Two spares: the chunk being filled while the consumer walks one. */
#define MAX_SPARE 2

struct kt_fifo_chunk {
	struct kt_fifo_chunk *next;
	size_t used; /* bytes of data[] written */
	unsigned char data[];
};

/* Each entry: its length, then its bytes, padded to 8. */
struct entry {
	size_t len;
	unsigned char data[];
};

#define CHUNK_DATA (KT_FIFO_CHUNK - sizeof(struct kt_fifo_chunk))

static size_t entry_size(size_t len)
{
	return (sizeof(struct entry) + len + 7) & ~(size_t)7;
}

int kt_fifo_init(struct kt_fifo *f, size_t bound)
{
	memset(f, 0, sizeof(*f));
	f->bound = bound;
	return -pthread_mutex_init(&f->lock, NULL);
}

static void free_chunks(struct kt_fifo_chunk *c)
{
	struct kt_fifo_chunk *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
}

void kt_fifo_fini(struct kt_fifo *f)
{
	free_chunks(f->head);
	free_chunks(f->spare);
	f->head = f->tail = f->spare = NULL;
	pthread_mutex_destroy(&f->lock);
}

static struct kt_fifo_chunk *new_chunk(struct kt_fifo *f)
{
	struct kt_fifo_chunk *c = f->spare;

	if (c) {
		f->spare = c->next;
		f->nspare--;
	} else {
		c = malloc(KT_FIFO_CHUNK);
		if (!c)
			return NULL;
	}
	c->next = NULL;
	c->used = 0;
	return c;
}

int kt_fifo_push(struct kt_fifo *f, const void *data, size_t len, bool force, bool *was_empty)
{
	size_t need = entry_size(len);
	struct kt_fifo_chunk *c;
	struct entry *e;
	int err = 0;

	if (need > CHUNK_DATA / 2)
		return -EINVAL;
	pthread_mutex_lock(&f->lock);
	*was_empty = !f->bytes;
	if (!force && f->bytes + need > f->bound) {
		err = -ENOSPC;
		goto out;
	}
	c = f->tail;
	if (!c || c->used + need > CHUNK_DATA) {
		c = new_chunk(f);
		if (!c) {
			err = -ENOMEM;
			goto out;
		}
		if (f->tail)
			f->tail->next = c;
		else
			f->head = c;
		f->tail = c;
	}
	e = (struct entry *)(c->data + c->used);
	e->len = len;
	memcpy(e->data, data, len);
	c->used += need;
	f->bytes += need;
	if (f->bytes > f->peak)
		f->peak = f->bytes;
out:
	pthread_mutex_unlock(&f->lock);
	return err;
}

void kt_fifo_take(struct kt_fifo *f, struct kt_fifo_batch *b)
{
	pthread_mutex_lock(&f->lock);
	b->head = b->cur = f->head;
	b->off = 0;
	b->bytes = f->bytes;
	f->head = f->tail = NULL;
	f->bytes = 0;
	pthread_mutex_unlock(&f->lock);
}

const void *kt_fifo_next(struct kt_fifo_batch *b, size_t *len)
{
	struct entry *e;

	while (b->cur && b->off >= b->cur->used) {
		b->cur = b->cur->next;
		b->off = 0;
	}
	if (!b->cur)
		return NULL;
	e = (struct entry *)(b->cur->data + b->off);
	b->off += entry_size(e->len);
	*len = e->len;
	return e->data;
}

void kt_fifo_release(struct kt_fifo *f, struct kt_fifo_batch *b)
{
	struct kt_fifo_chunk *c, *next, *drop = NULL;

	pthread_mutex_lock(&f->lock);
	for (c = b->head; c; c = next) {
		next = c->next;
		if (f->nspare < MAX_SPARE) {
			c->next = f->spare;
			f->spare = c;
			f->nspare++;
		} else {
			c->next = drop;
			drop = c;
		}
	}
	pthread_mutex_unlock(&f->lock);
	free_chunks(drop);
	memset(b, 0, sizeof(*b));
}

void kt_fifo_usage(struct kt_fifo *f, size_t *bytes, size_t *peak)
{
	pthread_mutex_lock(&f->lock);
	*bytes = f->bytes;
	*peak = f->peak;
	pthread_mutex_unlock(&f->lock);
}
