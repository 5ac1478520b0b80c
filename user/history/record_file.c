// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A ksymtap record file, read back (record_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "record/native_decode.h"
#include "history/perf_in.h"
#include "history/record_file.h"

/* What perf_data.c writes: one software/dummy attr with ksymbol set and
 * sample_type TID|TIME|CPU. */
static bool is_ours(const struct kt_perf_in *f)
{
	const __u64 st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;

	return f->nattrs == 1 && f->attrs[0].attr.sample_type == st &&
	       f->attrs[0].attr.type == PERF_TYPE_SOFTWARE &&
	       f->attrs[0].attr.config == PERF_COUNT_SW_DUMMY && f->attrs[0].attr.ksymbol;
}

int kt_record_file_read(const char *path, kt_emit_fn fn, void *ctx,
			struct kt_record_file_info *info, char *why, size_t why_size)
{
	struct kt_perf_in f;
	struct kt_record rec;
	int fd, err, n = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, why_size, "%s: %s", path, strerror(-err));
		return err;
	}
	err = kt_perf_in_open(&f, fd, path, KT_PI_ANY, why, why_size);
	while (!err && (n = kt_perf_in_next(&f, why, why_size)) > 0) {
		const struct perf_event_header *h = (const void *)f.rec;

		if (h->type >= KT_PI_HEADER_ATTR)
			continue;
		if (!is_ours(&f)) {
			err = -EINVAL;
			snprintf(
				why, why_size,
				"%s: not a ksymtap record file (written by perf, not 'ksymtap record')",
				path);
			break;
		}
		if (kt_native_decode(&rec, f.rec, f.rec_len) == 1)
			err = fn(ctx, &rec);
	}
	if (!err && n < 0)
		err = n;
	if (!err && !f.nattrs) {
		err = -EINVAL;
		snprintf(why, why_size, "%s: no event attr: not a ksymtap record file", path);
	}
	if (!err && info) {
		snprintf(info->hostname, sizeof(info->hostname), "%s", f.hostname);
		snprintf(info->osrelease, sizeof(info->osrelease), "%s", f.osrelease);
	}
	kt_perf_in_close(&f);
	close(fd);
	return err;
}
