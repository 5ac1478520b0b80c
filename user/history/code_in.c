// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* code_in.h: the feature sections read whole, as perf's header.c does. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "history/code_in.h"
#include "history/perf_in.h"
#include "util/fileio.h"

static int read_feat(struct kt_perf_in *in, const struct kt_pi_section *s, int bit,
		     struct kt_archive *a, char *why, size_t why_size)
{
	char bad[256] = "";
	unsigned char *buf;
	int err;

	if (s->offset < in->end || s->offset + s->size > in->file_size || s->size > SIZE_MAX)
		goto corrupt;
	buf = malloc(s->size ? s->size : 1);
	if (!buf)
		return -ENOMEM;
	err = kt_pread_all(in->fd, buf, s->size, s->offset);
	if (!err)
		err = bit == KT_HEADER_BPF_PROG_INFO ?
			      kt_archive_read_prog_info(a, buf, s->size, bad, sizeof(bad)) :
			      kt_archive_read_btf(a, buf, s->size, bad, sizeof(bad));
	free(buf);
	if (err == -EINVAL)
		goto corrupt;
	if (err)
		snprintf(why, why_size, "%s: %s", in->what, strerror(-err));
	return err;
corrupt:
	snprintf(why, why_size, "%s: corrupt: %s", in->what,
		 bad[0] ? bad : "a feature section is outside the file");
	return -EINVAL;
}

/* PERF_RECORD_TEXT_POKE: addr, old_len, new_len, the old bytes, the new. */
static int read_texts(struct kt_perf_in *in, struct kt_archive *a, char *why, size_t why_size)
{
	__u16 old_len, new_len;
	__u64 addr, time;
	int n, err = 0;

	while (!err && (n = kt_perf_in_next(in, why, why_size)) == 1) {
		const struct perf_event_header *h = (const void *)in->rec;

		if (h->type != PERF_RECORD_TEXT_POKE || in->rec_len < 20)
			continue;
		memcpy(&addr, in->rec + 8, 8);
		memcpy(&old_len, in->rec + 16, 2);
		memcpy(&new_len, in->rec + 18, 2);
		if (20 + (size_t)old_len + new_len > in->rec_len) {
			snprintf(why, why_size, "%s: corrupt: a TEXT_POKE longer than its record",
				 in->what);
			return -EINVAL;
		}
		if (!kt_perf_in_time(in, in->rec, &time))
			time = 0;
		err = kt_archive_add_text(a, addr, time, in->rec + 20 + old_len, new_len);
	}
	return err ? err : n;
}

int kt_code_file_read(const char *path, struct kt_archive *a, bool texts, char *arch,
		      size_t arch_size, char *why, size_t why_size)
{
	struct kt_pi_section sec[KT_PI_FEAT_BITS];
	int bits[KT_PI_FEAT_BITS], n, i, err, fd;
	struct kt_perf_in in;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, why_size, "%s: %s", path, strerror(errno));
		return err;
	}
	err = kt_perf_in_open(&in, fd, path, KT_PI_FILE, why, why_size);
	n = err ? 0 : kt_perf_in_features(&in, sec, bits, KT_PI_FEAT_BITS, why, why_size);
	if (n < 0)
		err = n;
	for (i = 0; !err && i < n; i++)
		if (bits[i] == KT_HEADER_BPF_PROG_INFO || bits[i] == KT_HEADER_BPF_BTF)
			err = read_feat(&in, &sec[i], bits[i], a, why, why_size);
	if (!err && texts)
		err = read_texts(&in, a, why, why_size);
	if (!err)
		snprintf(arch, arch_size, "%s", in.arch);
	kt_perf_in_close(&in);
	close(fd);
	return err;
}
