// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The formats (text, json, raw) by name, and the encoder of each. */
#include <errno.h>
#include <string.h>
#include "encode/encode.h"

ssize_t kt_encode(enum kt_format fmt, const struct kt_record *r, void *buf, size_t size)
{
	switch (fmt) {
	case KT_FMT_TEXT:
		return kt_encode_text(r, buf, size);
	case KT_FMT_JSON:
		return kt_encode_json(r, buf, size);
	case KT_FMT_RAW:
		return kt_encode_perf(r, buf, size);
	}
	return -EINVAL;
}

int kt_format_parse(const char *s, enum kt_format *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = KT_FMT_TEXT;
	else if (!strcmp(s, "json"))
		*fmt = KT_FMT_JSON;
	else if (!strcmp(s, "raw"))
		*fmt = KT_FMT_RAW;
	else
		return -EINVAL;
	return 0;
}

const char *kt_format_name(enum kt_format fmt)
{
	switch (fmt) {
	case KT_FMT_TEXT:
		return "text";
	case KT_FMT_JSON:
		return "json";
	case KT_FMT_RAW:
		return "raw";
	}
	return "?";
}
