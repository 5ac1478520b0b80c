// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The formats (text, json, raw) by name, and the encoder of each: listed
 * once, here. */
#include <errno.h>
#include <string.h>
#include "encode/encode.h"

static ssize_t text(const struct kt_record *r, void *buf, size_t size)
{
	return kt_encode_text(r, buf, size);
}

static ssize_t json(const struct kt_record *r, void *buf, size_t size)
{
	return kt_encode_json(r, buf, size);
}

static const struct {
	const char *name;
	ssize_t (*encode)(const struct kt_record *r, void *buf, size_t size);
} formats[KT_FMT_MAX] = {
	[KT_FMT_TEXT] = { "text", text },
	[KT_FMT_JSON] = { "json", json },
	[KT_FMT_RAW] = { "raw", kt_encode_perf },
};

ssize_t kt_encode(enum kt_format fmt, const struct kt_record *r, void *buf, size_t size)
{
	return fmt < KT_FMT_MAX ? formats[fmt].encode(r, buf, size) : -EINVAL;
}

int kt_format_parse(const char *s, enum kt_format *fmt)
{
	int i;

	for (i = 0; i < KT_FMT_MAX; i++) {
		if (!strcmp(s, formats[i].name)) {
			*fmt = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *kt_format_name(enum kt_format fmt)
{
	return fmt < KT_FMT_MAX ? formats[fmt].name : "?";
}
