// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What every backend shares: the ready line's sources, the snapshot's adoption. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
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
