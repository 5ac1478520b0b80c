/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One serve client's outgoing bytes, bounded.  Records are queued whole or not
 * at all.  The first record that does not fit puts the queue in overflow: it
 * and every later one is counted, not queued, until the client has read all
 * that was queued; then the daemon sends the count (a LOST record) and a fresh
 * snapshot, and the client is whole again.  The reader of the ring buffer and
 * the other clients never wait for this one.
 */
#ifndef KT_SERVE_QUEUE_H
#define KT_SERVE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct kt_squeue {
	char *buf;
	size_t head, len, cap; /* queued bytes are buf[head, head + len) */
	size_t limit; /* most bytes ever queued */
	bool overflow;
	unsigned long long lost; /* records not queued since the overflow began */
	unsigned long long lost_total; /* over the client's life */
	unsigned long long overflows;
};

int kt_squeue_init(struct kt_squeue *q, size_t limit);
void kt_squeue_fini(struct kt_squeue *q);
/* Queue one record: 0, or -ENOBUFS if it was counted as lost (overflow). */
int kt_squeue_push(struct kt_squeue *q, const void *data, size_t len);
/* Queue bytes that must not be lost (the resync itself): 0 or -ENOBUFS
 * without entering overflow. */
int kt_squeue_push_reserved(struct kt_squeue *q, const void *data, size_t len);
/* The same past the limit, by len: one last record behind a full queue. */
int kt_squeue_push_last(struct kt_squeue *q, const void *data, size_t len);
/* Send what the socket takes without blocking: bytes sent, or -errno (not
 * -EAGAIN: a full socket is 0). */
ssize_t kt_squeue_send(struct kt_squeue *q, int fd);
static inline bool kt_squeue_empty(const struct kt_squeue *q)
{
	return q->len == 0;
}
/* In overflow and drained: returns true once, with the count to report, and
 * leaves overflow (the caller queues the LOST record and the snapshot). */
bool kt_squeue_resync_due(struct kt_squeue *q, unsigned long long *lost);
/* In overflow, drained or not: the same, for a last LOST record behind what
 * is queued (the daemon stops). */
bool kt_squeue_end_overflow(struct kt_squeue *q, unsigned long long *lost);

#endif
