// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A copy arrives as META, then its parts chunk by chunk in order, then END
 * (one hook run writes them one after the other; another program's copy
 * may come in between, from another CPU or a task that preempted it).
 * Copies are told apart by their program's first address.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include "ksymtap.h"
#include "archive/bpil.h"
#include "backend/code_capture.h"

/* Copies under way at once: one per CPU writing one, near enough. */
#define SLOTS 16

struct part {
	unsigned char *buf;
	__u32 total, got;
};

struct cap {
	__u64 key, lt; /* key 0: a free slot */
	__u64 age;
	struct kt_code_meta m;
	__u64 *faddr;
	__u32 *flen, *fstart, fdone;
	__u8 (*tags)[KT_TAG_SIZE];
	struct part p[KT_CODE_PARTS]; /* IMAGE: the functions one after the other */
	bool broken;
	bool done; /* whole: st waits for the unregister */
	struct kt_staged st;
};

struct kt_code_asm {
	struct kt_code_stage *stage;
	struct cap c[SLOTS];
	__u64 age;
};

struct kt_code_asm *kt_code_asm_new(struct kt_code_stage *stage)
{
	struct kt_code_asm *c = calloc(1, sizeof(*c));

	if (c)
		c->stage = stage;
	return c;
}

static void cap_free(struct cap *p)
{
	int i;

	for (i = 0; i < KT_CODE_PARTS; i++)
		free(p->p[i].buf);
	free(p->faddr);
	free(p->flen);
	free(p->fstart);
	free(p->tags);
	kt_staged_free(&p->st);
	memset(p, 0, sizeof(*p));
}

/* A slot for a new copy: a free one, else the oldest (its copy lost). */
static struct cap *cap_start(struct kt_code_asm *c, const struct kt_code_rec *r)
{
	struct cap *p = &c->c[0];
	const struct kt_code_meta *m = (const void *)r->data;
	int i;

	for (i = 0; i < SLOTS; i++) {
		if (c->c[i].key == r->key || !c->c[i].key) {
			p = &c->c[i];
			break;
		}
		if (c->c[i].age < p->age)
			p = &c->c[i];
	}
	/* A copy whose unregister never came (lost), or one under way. */
	if (p->key && p->done)
		__atomic_fetch_add(&c->stage->unclaimed, 1, __ATOMIC_RELAXED);
	else if (p->key)
		c->stage->partial++;
	cap_free(p);
	if (r->len < sizeof(*m) || !m->nfuncs || m->nfuncs > KT_MAX_SUBPROGS)
		return NULL;
	p->m = *m;
	p->faddr = calloc(m->nfuncs, sizeof(*p->faddr));
	p->flen = calloc(m->nfuncs, sizeof(*p->flen));
	p->fstart = calloc(m->nfuncs, sizeof(*p->fstart));
	p->tags = calloc(m->nfuncs, sizeof(*p->tags));
	if (!p->faddr || !p->flen || !p->fstart || !p->tags) {
		cap_free(p);
		return NULL;
	}
	p->key = r->key;
	p->lt = r->load_time;
	p->age = ++c->age;
	return p;
}

/* Append a chunk: it must be the next of its part. */
static int append(struct part *pt, const struct kt_code_rec *r, __u32 at, __u32 total)
{
	unsigned char *nb;

	if (r->off == 0 && (!pt->buf || at == pt->got)) {
		if ((size_t)at + total > (1U << 26))
			return -E2BIG;
		nb = realloc(pt->buf, (size_t)at + total + 1);
		if (!nb)
			return -ENOMEM;
		pt->buf = nb;
		pt->total = at + total;
	}
	if (at + r->off != pt->got || pt->got + r->len > pt->total)
		return -EPROTO;
	memcpy(pt->buf + pt->got, r->data, r->len);
	pt->got += r->len;
	return 0;
}

static int chunk(struct cap *p, const struct kt_code_rec *r)
{
	__u32 i = r->index;

	switch (r->part) {
	case KT_CODE_IMAGE:
		if (i >= p->m.nfuncs || (r->off == 0 && i != p->fdone))
			return -EPROTO;
		if (r->off == 0) {
			p->faddr[i] = r->faddr;
			p->flen[i] = r->total;
			p->fstart[i] = p->p[KT_CODE_IMAGE].got;
			p->fdone = i + 1;
		}
		return append(&p->p[KT_CODE_IMAGE], r, p->fstart[i], r->total);
	case KT_CODE_TAG:
		if (i >= p->m.nfuncs || r->len != KT_TAG_SIZE)
			return -EPROTO;
		memcpy(p->tags[i], r->data, KT_TAG_SIZE);
		return 0;
	case KT_CODE_LINFO:
	case KT_CODE_JLINFO:
	case KT_CODE_FINFO:
	case KT_CODE_BTF:
		return append(&p->p[r->part], r, 0, r->total);
	default:
		return -EPROTO;
	}
}

static bool whole(const struct cap *p)
{
	const struct part *pt = p->p;

	return p->fdone == p->m.nfuncs && pt[KT_CODE_IMAGE].got == pt[KT_CODE_IMAGE].total &&
	       pt[KT_CODE_LINFO].got == p->m.nr_linfo * sizeof(struct bpf_line_info) &&
	       pt[KT_CODE_JLINFO].got == p->m.nr_linfo * 8ULL &&
	       pt[KT_CODE_FINFO].got == p->m.nr_finfo * sizeof(struct bpf_func_info);
}

/* The copy as bpf_prog_get_info_by_fd() would have given it. */
static int finish(struct cap *p)
{
	struct bpf_prog_info info = {};
	struct kt_staged st = {};
	__u32 n = p->m.nfuncs;
	int err;

	info.type = p->m.prog_type;
	memcpy(info.tag, p->m.tag, sizeof(info.tag));
	memcpy(info.name, p->m.name, sizeof(info.name));
	info.name[sizeof(info.name) - 1] = 0;
	info.load_time = p->lt;
	info.btf_id = p->m.btf_id;
	info.jited_prog_len = p->p[KT_CODE_IMAGE].got;
	info.jited_prog_insns = (__u64)(unsigned long)p->p[KT_CODE_IMAGE].buf;
	/* Without subprograms the kernel gives the program's own tag (the
	 * BPF side sends no TAG part then). */
	if (n == 1)
		memcpy(p->tags[0], p->m.tag, KT_TAG_SIZE);
	info.nr_jited_ksyms = info.nr_jited_func_lens = info.nr_prog_tags = n;
	info.jited_ksyms = (__u64)(unsigned long)p->faddr;
	info.jited_func_lens = (__u64)(unsigned long)p->flen;
	info.prog_tags = (__u64)(unsigned long)p->tags;
	info.nr_func_info = p->m.nr_finfo;
	info.func_info_rec_size = sizeof(struct bpf_func_info);
	info.func_info = (__u64)(unsigned long)p->p[KT_CODE_FINFO].buf;
	info.nr_line_info = info.nr_jited_line_info = p->m.nr_linfo;
	info.line_info_rec_size = sizeof(struct bpf_line_info);
	info.line_info = (__u64)(unsigned long)p->p[KT_CODE_LINFO].buf;
	info.jited_line_info_rec_size = 8;
	info.jited_line_info = (__u64)(unsigned long)p->p[KT_CODE_JLINFO].buf;
	err = kt_bpil_pack(&info, &st.blob, &st.size);
	if (err)
		return err;
	st.addr = p->key;
	st.load_time = p->lt;
	st.btf_id = p->m.btf_id;
	if (p->m.btf_size && p->p[KT_CODE_BTF].got == p->m.btf_size) {
		st.btf_size = p->m.btf_size;
		st.btf = p->p[KT_CODE_BTF].buf;
		p->p[KT_CODE_BTF].buf = NULL;
	}
	p->st = st;
	p->done = true;
	return 0;
}

bool kt_code_asm_feed(struct kt_code_asm *c, const void *data, size_t size)
{
	const struct kt_code_rec *r = data;
	struct cap *p = NULL;
	int i;

	if (size < sizeof(*r) || r->record_type != KT_RECORD_CODE)
		return false;
	if (r->len > size - sizeof(*r)) {
		c->stage->partial++;
		return true;
	}
	if (r->part == KT_CODE_META) {
		if (!cap_start(c, r))
			c->stage->partial++;
		return true;
	}
	for (i = 0; i < SLOTS && !p; i++)
		if (c->c[i].key == r->key && c->c[i].lt == r->load_time && !c->c[i].done)
			p = &c->c[i];
	if (!p)
		return true; /* its META was lost: counted then */
	if (r->part != KT_CODE_END) {
		if (!p->broken && chunk(p, r))
			p->broken = true;
		return true;
	}
	if (p->broken || r->index || !whole(p) || finish(p)) {
		c->stage->partial++;
		cap_free(p);
	}
	return true;
}

__u64 kt_code_asm_take(struct kt_code_asm *c, __u64 addr)
{
	__u64 seq = 0;
	int i;

	for (i = 0; i < SLOTS; i++) {
		if (!c->c[i].done || c->c[i].key != addr)
			continue;
		seq = kt_stage_put(c->stage, &c->c[i].st);
		cap_free(&c->c[i]);
		break;
	}
	return seq;
}

void kt_code_asm_free(struct kt_code_asm *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < SLOTS; i++)
		cap_free(&c->c[i]);
	free(c);
}
