/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Records kept in order in one growing buffer, each with only the bytes of
 * its name (a kt_record is over 600 bytes, most names under 64): what the
 * start-up snapshot holds while it is merged with the live records. */
#ifndef KT_RECBUF_H
#define KT_RECBUF_H

#include <stdbool.h>
#include <stddef.h>
#include "record/record.h"

struct kt_recbuf {
	unsigned char *buf;
	size_t len, cap;
	size_t n; /* records */
};

/* A copy of r at the end: 0 or -ENOMEM (the buffer as it was). */
int kt_recbuf_push(struct kt_recbuf *b, const struct kt_record *r);
/* The record at *off into out, *off moved to the next one: false at the end.
 * Start with *off = 0. */
bool kt_recbuf_next(const struct kt_recbuf *b, size_t *off, struct kt_record *out);
/* The name of the record at off, in the buffer itself (valid until the next
 * push). */
const char *kt_recbuf_name(const struct kt_recbuf *b, size_t off);
void kt_recbuf_free(struct kt_recbuf *b);

#endif
