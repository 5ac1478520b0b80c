// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* kcore.h: the PT_LOAD program headers map kernel addresses to file offsets
 * (read_kcore_iter() fills unmapped pages with zeros). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "archive/kcore.h"
#include "util/fileio.h"

int kt_kcore_open(struct kt_kcore *k, const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int err, i;

	memset(k, 0, sizeof(*k));
	k->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (k->fd < 0)
		return -errno;
	err = kt_pread_all(k->fd, &eh, sizeof(eh), 0);
	if (!err && (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
		     eh.e_phentsize != sizeof(ph)))
		err = -ENOEXEC;
	if (!err)
		k->segs = calloc(eh.e_phnum ? eh.e_phnum : 1, sizeof(*k->segs));
	if (!err && !k->segs)
		err = -ENOMEM;
	for (i = 0; !err && i < eh.e_phnum; i++) {
		err = kt_pread_all(k->fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * sizeof(ph));
		if (err || ph.p_type != PT_LOAD)
			continue;
		k->segs[k->nsegs].vaddr = ph.p_vaddr;
		k->segs[k->nsegs].offset = ph.p_offset;
		k->segs[k->nsegs++].size = ph.p_memsz;
	}
	if (err)
		kt_kcore_close(k);
	return err;
}

int kt_kcore_read(const struct kt_kcore *k, __u64 addr, void *buf, size_t len)
{
	size_t i;

	for (i = 0; i < k->nsegs; i++) {
		const struct kt_kcore_seg *s = &k->segs[i];

		if (addr >= s->vaddr && addr - s->vaddr <= s->size &&
		    len <= s->size - (addr - s->vaddr))
			return kt_pread_all(k->fd, buf, len, s->offset + (addr - s->vaddr));
	}
	return -ERANGE;
}

void kt_kcore_close(struct kt_kcore *k)
{
	if (k->fd > 0)
		close(k->fd);
	free(k->segs);
	memset(k, 0, sizeof(*k));
}
