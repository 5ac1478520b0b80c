// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "serve/serve_queue.h"

/* Start small: most clients keep up, and a limit is not an allocation. */
#define INITIAL_CAP (64 * 1024)

int kt_squeue_init(struct kt_squeue *q, size_t limit)
{
	memset(q, 0, sizeof(*q));
	q->limit = limit;
	q->cap = limit < INITIAL_CAP ? limit : INITIAL_CAP;
	q->buf = malloc(q->cap ? q->cap : 1);
	return q->buf ? 0 : -ENOMEM;
}

void kt_squeue_fini(struct kt_squeue *q)
{
	free(q->buf);
	q->buf = NULL;
}

static int append(struct kt_squeue *q, const void *data, size_t len, size_t limit)
{
	if (q->len + len > limit)
		return -ENOBUFS;
	if (q->head + q->len + len > q->cap) {
		/* Slide down first; grow (up to the limit) only if that is not enough. */
		memmove(q->buf, q->buf + q->head, q->len);
		q->head = 0;
		if (q->len + len > q->cap) {
			size_t cap = q->cap;
			char *nb;

			while (cap < q->len + len)
				cap *= 2;
			if (cap > limit)
				cap = limit;
			nb = realloc(q->buf, cap);
			if (!nb)
				return -ENOBUFS; /* no memory is a full queue too */
			q->buf = nb;
			q->cap = cap;
		}
	}
	memcpy(q->buf + q->head + q->len, data, len);
	q->len += len;
	return 0;
}

int kt_squeue_push(struct kt_squeue *q, const void *data, size_t len)
{
	if (!q->overflow && !append(q, data, len, q->limit))
		return 0;
	if (!q->overflow) {
		q->overflow = true;
		q->overflows++;
	}
	q->lost++;
	q->lost_total++;
	return -ENOBUFS;
}

int kt_squeue_push_reserved(struct kt_squeue *q, const void *data, size_t len)
{
	return append(q, data, len, q->limit);
}

int kt_squeue_push_last(struct kt_squeue *q, const void *data, size_t len)
{
	return append(q, data, len, q->limit + len);
}

ssize_t kt_squeue_send(struct kt_squeue *q, int fd)
{
	ssize_t n, total = 0;

	while (q->len) {
		n = send(fd, q->buf + q->head, q->len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			return -errno;
		}
		q->head += n;
		q->len -= n;
		total += n;
	}
	if (!q->len)
		q->head = 0;
	return total;
}

bool kt_squeue_resync_due(struct kt_squeue *q, unsigned long long *lost)
{
	if (!q->overflow || q->len)
		return false;
	return kt_squeue_end_overflow(q, lost);
}

bool kt_squeue_end_overflow(struct kt_squeue *q, unsigned long long *lost)
{
	if (!q->overflow)
		return false;
	*lost = q->lost;
	q->lost = 0;
	q->overflow = false;
	return true;
}
