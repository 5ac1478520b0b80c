// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The archive's store, its two perf.data features, and its bounds (serve).
 * Programs by id, BTF objects by id; a program's BTF is read with it, once
 * per object, as perf's perf_env__fetch_btf() does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "archive/archive.h"
#include "archive/bpil.h"
#include "record/record.h"
#include "util/base.h"

const struct kt_bpil *kt_archive_prog(const struct kt_archive *a, __u32 id)
{
	struct kt_hnode *n;

	if (!a->progs.nb)
		return NULL;
	for (n = *kt_htab_chain(&a->progs, id); n; n = n->next)
		if (n->key == id)
			return container_of(n, struct kt_bpil, node);
	return NULL;
}

/* Hold data, the raw BTF of object id (room for it made by KT_GROW first). */
static void btf_hold(struct kt_archive *a, __u32 id, unsigned char *data, __u32 size)
{
	struct kt_btf_blob *b = &a->btfs[a->nbtfs++];

	b->id = id;
	b->size = size;
	b->data = data;
	a->bytes += size;
}

/* The raw BTF of object id: bpf_btf_info's two calls (size, then data). */
static int add_btf(struct kt_archive *a, __u32 id)
{
	struct bpf_btf_info info = {};
	__u32 len = sizeof(info);
	unsigned char *data;
	int fd, err;

	if (!id || kt_archive_btf(a, id))
		return 0;
	err = KT_GROW(a->btfs, a->cap_btfs, a->nbtfs + 1);
	if (err)
		return err;
	fd = bpf_btf_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	err = bpf_obj_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	data = err ? NULL : malloc(info.btf_size ? info.btf_size : 1);
	if (!err && !data)
		err = -ENOMEM;
	if (!err) {
		__u32 size = info.btf_size;

		memset(&info, 0, sizeof(info));
		info.btf = (__u64)(unsigned long)data;
		info.btf_size = size;
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			err = -errno;
		else if (info.btf_size != size)
			err = -EAGAIN;
	}
	close(fd);
	if (err) {
		free(data);
		return err;
	}
	btf_hold(a, id, data, info.btf_size);
	return 0;
}

/* The BPF side need not copy this program at its unload. */
static void said_have(struct kt_archive *a, const struct kt_bpil *p, __u64 load_time)
{
	struct kt_bpil_view v;
	__u64 addr;
	__u32 len, off;
	char why[64];

	if (!a->stage || kt_bpil_view(p->blob, p->size, &v, why, sizeof(why)) || !v.nfuncs)
		return;
	kt_bpil_func(&v, 0, &addr, &len, &off);
	kt_stage_have(a->stage, addr, load_time);
}

/* Hold a program's blob under id: 0 or -ENOMEM (blob freed). */
static int hold(struct kt_archive *a, __u32 id, __u32 btf_id, unsigned char *blob, size_t size)
{
	struct kt_bpil *p;
	int err = a->progs.nb ? 0 : kt_htab_init(&a->progs, 64);

	p = err ? NULL : calloc(1, sizeof(*p));
	if (!p) {
		free(blob);
		return -ENOMEM;
	}
	p->node.key = id;
	p->id = id;
	p->btf_id = btf_id;
	p->blob = blob;
	p->size = size;
	kt_htab_add(&a->progs, &p->node);
	a->bytes += size;
	return 0;
}

/* The staged copy's BTF, unless held. */
static void keep_btf(struct kt_archive *a, struct kt_staged *st)
{
	if (!st->btf || !st->btf_id || kt_archive_btf(a, st->btf_id) ||
	    KT_GROW(a->btfs, a->cap_btfs, a->nbtfs + 1))
		return;
	btf_hold(a, st->btf_id, st->btf, st->btf_size);
	st->btf = NULL;
}

void kt_archive_claim(struct kt_archive *a, __u64 seq, __u32 id)
{
	const struct kt_bpil *held;
	struct kt_staged st;
	size_t i;

	if (!a->stage || !seq || !kt_stage_take(a->stage, seq, &st))
		return;
	if (!id) {
		kt_staged_free(&st);
		__atomic_fetch_add(&a->stage->unclaimed, 1, __ATOMIC_RELAXED);
		return;
	}
	held = kt_archive_prog(a, id);
	if (held) {
		/* Read in time but without its BTF (add_prog()). */
		if (st.btf_id == held->btf_id)
			keep_btf(a, &st);
		kt_staged_free(&st);
		return;
	}
	/* The BPF side could not know the program's id. */
	kt_bpil_set_id(st.blob, id);
	if (hold(a, id, st.btf_id, st.blob, st.size)) {
		st.blob = NULL;
		kt_staged_free(&st);
		a->failed++;
		return;
	}
	st.blob = NULL;
	a->caught++;
	for (i = 0; i < ARRAY_SIZE(a->late); i++)
		if (a->late[i].id == id)
			kt_archive_life(a, id, a->late[i].t, false);
	keep_btf(a, &st);
	kt_staged_free(&st);
}

void kt_archive_follow(struct kt_archive *a, const struct kt_record *r)
{
	if (r->type == KT_RECORD_BPF_EVENT) {
		if (r->bpf_type == KT_BPF_EVENT_PROG_LOAD)
			kt_archive_add_prog(a, r->prog_id);
		kt_archive_life(a, r->prog_id, r->time, r->bpf_type != KT_BPF_EVENT_PROG_LOAD);
	}
	if (r->code_seq)
		kt_archive_claim(a, r->code_seq, r->prog_id);
}

int kt_archive_add_prog(struct kt_archive *a, __u32 id)
{
	struct bpf_prog_info info;
	unsigned char *blob;
	size_t size;
	int fd, err;

	if (kt_archive_prog(a, id))
		return 0;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = kt_bpil_read(fd, &blob, &size, &info);
	close(fd);
	if (!err)
		err = hold(a, id, info.btf_id, blob, size);
	if (err)
		goto out;
	/* The program is held without its BTF if that cannot be read (its
	 * loader may close it first): the BPF side's copy at the unload then
	 * brings it, else perf names the functions by tag alone. */
	err = add_btf(a, info.btf_id);
	if (!err)
		said_have(a, kt_archive_prog(a, id), info.load_time);
	else if (err != -ENOENT)
		a->failed++;
	return 0;
out:
	/* Gone already: the BPF side may still copy it at its unload, and
	 * kt_archive_life() counts it gone if not. */
	if (err != -ENOENT)
		a->failed++;
	return err;
}

static size_t put(unsigned char *out, size_t at, const void *src, size_t n)
{
	if (out)
		memcpy(out + at, src, n);
	return at + n;
}

size_t kt_archive_feat_prog_info(const struct kt_archive *a, unsigned char *out)
{
	__u32 n = a->progs.n;
	size_t at = put(out, 0, &n, 4), i;
	struct kt_hnode *pos;

	kt_htab_for_each(&a->progs, i, pos)
	{
		const struct kt_bpil *p = container_of(pos, struct kt_bpil, node);

		at = put(out, at, p->blob, p->size);
	}
	return at;
}

size_t kt_archive_feat_btf(const struct kt_archive *a, unsigned char *out)
{
	__u32 n = a->nbtfs;
	size_t at = put(out, 0, &n, 4), i;

	for (i = 0; i < a->nbtfs; i++) {
		at = put(out, at, &a->btfs[i].id, 4);
		at = put(out, at, &a->btfs[i].size, 4);
		at = put(out, at, a->btfs[i].data, a->btfs[i].size);
	}
	return at;
}

static void free_prog(struct kt_hnode *n)
{
	struct kt_bpil *p = container_of(n, struct kt_bpil, node);

	free(p->blob);
	free(p);
}

int kt_archive_read_text(struct kt_archive *a, __u64 addr, __u32 len, unsigned char *buf)
{
	int err = a->kcore_err;

	if (!err && !a->kcore) {
		a->kcore = calloc(1, sizeof(*a->kcore));
		err = a->kcore ? kt_kcore_open(a->kcore, "/proc/kcore") : -ENOMEM;
		if (err) {
			free(a->kcore);
			a->kcore = NULL;
			a->kcore_err = err;
		}
	}
	if (!err)
		err = len > KT_ARCHIVE_TEXT_MAX ? -E2BIG : kt_kcore_read(a->kcore, addr, buf, len);
	if (err)
		a->texts_failed++;
	else
		a->texts++;
	return err;
}

void kt_archive_free(struct kt_archive *a)
{
	size_t i;

	if (a->kcore) {
		kt_kcore_close(a->kcore);
		free(a->kcore);
	}
	for (i = 0; i < a->ntext; i++)
		free(a->text[i].bytes);
	free(a->text);

	kt_htab_fini(&a->progs, free_prog);
	for (i = 0; i < a->nbtfs; i++)
		free(a->btfs[i].data);
	free(a->btfs);
	memset(a, 0, sizeof(*a));
}

const struct kt_btf_blob *kt_archive_btf(const struct kt_archive *a, __u32 id)
{
	size_t i;

	for (i = 0; i < a->nbtfs; i++)
		if (a->btfs[i].id == id)
			return &a->btfs[i];
	return NULL;
}

void kt_archive_life(struct kt_archive *a, __u32 id, __u64 t, bool unload)
{
	struct kt_bpil *p = (struct kt_bpil *)kt_archive_prog(a, id);

	if (!p) {
		if (unload) {
			a->gone++;
		} else {
			a->late[a->nlate % ARRAY_SIZE(a->late)].id = id;
			a->late[a->nlate % ARRAY_SIZE(a->late)].t = t;
			a->nlate++;
		}
		return;
	}
	if (!unload) {
		p->loaded = t;
		return;
	}
	if (p->unloaded)
		return;
	p->unloaded = t ? t : 1;
	if ((!a->dead && !a->dead_texts) || p->unloaded < a->oldest_death)
		a->oldest_death = p->unloaded;
	a->dead++;
}

/* A dead thing the archive keeps: a program, or another code's bytes. */
struct dead {
	__u64 death;
	struct kt_bpil *prog; /* or */
	size_t text; /* index into a->text */
};

static int by_death(const void *x, const void *y)
{
	const struct dead *a = x, *b = y;

	return a->death < b->death ? -1 : a->death > b->death;
}

static void drop_prog(struct kt_archive *a, struct kt_bpil *p)
{
	struct kt_hnode **pp;

	for (pp = kt_htab_chain(&a->progs, p->id); *pp; pp = &(*pp)->next)
		if (*pp == &p->node) {
			kt_htab_del(&a->progs, pp);
			break;
		}
	a->bytes -= p->size;
	a->dead--;
	a->evicted++;
	free(p->blob);
	free(p);
}

static bool btf_needed(const struct kt_archive *a, __u32 id)
{
	struct kt_hnode *pos;
	size_t b;

	kt_htab_for_each(&a->progs, b, pos) if (container_of(pos, struct kt_bpil, node)->btf_id ==
						id) return true;
	return false;
}

static void drop_btfs(struct kt_archive *a)
{
	size_t i = 0;

	while (i < a->nbtfs) {
		if (btf_needed(a, a->btfs[i].id)) {
			i++;
			continue;
		}
		a->bytes -= a->btfs[i].size;
		free(a->btfs[i].data);
		a->btfs[i] = a->btfs[--a->nbtfs];
	}
}

/* Texts marked dropped (bytes NULL) out of the array, in order. */
static void compact_texts(struct kt_archive *a)
{
	size_t i, n = 0;

	for (i = 0; i < a->ntext; i++)
		if (a->text[i].bytes)
			a->text[n++] = a->text[i];
	a->ntext = n;
}

static void drop_text(struct kt_archive *a, size_t i)
{
	a->bytes -= a->text[i].len;
	free(a->text[i].bytes);
	a->text[i].bytes = NULL;
	a->dead_texts--;
	a->evicted++;
}

/* Over 60 lines: gather, order and drop by the three bounds, then tidy. */
void kt_archive_trim(struct kt_archive *a, size_t max_dead, __u64 min_death, size_t max_bytes)
{
	size_t b, i, n = 0, k = 0, ndead = a->dead + a->dead_texts;
	struct kt_hnode *pos;
	struct dead *d;
	__u64 oldest = 0;

	/* Most calls: nothing to drop, known without a walk. */
	if (ndead <= max_dead && (!ndead || a->oldest_death >= min_death) && a->bytes <= max_bytes)
		return;
	if (!ndead)
		return;
	d = malloc(ndead * sizeof(*d));
	if (!d)
		return;
	kt_htab_for_each(&a->progs, b, pos)
	{
		struct kt_bpil *p = container_of(pos, struct kt_bpil, node);

		if (p->unloaded && n < ndead)
			d[n++] = (struct dead){ .death = p->unloaded, .prog = p };
	}
	for (i = 0; i < a->ntext && n < ndead; i++)
		if (a->text[i].death)
			d[n++] = (struct dead){ .death = a->text[i].death, .text = i };
	qsort(d, n, sizeof(*d), by_death);
	while (k < n && (n - k > max_dead || d[k].death < min_death || a->bytes > max_bytes)) {
		if (d[k].prog)
			drop_prog(a, d[k].prog);
		else
			drop_text(a, d[k].text);
		k++;
	}
	if (k < n)
		oldest = d[k].death;
	a->oldest_death = oldest;
	free(d);
	if (k) {
		compact_texts(a);
		drop_btfs(a);
	}
}

void kt_archive_text_died(struct kt_archive *a, __u64 addr, __u64 t)
{
	size_t i;

	for (i = a->ntext; i-- > 0;)
		if (a->text[i].addr == addr && !a->text[i].death) {
			a->text[i].death = t ? t : 1;
			if ((!a->dead && !a->dead_texts) || a->text[i].death < a->oldest_death)
				a->oldest_death = a->text[i].death;
			a->dead_texts++;
			return;
		}
}
