// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "record/recbuf.h"
#include "util/base.h"

#define HEAD offsetof(struct kt_record, name)

static size_t stored_size(size_t nlen)
{
	return (HEAD + nlen + 1 + 7) & ~(size_t)7;
}

int kt_recbuf_push(struct kt_recbuf *b, const struct kt_record *r)
{
	size_t nlen = strnlen(r->name, KT_NAME_MAX - 1), size = stored_size(nlen);
	unsigned char *at;

	if (KT_GROW(b->buf, b->cap, b->len + size))
		return -ENOMEM;
	at = b->buf + b->len;
	memcpy(at, r, HEAD);
	memcpy(at + HEAD, r->name, nlen);
	at[HEAD + nlen] = 0;
	b->len += size;
	b->n++;
	return 0;
}

bool kt_recbuf_next(const struct kt_recbuf *b, size_t *off, struct kt_record *out)
{
	const unsigned char *at;
	size_t nlen;

	if (*off >= b->len)
		return false;
	at = b->buf + *off;
	memcpy(out, at, HEAD);
	nlen = strlen((const char *)at + HEAD);
	memcpy(out->name, at + HEAD, nlen + 1);
	out->attrib = NULL;
	*off += stored_size(nlen);
	return true;
}

const char *kt_recbuf_name(const struct kt_recbuf *b, size_t off)
{
	return (const char *)b->buf + off + HEAD;
}

void kt_recbuf_free(struct kt_recbuf *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}
