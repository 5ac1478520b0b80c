// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/base.h"
#include "record/kallsyms.h"
#include "sink/kallsyms_file.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/fileio.h"

struct line {
	__u64 addr;
	unsigned char source;
	char *name;
};

struct lines {
	struct line *v;
	size_t n, cap;
	int err;
};

static int collect(void *ctx, struct kt_record *r)
{
	struct lines *l = ctx;

	if (r->type != KT_RECORD_KSYMBOL || !kt_kallsyms_module(r->source))
		return 0;
	if (KT_GROW(l->v, l->cap, l->n + 1))
		return -ENOMEM;
	l->v[l->n].addr = r->addr;
	l->v[l->n].source = r->source;
	l->v[l->n].name = strdup(r->name);
	if (!l->v[l->n].name)
		return -ENOMEM;
	l->n++;
	return 0;
}

/* /proc/kallsyms order of the groups (kernel/kallsyms.c update_iter_mod()):
 * after the modules, ftrace's (its trampolines), then bpf, then kprobes. */
static int group(unsigned char source)
{
	if (source == KT_SRC_FTRACE)
		return 0;
	return source == KT_SRC_KPROBE ? 2 : 1;
}

static int by_group_addr(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (group(x->source) != group(y->source))
		return group(x->source) - group(y->source);
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

int kt_kallsyms_render(struct kt_symtab *t, char **buf, size_t *len)
{
	struct lines l = { .n = 0 };
	size_t i, cap = 4096, used = 0;
	char *out = NULL, *no;
	int err, n;

	err = kt_symtab_walk(t, collect, &l);
	if (err)
		goto out;
	if (l.n) /* qsort(NULL, 0, ...) is undefined (UBSan) */
		qsort(l.v, l.n, sizeof(*l.v), by_group_addr);
	out = malloc(cap);
	if (!out) {
		err = -ENOMEM;
		goto out;
	}
	out[0] = 0;
	for (i = 0; i < l.n; i++) {
		for (;;) {
			n = kt_kallsyms_format(out + used, cap - used, l.v[i].addr, l.v[i].name,
					       l.v[i].source);
			if (n >= 0)
				break;
			cap *= 2;
			no = realloc(out, cap);
			if (!no) {
				err = -ENOMEM;
				goto out;
			}
			out = no;
		}
		used += n;
	}
	*buf = out;
	*len = used;
	out = NULL;
out:
	for (i = 0; i < l.n; i++)
		free(l.v[i].name);
	free(l.v);
	free(out);
	return err;
}

int kt_kallsyms_file_sync(struct kt_kallsyms_file *k)
{
	unsigned long long gen = kt_symtab_generation(k->tab);
	char *buf;
	size_t len;
	int err;

	if (k->err)
		return k->err;
	if (k->written && gen == k->gen)
		return 0;
	err = kt_kallsyms_render(k->tab, &buf, &len);
	if (!err) {
		/* /proc/kallsyms is 0444. */
		err = kt_replace_file(k->path, buf, len, 0644);
		free(buf);
	}
	if (err) {
		k->err = err;
		return kt_sink_fail(&k->sink, err, "--kallsyms %s: %s", k->path, strerror(-err));
	}
	k->gen = gen;
	k->written = true;
	k->rewrites++;
	k->last_ns = kt_monotonic_ns();
	return 0;
}

static int kf_record(struct kt_sink *s, const struct kt_record *r)
{
	return 0; /* the table is the state; flush writes it */
}

/* A burst of changes makes one rewrite per 100 ms, not one per batch; what
 * is put off is written by the tick kf_wake() asks for, or the last flush. */
static int kf_flush(struct kt_sink *s)
{
	struct kt_kallsyms_file *k = (struct kt_kallsyms_file *)s;

	if (s->periodic && k->written &&
	    kt_monotonic_ns() - k->last_ns < KT_KALLSYMS_MIN_INTERVAL_NS)
		return 0;
	return kt_kallsyms_file_sync(k);
}

static __u64 kf_wake(struct kt_sink *s)
{
	struct kt_kallsyms_file *k = (struct kt_kallsyms_file *)s;

	if (k->err || (k->written && kt_symtab_generation(k->tab) == k->gen))
		return 0;
	return k->written ? k->last_ns + KT_KALLSYMS_MIN_INTERVAL_NS : 1;
}

int kt_kallsyms_file_init(struct kt_kallsyms_file *k, const char *path, struct kt_symtab *tab)
{
	memset(k, 0, sizeof(*k));
	k->sink.name = "kallsyms";
	k->sink.record = kf_record;
	k->sink.flush = kf_flush;
	k->sink.wake_ns = kf_wake;
	k->tab = tab;
	k->path = path;
	return 0;
}
