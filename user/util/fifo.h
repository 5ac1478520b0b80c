/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A bounded first-in first-out queue of variable-size entries between two
 * threads: one pushes entries one at a time, the other takes everything
 * queued at once and walks it without the lock (the reader thread and the
 * run loop, user/backend/pump.c).  Entries live in chunks of KT_FIFO_CHUNK
 * bytes; a taken batch's chunks come back as spares.
 */
#ifndef KT_FIFO_H
#define KT_FIFO_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define KT_FIFO_CHUNK (64 << 10)

struct kt_fifo_chunk;

struct kt_fifo {
	pthread_mutex_t lock;
	struct kt_fifo_chunk *head, *tail; /* queued */
	struct kt_fifo_chunk *spare; /* free chunks kept for reuse */
	int nspare;
	size_t bytes; /* queued: entries and their headers */
	size_t bound; /* most bytes queued at once */
	size_t peak; /* the most ever queued */
};

/* A batch taken by kt_fifo_take(), walked with kt_fifo_next(). */
struct kt_fifo_batch {
	struct kt_fifo_chunk *head, *cur;
	size_t off;
	size_t bytes;
};

int kt_fifo_init(struct kt_fifo *f, size_t bound);
void kt_fifo_fini(struct kt_fifo *f);
/* Queue the len bytes at data (len <= KT_FIFO_CHUNK / 2).  force: even over
 * the bound (a LOST record saying what the bound cost).  0, -ENOSPC over the
 * bound, -ENOMEM.  *was_empty: the queue held nothing before (the consumer
 * may be asleep: wake it). */
int kt_fifo_push(struct kt_fifo *f, const void *data, size_t len, bool force, bool *was_empty);
/* Everything queued, now, into b (empty: b->bytes == 0). */
void kt_fifo_take(struct kt_fifo *f, struct kt_fifo_batch *b);
/* The batch's next entry and its length, or NULL at its end. */
const void *kt_fifo_next(struct kt_fifo_batch *b, size_t *len);
/* Give a walked batch's chunks back. */
void kt_fifo_release(struct kt_fifo *f, struct kt_fifo_batch *b);
/* bytes and peak, under the lock. */
void kt_fifo_usage(struct kt_fifo *f, size_t *bytes, size_t *peak);

#endif
