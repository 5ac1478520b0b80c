// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/base.h"
#include "record/kallsyms.h"
#include "record/record.h"

#define KT_MAX_RANGES 8

/* Over 60 lines: one pass over /proc/kallsyms for every name, which costs
 * the kernel much more than the parsing costs us. */
int kt_kallsyms_func_ranges(const char *path, const char *const *names, int n,
			    struct kt_range *ranges)
{
	char line[1024], *name, *end;
	unsigned long long addr;
	bool nonzero = false, open_end = false;
	int i, found = 0, closed = 0;
	size_t len;
	FILE *f;

	if (n > KT_MAX_RANGES)
		return -E2BIG;
	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f)
		return -errno;
	for (i = 0; i < n; i++)
		ranges[i].start = ranges[i].end = 0;
	/*
	 * One pass, stopping early: generating /proc/kallsyms is slow (about
	 * 0.5 s for 100k lines under emulation) and the core kernel comes first
	 * (kernel/kallsyms.c update_iter(): then modules, ftrace, [bpf],
	 * kprobes) and sorted by address, so a symbol ends where the next
	 * higher address begins, a few lines down.  Stopping at the first
	 * "[module]" line matters: the kernel finds the i-th [bpf] symbol by
	 * walking the list from its head (bpf_get_kallsym()), so reading past
	 * it costs O(programs^2): with 5,000 programs alive, start-up in the
	 * 6.1 test VM went from 7.1 s to 2.5 s (BENCHMARKS.md).
	 */
	while (closed < n && fgets(line, sizeof(line), f)) {
		addr = strtoull(line, &end, 16);
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		nonzero |= addr != 0;
		name = end + 3;
		len = strcspn(name, "\t\n");
		if (name[len] == '\t')
			break; /* "[module]" lines: past the core kernel */
		if (open_end) {
			open_end = false;
			for (i = 0; i < n; i++) {
				if (!ranges[i].start || ranges[i].end)
					continue;
				if (addr > ranges[i].start) {
					ranges[i].end = addr;
					closed++;
				} else {
					open_end = true;
				}
			}
		}
		if (end[1] != 't' && end[1] != 'T')
			continue;
		for (i = 0; i < n; i++)
			if (!ranges[i].start && strlen(names[i]) == len &&
			    !strncmp(name, names[i], len)) {
				ranges[i].start = addr;
				open_end = true;
				found++;
			}
	}
	fclose(f);
	if (!nonzero)
		return -EACCES;
	for (i = 0; i < n; i++)
		if (ranges[i].start && !ranges[i].end)
			ranges[i].end = ranges[i].start + 1;
	return found;
}

const char *kt_kallsyms_module(unsigned int source)
{
	switch (source) {
	case KT_SRC_BPF_PROG:
	case KT_SRC_BPF_IMAGE:
		return KT_KMOD_BPF;
	case KT_SRC_FTRACE:
		return KT_KMOD_FTRACE;
	case KT_SRC_KPROBE:
		return KT_KMOD_KPROBES;
	default:
		return NULL;
	}
}

int kt_kallsyms_parse_dynamic(const char *line, __u64 *addr, char *name, size_t size)
{
	const char *p, *tab, *mod, *end;
	unsigned long long a;
	size_t len, mlen;
	char *e;
	int src;

	errno = 0;
	a = strtoull(line, &e, 16);
	if (errno || e == line || e[0] != ' ' || !e[1] || e[2] != ' ')
		return 0;
	p = e + 3;
	tab = strchr(p, '\t');
	if (!tab || tab[1] != '[')
		return 0;
	mod = tab + 2;
	end = strchr(mod, ']');
	if (!end)
		return 0;
	mlen = end - mod;
	if (mlen == strlen(KT_KMOD_BPF) && !strncmp(mod, KT_KMOD_BPF, mlen))
		src = KT_SRC_BPF_IMAGE;
	else if (mlen == strlen(KT_KMOD_FTRACE) && !strncmp(mod, KT_KMOD_FTRACE, mlen))
		src = KT_SRC_FTRACE;
	else if (mlen == strlen(KT_KMOD_KPROBES) && !strncmp(mod, KT_KMOD_KPROBES, mlen))
		src = KT_SRC_KPROBE;
	else
		return 0;
	len = tab - p;
	if (len + 1 > size)
		return -ENAMETOOLONG;
	memcpy(name, p, len);
	name[len] = 0;
	if (src == KT_SRC_BPF_IMAGE)
		src = kt_classify(KT_KSYM_TYPE_BPF, name);
	*addr = a;
	return src;
}

int kt_kallsyms_format(char *buf, size_t size, __u64 addr, const char *name, unsigned int source)
{
	const char *mod = kt_kallsyms_module(source);
	int n;

	if (!mod)
		return -EINVAL;
	/* %px is 16 hex digits on 64-bit kernels; these entries are never
	 * exported, so s_show() prints the type in lower case. */
	n = snprintf(buf, size, "%016llx t %s\t[%s]\n", (unsigned long long)addr, name, mod);
	if (n < 0)
		return -EINVAL;
	return (size_t)n >= size ? -ENOSPC : n;
}

static int by_addr(const void *a, const void *b)
{
	const struct kt_dynsym *x = *(struct kt_dynsym *const *)a,
			       *y = *(struct kt_dynsym *const *)b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x < y ? -1 : x > y;
}

void kt_dynsyms_free(struct kt_dynsyms *d)
{
	size_t i;

	for (i = 0; d->v && i < d->n; i++)
		free(d->v[i].name);
	free(d->v);
	free(d->by_addr);
	memset(d, 0, sizeof(*d));
}

/* "ffffffff82a0c4e0 d bpf_kallsyms\n": the core kernel's static data. */
static void core_list_head(struct kt_dynsyms *d, const char *line)
{
	static const char *const heads[] = { "bpf_kallsyms\n", "ftrace_ops_trampoline_list\n",
					     "kprobe_insn_slots\n", "kprobe_optinsn_slots\n" };
	const char *sp = strchr(line, ' ');
	unsigned long long addr;
	unsigned int i;

	if (!sp || (sp[1] != 'd' && sp[1] != 'b' && sp[1] != 'D' && sp[1] != 'B') || sp[2] != ' ')
		return;
	for (i = 0; i < 4; i++)
		if (!strcmp(sp + 3, heads[i]))
			break;
	if (i == 4 || sscanf(line, "%llx", &addr) != 1)
		return;
	switch (i) {
	case 0:
		d->bpf_kallsyms = addr;
		break;
	case 1:
		d->ftrace_list = addr;
		break;
	default:
		d->kprobe_caches[i - 2] = addr;
	}
}

int kt_dynsyms_add(struct kt_dynsyms *d, size_t *cap, __u64 addr, unsigned int source,
		   const char *name)
{
	if (KT_GROW(d->v, *cap, d->n + 1))
		return -ENOMEM;
	d->v[d->n].addr = addr;
	d->v[d->n].source = source;
	d->v[d->n].name = strdup(name);
	if (!d->v[d->n].name)
		return -ENOMEM;
	d->n++;
	return 0;
}

int kt_dynsyms_index(struct kt_dynsyms *d)
{
	size_t i;

	free(d->by_addr);
	d->by_addr = NULL;
	if (!d->n)
		return 0;
	d->by_addr = malloc(d->n * sizeof(*d->by_addr));
	if (!d->by_addr)
		return -ENOMEM;
	for (i = 0; i < d->n; i++)
		d->by_addr[i] = &d->v[i];
	qsort(d->by_addr, d->n, sizeof(*d->by_addr), by_addr);
	d->func0_listed = false;
	for (i = 1; i < d->n; i++)
		if (d->by_addr[i]->addr == d->by_addr[i - 1]->addr &&
		    d->by_addr[i]->source == KT_SRC_BPF_PROG &&
		    d->by_addr[i - 1]->source == KT_SRC_BPF_PROG)
			d->func0_listed = true;
	return 0;
}

static int dynsyms_read(const char *path, struct kt_dynsyms *d, bool core_only)
{
	char line[KT_NAME_MAX + 128], name[KT_NAME_MAX];
	bool nonzero = false, any = false;
	size_t cap = 0;
	int src, err = 0;
	__u64 addr;
	FILE *f;

	memset(d, 0, sizeof(*d));
	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (core_only && strchr(line, '\t'))
			break; /* the first "[module]" line */
		any = true;
		if (!nonzero && strtoull(line, NULL, 16))
			nonzero = true;
		src = kt_kallsyms_parse_dynamic(line, &addr, name, sizeof(name));
		if (src == 0) {
			core_list_head(d, line);
			continue;
		}
		if (src < 0)
			continue;
		err = kt_dynsyms_add(d, &cap, addr, src, name);
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	/* kptr_restrict without CAP_SYSLOG: every address reads 0. */
	if (!err && any && !nonzero)
		err = -EACCES;
	if (!err)
		err = kt_dynsyms_index(d);
	if (err)
		kt_dynsyms_free(d);
	return err;
}

int kt_dynsyms_read(const char *path, struct kt_dynsyms *d)
{
	return dynsyms_read(path, d, false);
}

int kt_dynsyms_read_core(const char *path, struct kt_dynsyms *d)
{
	return dynsyms_read(path, d, true);
}

/* Index of the first entry at or above addr. */
static size_t lower_bound(const struct kt_dynsyms *d, __u64 addr)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->by_addr[mid]->addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct kt_dynsym *kt_dynsyms_find(const struct kt_dynsyms *d, __u64 addr, unsigned int source)
{
	size_t i;

	for (i = lower_bound(d, addr); i < d->n && d->by_addr[i]->addr == addr; i++)
		if (d->by_addr[i]->source == source)
			return d->by_addr[i];
	return NULL;
}

__u64 kt_dynsyms_next(const struct kt_dynsyms *d, __u64 addr)
{
	size_t i = lower_bound(d, addr + 1);

	return i < d->n ? d->by_addr[i]->addr : 0;
}
