/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The OTLP exporter's spool (--otlp-spool DIR, docs/otlp.md): requests the
 * collector could not take yet, one file each, exactly as they are sent
 * (ExportLogsServiceRequest, protobuf or JSON, gzip or not), named in the
 * order they were made, so that they go out in that order when it answers
 * again, after a restart too.  Bounded in bytes; a directory one ksymtap
 * at a time holds (a lock file).  Only the exporter's thread calls it.
 */
#ifndef KT_OTLP_SPOOL_H
#define KT_OTLP_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include "encode/otlp_logs.h"

struct kt_spool_file {
	unsigned long long order; /* the name's number: files go out by it */
	unsigned int records;
	size_t bytes;
	enum kt_otlp_protocol proto;
	bool gzip;
};

struct kt_spool {
	int dirfd, lockfd;
	char dir[512];
	size_t bound, bytes;
	unsigned long long records, next_order;
	struct kt_spool_file *f; /* f[head..n): oldest first */
	size_t head, n, cap;
};

/* Open (make, mode 0700) dir and lock it; list what an earlier run left.
 * 0, or -errno with one line in why (-EBUSY: another process holds it). */
int kt_spool_open(struct kt_spool *s, const char *dir, size_t bound, char *why, size_t why_size);
void kt_spool_close(struct kt_spool *s);
static inline bool kt_spool_empty(const struct kt_spool *s)
{
	return s->head == s->n;
}
/* The oldest file, or NULL. */
const struct kt_spool_file *kt_spool_head(const struct kt_spool *s);
/* Add a request of n records after the others.  0; -ENOSPC when it does not
 * fit in the bound; -errno when it could not be written. */
int kt_spool_put(struct kt_spool *s, const void *body, size_t len, unsigned int records,
		 enum kt_otlp_protocol proto, bool gzip);
/* The oldest file's bytes, malloc()ed.  0 or -errno. */
int kt_spool_read_head(struct kt_spool *s, char **body, size_t *len);
/* Remove the oldest file (sent, or refused for good). */
void kt_spool_pop(struct kt_spool *s);

#endif
