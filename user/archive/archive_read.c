// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The archive read back: perf's two features from a perf.data (ksymtap's or
 * perf's own: tools/perf/util/header.c, process_bpf_prog_info() and
 * process_bpf_btf()), and one program copied into another archive (serve's
 * mode=code answer).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "archive/archive.h"
#include "archive/bpil.h"
#include "util/base.h"

static int hold(struct kt_archive *a, const unsigned char *src, size_t size, char *why,
		size_t why_size)
{
	struct kt_bpil_view v;
	struct kt_bpil *p;
	char bad[128];
	int err;

	err = a->progs.nb ? 0 : kt_htab_init(&a->progs, 64);
	p = err ? NULL : calloc(1, sizeof(*p));
	if (!p || !(p->blob = malloc(size))) {
		free(p);
		return -ENOMEM;
	}
	memcpy(p->blob, src, size);
	p->size = size;
	err = kt_bpil_view(p->blob, size, &v, bad, sizeof(bad));
	if (!err && kt_archive_prog(a, v.info.id))
		err = 1;
	if (err) {
		if (err < 0)
			snprintf(why, why_size, "a program's bpf_prog_info: %s", bad);
		free(p->blob);
		free(p);
		return err < 0 ? err : 0;
	}
	p->id = p->node.key = v.info.id;
	p->btf_id = v.info.btf_id;
	kt_htab_add(&a->progs, &p->node);
	a->bytes += size;
	return 0;
}

/* perf's process_bpf_prog_info(): u32 count, then per program u32
 * info_len, u32 data_len, u64 arrays, the info, the data. */
int kt_archive_read_prog_info(struct kt_archive *a, const unsigned char *buf, size_t len, char *why,
			      size_t why_size)
{
	struct kt_bpil_head head;
	size_t at = 4, size;
	__u32 n, i;
	int err;

	if (len < 4)
		goto cut;
	memcpy(&n, buf, 4);
	for (i = 0; i < n; i++) {
		if (len - at < sizeof(head))
			goto cut;
		memcpy(&head, buf + at, sizeof(head));
		size = sizeof(head) + (size_t)head.info_len + head.data_len;
		if (size > len - at)
			goto cut;
		err = hold(a, buf + at, size, why, why_size);
		if (err)
			return err;
		at += size;
	}
	return 0;
cut:
	snprintf(why, why_size, "HEADER_BPF_PROG_INFO is cut short at byte %zu", at);
	return -EINVAL;
}

/* perf's process_bpf_btf(): u32 count, then per object u32 id, u32 size,
 * the data. */
int kt_archive_read_btf(struct kt_archive *a, const unsigned char *buf, size_t len, char *why,
			size_t why_size)
{
	__u32 n, i, id, size;
	size_t at = 4;
	int err;

	if (len < 4)
		goto cut;
	memcpy(&n, buf, 4);
	for (i = 0; i < n; i++) {
		if (len - at < 8)
			goto cut;
		memcpy(&id, buf + at, 4);
		memcpy(&size, buf + at + 4, 4);
		if (size > len - at - 8)
			goto cut;
		if (!kt_archive_btf(a, id)) {
			struct kt_btf_blob *b;

			err = KT_GROW(a->btfs, a->cap_btfs, a->nbtfs + 1);
			if (err)
				return err;
			b = &a->btfs[a->nbtfs];
			b->data = malloc(size ? size : 1);
			if (!b->data)
				return -ENOMEM;
			memcpy(b->data, buf + at + 8, size);
			b->id = id;
			b->size = size;
			a->nbtfs++;
			a->bytes += size;
		}
		at += 8 + size;
	}
	return 0;
cut:
	snprintf(why, why_size, "HEADER_BPF_BTF is cut short at byte %zu", at);
	return -EINVAL;
}

int kt_archive_copy_prog(struct kt_archive *dst, const struct kt_archive *src, __u32 id)
{
	const struct kt_bpil *p = kt_archive_prog(src, id);
	const struct kt_btf_blob *bb;
	char why[128];
	__u32 one = 1;
	unsigned char *body;
	int err;

	if (!p)
		return -ENOENT;
	/* As a one-program HEADER_BPF_PROG_INFO body, read back. */
	body = malloc(4 + p->size);
	if (!body)
		return -ENOMEM;
	memcpy(body, &one, 4);
	memcpy(body + 4, p->blob, p->size);
	err = kt_archive_read_prog_info(dst, body, 4 + p->size, why, sizeof(why));
	free(body);
	if (err)
		return err;
	kt_archive_life(dst, id, p->loaded, false);
	if (p->unloaded)
		kt_archive_life(dst, id, p->unloaded, true);
	bb = kt_archive_btf(src, p->btf_id);
	if (!bb || kt_archive_btf(dst, bb->id))
		return 0;
	err = KT_GROW(dst->btfs, dst->cap_btfs, dst->nbtfs + 1);
	if (err)
		return err;
	dst->btfs[dst->nbtfs].data = malloc(bb->size ? bb->size : 1);
	if (!dst->btfs[dst->nbtfs].data)
		return -ENOMEM;
	memcpy(dst->btfs[dst->nbtfs].data, bb->data, bb->size);
	dst->btfs[dst->nbtfs].id = bb->id;
	dst->btfs[dst->nbtfs].size = bb->size;
	dst->bytes += bb->size;
	dst->nbtfs++;
	return 0;
}

int kt_archive_add_text(struct kt_archive *a, __u64 addr, __u64 time, const void *bytes, __u32 len)
{
	struct kt_text *t;

	if (KT_GROW(a->text, a->cap_text, a->ntext + 1))
		return -ENOMEM;
	t = &a->text[a->ntext];
	t->bytes = malloc(len ? len : 1);
	if (!t->bytes)
		return -ENOMEM;
	memcpy(t->bytes, bytes, len);
	t->addr = addr;
	t->time = time;
	t->death = 0;
	t->len = len;
	a->bytes += len;
	a->ntext++;
	return 0;
}
