// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* code_at.h */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include "history/code_at.h"
#include "history/code_in.h"
#include "history/record_file.h"

static int add(void *ctx, struct kt_record *r)
{
	struct kt_code_file *f = ctx;

	if (r->type == KT_RECORD_BPF_EVENT)
		kt_archive_life(&f->a, r->prog_id, r->time, r->bpf_type != KT_BPF_EVENT_PROG_LOAD);
	return kt_history_add(&f->h, r);
}

int kt_code_file_load(struct kt_code_file *f, const char *path, char *why, size_t why_size)
{
	struct utsname u;
	int err;

	memset(f, 0, sizeof(*f));
	kt_history_init(&f->h);
	err = kt_code_file_read(path, &f->a, true, f->arch, sizeof(f->arch), why, why_size);
	if (!err)
		err = kt_record_file_read(path, add, f, NULL, why, why_size);
	if (err == -ENOMEM && !why[0])
		snprintf(why, why_size, "%s: out of memory", path);
	if (err)
		return err;
	kt_history_done(&f->h);
	/* Files of ksymtap before 2026-12 carry no HEADER_ARCH. */
	if (!f->arch[0] && !uname(&u))
		snprintf(f->arch, sizeof(f->arch), "%s", u.machine);
	return 0;
}

void kt_code_file_fini(struct kt_code_file *f)
{
	kt_history_fini(&f->h);
	kt_archive_free(&f->a);
	memset(f, 0, sizeof(*f));
}

/* Of the programs that had a function at the symbol's address, the one
 * loaded right after the symbol was born (its KSYMBOLs come just before its
 * BPF_EVENT); one whose load was not seen only if there is no other. */
static __u64 distance(const struct kt_bpil *p, __u64 birth)
{
	return p->loaded && p->loaded >= birth ? p->loaded - birth : ~0ULL;
}

/* The bytes read for symbol s as it registered (their TEXT_POKE has its
 * register's time): the last before t, or the first of its life. */
static const struct kt_text *find_text(const struct kt_archive *a, const struct kt_hsym *s, __u64 t)
{
	const struct kt_text *best = NULL;
	size_t i;

	for (i = 0; i < a->ntext; i++) {
		const struct kt_text *x = &a->text[i];

		if (x->addr != s->addr || x->time < s->birth || x->time >= s->death)
			continue;
		if (!best || (x->time <= t && x->time > best->time) ||
		    (best->time > t && x->time < best->time))
			best = x;
	}
	return best;
}

int kt_code_find(const struct kt_history *h, const struct kt_archive *a, __u64 addr, __u64 t,
		 bool last, struct kt_code_hit *hit, char *why, size_t why_size)
{
	__u64 best = 0, d, start;
	struct kt_hnode *pos;
	struct kt_bpil_view v;
	__u32 i, len;
	size_t b;
	int err;

	memset(hit, 0, sizeof(*hit));
	hit->sym = kt_history_find(h, addr, t);
	hit->when = t;
	if (!hit->sym && last) {
		hit->sym = kt_history_find_last(h, addr);
		hit->last = hit->sym;
		hit->when = hit->sym ? hit->sym->birth : t;
	}
	if (!hit->sym)
		return 0;
	if (hit->sym->source != KT_SRC_BPF_PROG) {
		hit->text = find_text(a, hit->sym, hit->when);
		return 0;
	}
	kt_htab_for_each(&a->progs, b, pos)
	{
		const struct kt_bpil *p = container_of(pos, struct kt_bpil, node);

		err = kt_bpil_view(p->blob, p->size, &v, why, why_size);
		if (err)
			return err;
		for (i = 0; i < v.nfuncs; i++) {
			kt_bpil_func(&v, i, &start, &len, NULL);
			if (start != hit->sym->addr)
				continue;
			d = distance(p, hit->sym->birth);
			if (!hit->prog || d < best) {
				hit->prog = p;
				hit->v = v;
				hit->func = i;
				best = d;
				/* Every function of the program is in the
				 * history then: calls between them are named. */
				if (hit->last && d != ~0ULL)
					hit->when = p->loaded;
			}
		}
	}
	return 0;
}

/* Line i's strings; false without them. */
static bool src_line(const struct btf *btf, const struct kt_bpil_view *v, __u32 i,
		     struct kt_code_line *l, __u64 *jaddr)
{
	struct bpf_line_info li;

	kt_bpil_linfo(v, i, &li, jaddr);
	if (!btf)
		return false;
	l->text = btf__name_by_offset(btf, li.line_off);
	if (!l->text)
		return false;
	/* bpftool's ltrim() */
	while (*l->text == ' ' || *l->text == '\t')
		l->text++;
	l->file = btf__name_by_offset(btf, li.file_name_off);
	if (!l->file)
		l->file = "";
	l->line = BPF_LINE_INFO_LINE_NUM(li.line_col);
	l->col = BPF_LINE_INFO_LINE_COL(li.line_col);
	return true;
}

/* Over 60 lines: the image, the BTF and Capstone set up and torn down
 * around the one loop that interleaves lines and instructions. */
int kt_code_walk(const struct kt_archive *a, const char *arch, const struct kt_code_hit *hit,
		 const struct kt_code_ops *ops, void *ctx)
{
	const struct kt_btf_blob *bb = kt_archive_btf(a, hit->v.info.btf_id);
	const unsigned char *image, *code;
	struct btf *btf = NULL;
	struct kt_code_line l;
	struct kt_disasm d;
	struct kt_insn in;
	__u32 ilen, flen, off, li = 0;
	__u64 start, addr, jaddr;
	size_t left;
	int err;

	err = kt_disasm_open(&d, arch);
	if (err)
		return err;
	/* NULL if it does not parse: the lines are then left out. */
	if (bb)
		btf = btf__new(bb->data, bb->size);
	if (hit->text) {
		/* No line info: the loop below finds none (nlinfo 0). */
		image = hit->text->bytes;
		ilen = hit->text->len;
		start = hit->sym->addr;
		flen = hit->sym->len < ilen ? hit->sym->len : ilen;
		off = 0;
	} else {
		image = kt_bpil_jited(&hit->v, &ilen);
		kt_bpil_func(&hit->v, hit->func, &start, &flen, &off);
	}
	code = image + off;
	left = off + flen <= ilen ? flen : 0;
	addr = start;
	while (!err && kt_disasm_next(&d, &code, &left, &addr, &in)) {
		/* Every line whose code starts at or before this instruction and
		 * is not yet said, in the program's order (bpftool's xlated
		 * linum order). */
		for (; !err && li < hit->v.nlinfo; li++) {
			bool have = src_line(btf, &hit->v, li, &l, &jaddr);

			/* Another function's (they are not in address order). */
			if (jaddr < start || jaddr >= start + flen)
				continue;
			if (jaddr > in.addr)
				break;
			if (have)
				err = ops->line(ctx, &l);
		}
		if (!err)
			err = ops->insn(ctx, &in);
	}
	btf__free(btf);
	kt_disasm_close(&d);
	return err;
}
