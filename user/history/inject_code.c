// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* inject_code.h */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "archive/archive.h"
#include "history/code_in.h"
#include "history/inject_code.h"

int kt_inject_code_feat(int bit)
{
	return bit == KT_HEADER_BPF_PROG_INFO ? 0 : bit == KT_HEADER_BPF_BTF ? 1 : -1;
}

static int append(struct kt_inject_code *c, int f, const void *p, size_t n)
{
	unsigned char *np = realloc(c->add[f], c->add_len[f] + n);

	if (!np)
		return -ENOMEM;
	memcpy(np + c->add_len[f], p, n);
	c->add[f] = np;
	c->add_len[f] += n;
	return 0;
}

static int missing(struct kt_inject_code *c, const struct kt_archive *mine,
		   const struct kt_archive *theirs)
{
	struct kt_hnode *pos;
	size_t b, i;
	int err = 0;

	kt_htab_for_each(&mine->progs, b, pos)
	{
		const struct kt_bpil *p = container_of(pos, struct kt_bpil, node);

		if (kt_archive_prog(theirs, p->id))
			continue;
		err = append(c, 0, p->blob, p->size);
		if (err)
			return err;
		c->nadd[0]++;
	}
	for (i = 0; i < mine->nbtfs; i++) {
		const struct kt_btf_blob *bb = &mine->btfs[i];

		if (kt_archive_btf(theirs, bb->id))
			continue;
		err = append(c, 1, &bb->id, 4);
		if (!err)
			err = append(c, 1, &bb->size, 4);
		if (!err)
			err = append(c, 1, bb->data, bb->size);
		if (err)
			return err;
		c->nadd[1]++;
	}
	return 0;
}

int kt_inject_code_load(struct kt_inject_code *c, const char *file, const char *in, char *why,
			size_t why_size)
{
	struct kt_archive mine = { 0 }, theirs = { 0 };
	char arch[65];
	int err;

	memset(c, 0, sizeof(*c));
	err = kt_code_file_read(file, &mine, false, arch, sizeof(arch), why, why_size);
	if (!err && mine.progs.n)
		err = kt_code_file_read(in, &theirs, false, arch, sizeof(arch), why, why_size);
	if (!err && mine.progs.n)
		err = missing(c, &mine, &theirs);
	kt_archive_free(&mine);
	kt_archive_free(&theirs);
	return err;
}

void kt_inject_code_fini(struct kt_inject_code *c)
{
	free(c->add[0]);
	free(c->add[1]);
	memset(c, 0, sizeof(*c));
}
