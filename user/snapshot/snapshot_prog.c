// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The snapshot's BPF programs: bpf_prog_get_next_id() -> bpf_prog_get_fd_by_id()
 * -> bpf_obj_get_info_by_fd() with jited_ksyms, jited_func_lens, prog_tags and
 * func_info (+ the program's BTF for the function names), as perf's
 * perf_event__synthesize_one_bpf_prog() does.  (bpf_prog_get_info_by_fd() is
 * libbpf 1.2+; Debian 12 ships 1.1.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "util/base.h"
#include "kt_snapshot.h"
#include "util/log.h"
#include "snapshot/snapshot.h"

void kt_prog_desc_free(struct kt_prog_desc *d)
{
	__u32 i;

	if (!d)
		return;
	for (i = 0; d->func_names && i < d->nfuncs; i++)
		free(d->func_names[i]);
	free(d->func_names);
	free(d->addrs);
	free(d->lens);
	free(d->tags);
	memset(d, 0, sizeof(*d));
}

int kt_bpf_prog_ksym_name(char *buf, size_t size, const __u8 *tag, const char *func_name,
			  const char *aux_name)
{
	const char *suffix = func_name ? func_name : aux_name && aux_name[0] ? aux_name : NULL;
	char hex[2 * KT_TAG_SIZE + 1];
	int i;

	if (!size)
		return 0;
	for (i = 0; i < KT_TAG_SIZE; i++)
		snprintf(hex + 2 * i, 3, "%02x", tag[i]);
	/* Truncated like the kernel's snprintf() into KSYM_NAME_LEN bytes. */
	snprintf(buf, size, "bpf_prog_%s%s%s", hex, suffix ? "_" : "", suffix ? suffix : "");
	return strlen(buf);
}

static void snap_record(struct kt_record *r, unsigned int type)
{
	memset(r, 0, offsetof(struct kt_record, name));
	r->type = type;
	r->source = KT_SRC_BPF_PROG;
	r->origin = KT_ORIGIN_SNAPSHOT;
	/* Like perf's synthesized records: no task, time 0. */
	r->rflags = KT_RF_SNAPSHOT | KT_RF_NO_TASK;
}

int kt_snapshot_prog_records(const struct kt_prog_desc *d, const struct kt_dynsyms *ks,
			     kt_emit_fn emit, void *ctx)
{
	struct kt_record *r = malloc(sizeof(*r));
	const struct kt_dynsym *e;
	int err = 0, n = 0;
	__u32 i;

	if (!r)
		return -ENOMEM;
	for (i = 0; i < d->nfuncs; i++) {
		/* Kernels since 0108a4e9f358 (6.4, and 5.15.y, 6.1.y) never add
		 * func[0]'s own ksym: the program's ksym stands for it, under the
		 * program's tag, which differs from prog_tags[0].  Before (5.10),
		 * both are listed and perf reports func[0]'s. */
		bool own = i == 0 && !(ks && ks->func0_listed && d->nfuncs > 1);
		const __u8 *tag = own ? d->tag : d->tags[i];
		/* jit_subprogs() names subprograms "F" for stack traces. */
		const char *aux = own ? d->name : "F";

		if (!d->addrs[i])
			continue; /* kptr_restrict: bpf_prog_info hides addresses */
		snap_record(r, KT_RECORD_KSYMBOL);
		r->addr = d->addrs[i];
		r->len = d->lens[i];
		r->ksym_type = KT_KSYM_TYPE_BPF;
		/* func[0] where two names share its address: perf's, built. */
		e = ks && (own || i > 0) ? kt_dynsyms_find(ks, r->addr, KT_SRC_BPF_PROG) : NULL;
		if (e)
			snprintf(r->name, sizeof(r->name), "%s", e->name);
		else
			kt_bpf_prog_ksym_name(r->name, sizeof(r->name), tag,
					      d->func_names ? d->func_names[i] : NULL, aux);
		err = emit(ctx, r);
		if (err)
			goto out;
		n++;
	}
	snap_record(r, KT_RECORD_BPF_EVENT);
	r->bpf_type = KT_BPF_EVENT_PROG_LOAD;
	r->prog_id = d->id;
	memcpy(r->tag, d->tag, KT_TAG_SIZE);
	snprintf(r->name, sizeof(r->name), "%s", d->name);
	err = emit(ctx, r);
out:
	free(r);
	return err ? err : n;
}

/* The BTF names of the program's functions, as bpf_prog_ksym_set_name() reads
 * them: func_info[i].type_id in the program's BTF. */
static char **func_names(__u32 btf_id, const struct bpf_func_info *fi, __u32 nfi, __u32 nfuncs)
{
	struct btf *btf;
	char **names;
	__u32 i;

	if (!btf_id || !nfi)
		return NULL;
	btf = btf__load_from_kernel_by_id(btf_id);
	if (!btf)
		return NULL;
	names = calloc(nfuncs, sizeof(*names));
	for (i = 0; names && i < nfuncs && i < nfi; i++) {
		const struct btf_type *t = btf__type_by_id(btf, fi[i].type_id);
		const char *s = t ? btf__name_by_offset(btf, t->name_off) : NULL;

		names[i] = s ? strdup(s) : NULL;
	}
	btf__free(btf);
	return names;
}

/* Arrays asked for in the first bpf_obj_get_info_by_fd() already: most
 * programs have fewer functions, and then one call per program is enough
 * (perf and bpftool ask for the counts first, then the arrays). */
#define FIRST_FUNCS 8

/* info asks for n functions' addresses, lengths and tags, and for nfi
 * func_info records, into the arrays given. */
static void ask_funcs(struct bpf_prog_info *info, __u32 n, __u64 *addrs, __u32 *lens, void *tags,
		      __u32 nfi, struct bpf_func_info *fi)
{
	memset(info, 0, sizeof(*info));
	info->nr_jited_ksyms = n;
	info->jited_ksyms = (__u64)(unsigned long)addrs;
	info->nr_jited_func_lens = n;
	info->jited_func_lens = (__u64)(unsigned long)lens;
	info->nr_prog_tags = n;
	info->prog_tags = (__u64)(unsigned long)tags;
	if (nfi) {
		info->nr_func_info = nfi;
		info->func_info_rec_size = sizeof(*fi);
		info->func_info = (__u64)(unsigned long)fi;
	}
}

/* 0, -ENOENT if the program went away, another -errno on failure.
 * Over 60 lines: bpf_prog_info's two calls (counts and the first
 * functions, then, for a program with more, all of them) and the checks
 * between them, in one piece. */
static int read_prog(int fd, struct kt_prog_desc *d)
{
	/* Zeroed: without CAP_SYSLOG (kptr_restrict) the kernel leaves
	 * addresses and lengths out and says so only by zeroing the pointers. */
	__u64 addrs[FIRST_FUNCS] = { 0 };
	__u32 lens[FIRST_FUNCS] = { 0 };
	__u8 tags[FIRST_FUNCS][KT_TAG_SIZE] = { { 0 } };
	struct bpf_func_info fi0[FIRST_FUNCS] = { { 0 } }, *fi = NULL;
	struct bpf_prog_info info;
	__u32 len = sizeof(info), n, nfi;
	int err;

	ask_funcs(&info, FIRST_FUNCS, addrs, lens, tags, FIRST_FUNCS, fi0);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	n = info.nr_jited_ksyms;
	nfi = info.nr_func_info;
	memset(d, 0, sizeof(*d));
	d->id = info.id;
	memcpy(d->tag, info.tag, KT_TAG_SIZE);
	memcpy(d->name, info.name, sizeof(d->name));
	d->name[sizeof(d->name) - 1] = 0;
	/* perf skips programs whose three arrays disagree; so do we. */
	if (n != info.nr_jited_func_lens || n != info.nr_prog_tags)
		return 0;
	if (!n)
		return 0; /* not JITed: no image, only the BPF_EVENT */
	d->addrs = calloc(n, sizeof(*d->addrs));
	d->lens = calloc(n, sizeof(*d->lens));
	d->tags = calloc(n, sizeof(*d->tags));
	if (nfi && info.func_info_rec_size == sizeof(*fi))
		fi = calloc(nfi, sizeof(*fi));
	else
		nfi = 0;
	if (!d->addrs || !d->lens || !d->tags || (nfi && !fi)) {
		err = -ENOMEM;
		goto fail;
	}
	if (n <= FIRST_FUNCS && nfi <= FIRST_FUNCS) {
		memcpy(d->addrs, addrs, n * sizeof(*d->addrs));
		memcpy(d->lens, lens, n * sizeof(*d->lens));
		memcpy(d->tags, tags, n * sizeof(*d->tags));
		if (nfi)
			memcpy(fi, fi0, nfi * sizeof(*fi));
		goto done;
	}
	ask_funcs(&info, n, d->addrs, d->lens, d->tags, nfi, fi);
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		err = -errno;
		goto fail;
	}
done:
	d->nfuncs = n;
	d->func_names = func_names(info.btf_id, fi, nfi, n);
	free(fi);
	return 0;
fail:
	free(fi);
	kt_prog_desc_free(d);
	return err;
}

static int by_id(const void *a, const void *b)
{
	const struct kt_prog_desc *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int kt_snapshot_read_progs(struct kt_prog_desc **out, size_t *count)
{
	struct kt_prog_desc *v = NULL;
	size_t n = 0, cap = 0;
	__u32 id = 0;
	int fd, err;

	for (;;) {
		if (bpf_prog_get_next_id(id, &id)) {
			err = errno == ENOENT ? 0 : -errno;
			break;
		}
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0) {
			/* Gone since (its id is freed before its images are). */
			if (errno == ENOENT)
				continue;
			err = -errno;
			break;
		}
		if (KT_GROW(v, cap, n + 1)) {
			close(fd);
			err = -ENOMEM;
			break;
		}
		err = read_prog(fd, &v[n]);
		close(fd);
		if (err) {
			kt_debug("snapshot: reading program %u: %s; skipped", id, strerror(-err));
			continue;
		}
		n++;
	}
	if (err) {
		while (n)
			kt_prog_desc_free(&v[--n]);
		free(v);
		return err;
	}
	/* get_next_id walks the idr in id order already; make it a contract. */
	if (n)
		qsort(v, n, sizeof(*v), by_id);
	*out = v;
	*count = n;
	return 0;
}

/* A name's part after "bpf_prog_<16 hex digits>_", or NULL. */
static const char *ksym_suffix(const char *name)
{
	size_t n = strlen("bpf_prog_") + 2 * KT_TAG_SIZE;

	if (strncmp(name, "bpf_prog_", 9) || strlen(name) <= n || name[n] != '_')
		return NULL;
	return name + n + 1;
}

static int desc_alloc(struct kt_prog_desc *d, __u32 nfuncs)
{
	d->nfuncs = nfuncs;
	d->addrs = calloc(nfuncs, sizeof(*d->addrs));
	d->lens = calloc(nfuncs, sizeof(*d->lens));
	d->tags = calloc(nfuncs, sizeof(*d->tags));
	d->func_names = calloc(nfuncs, sizeof(*d->func_names));
	return d->addrs && d->lens && d->tags && d->func_names ? 0 : -ENOMEM;
}

static int desc_func(struct kt_prog_desc *d, __u32 i, const struct kt_snap_image *e)
{
	const char *sfx = ksym_suffix(e->name);

	d->addrs[i] = e->start;
	d->lens[i] = e->end - e->start;
	memcpy(d->tags[i], e->tag, KT_TAG_SIZE);
	free(d->func_names[i]);
	d->func_names[i] = NULL;
	if (sfx && !(d->func_names[i] = strdup(sfx)))
		return -ENOMEM;
	return 0;
}

/* One program from the walker's entries: main is its own image, the rest
 * of its functions share main's function array (group). */
static int desc_from_walk(struct kt_prog_desc *d, const struct kt_snap_image *main,
			  const struct kt_snap_image *v, size_t n)
{
	__u32 nfuncs = 1;
	size_t i;
	int err;

	memset(d, 0, sizeof(*d));
	d->id = main->prog_id;
	memcpy(d->tag, main->tag, KT_TAG_SIZE);
	memcpy(d->name, main->prog_name, sizeof(d->name) - 1);
	for (i = 0; main->group && i < n; i++)
		if (v[i].kind == KT_SNAP_BPF_PROG && (v[i].flags & KT_SNAP_F_FUNC) &&
		    v[i].group == main->group && v[i].func_idx < KT_MAX_SUBPROGS &&
		    v[i].func_idx + 1 > nfuncs)
			nfuncs = v[i].func_idx + 1;
	err = desc_alloc(d, nfuncs);
	/* func[0] is the program's own image (its ksym stands for it since
	 * 0108a4e9f358; before, func[0]'s entry below replaces it). */
	if (!err)
		err = desc_func(d, 0, main);
	for (i = 0; !err && main->group && i < n; i++)
		if (v[i].kind == KT_SNAP_BPF_PROG && (v[i].flags & KT_SNAP_F_FUNC) &&
		    v[i].group == main->group && v[i].func_idx < nfuncs)
			err = desc_func(d, v[i].func_idx, &v[i]);
	if (err)
		kt_prog_desc_free(d);
	return err;
}

int kt_snapshot_progs_from_walk(const struct kt_snap_image *v, size_t n, struct kt_prog_desc **out,
				size_t *count)
{
	struct kt_prog_desc *d = NULL;
	size_t i, nd = 0, np = 0;
	int err = 0;

	for (i = 0; i < n; i++)
		np += v[i].kind == KT_SNAP_BPF_PROG && !(v[i].flags & KT_SNAP_F_FUNC) &&
		      v[i].prog_id;
	if (np && !(d = calloc(np, sizeof(*d))))
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		if (v[i].kind != KT_SNAP_BPF_PROG || (v[i].flags & KT_SNAP_F_FUNC) || !v[i].prog_id)
			continue;
		err = desc_from_walk(&d[nd], &v[i], v, n);
		nd += !err;
	}
	if (err) {
		while (nd)
			kt_prog_desc_free(&d[--nd]);
		free(d);
		return err;
	}
	if (nd)
		qsort(d, nd, sizeof(*d), by_id);
	*out = d;
	*count = nd;
	return 0;
}
