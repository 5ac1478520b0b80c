// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What every backend shares: the ready line's sources, the snapshot's adoption. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "backend/backend.h"
#include "util/log.h"
#include "record/record.h"

void kt_sources_describe(const struct kt_source_report *r, unsigned int native_mask, char *buf,
			 size_t size)
{
	size_t n = 0;
	unsigned int s;

	buf[0] = 0;
	for (s = 1; s < KT_SRC_MAX && n < size; s++) {
		const char *tag = "";

		if (native_mask & (1U << s))
			tag = "(native)";
		else if (r->state[s] == KT_SS_ABSENT)
			tag = "(absent)";
		else if (r->state[s] == KT_SS_OFF)
			tag = "(missing)";
		n += snprintf(buf + n, size - n, "%s%s%s", n ? " " : "", kt_source_name(s), tag);
	}
}

void kt_backend_adopt(struct kt_backend *b, const struct kt_record *r)
{
	int err;

	if (!b || !b->ops->adopt)
		return;
	err = b->ops->adopt(b, r);
	if (err)
		kt_warn("snapshot: %s at %llx: the backend will not see it go: %s", r->name,
			(unsigned long long)r->addr, strerror(-err));
}

/*
 * The ring absorbs only what the kernel makes while the reader thread waits
 * for a CPU (user/backend/pump.h): as perf sizes its rings, 512K per CPU
 * that can load programs at once (perf record's default, perf_event_mlock_kb
 * 516), one shared ring here, so per online CPU; a power of two of pages, at
 * least 1M (8,000 records of headroom), at most 256M.
 */
size_t kt_backend_default_ringbuf(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), pg = sysconf(_SC_PAGESIZE);
	size_t want = (size_t)(cpus > 0 ? cpus : 1) << 19, size = 1 << 20;

	if (pg > 0 && (size_t)pg * 4 > want)
		want = (size_t)pg * 4;
	while (size < want && size < (256u << 20))
		size <<= 1;
	return size;
}

/* perf record's default per-CPU ring: 512K of data pages (at least one). */
size_t kt_backend_default_native_pages(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t n = pg > 0 ? (512u << 10) / (size_t)pg : 128;

	return n ? n : 1;
}
