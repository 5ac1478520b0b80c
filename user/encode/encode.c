// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The formats (text, json, raw) by name, and the encoder of each: listed
 * once, here. */
#include <errno.h>
#include <string.h>
#include "util/base.h"
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

static const char *const origin_names[] = {
	[KT_ORIGIN_BPF] = "bpf",	   [KT_ORIGIN_NATIVE] = "native",
	[KT_ORIGIN_SNAPSHOT] = "snapshot", [KT_ORIGIN_SERVE] = "serve",
	[KT_ORIGIN_RESYNC] = "resync",	   [KT_ORIGIN_QUEUE] = "queue",
};

static const char *const bpf_type_names[] = {
	[KT_BPF_EVENT_PROG_LOAD] = "prog_load",
	[KT_BPF_EVENT_PROG_UNLOAD] = "prog_unload",
};

#define NAME_IN(tab, i) ((i) < ARRAY_SIZE(tab) && (tab)[i] ? (tab)[i] : "unknown")

const char *kt_origin_name(unsigned int origin)
{
	return NAME_IN(origin_names, origin);
}

const char *kt_bpf_event_type_name(unsigned int type)
{
	return NAME_IN(bpf_type_names, type);
}

const char *kt_ksym_module(const struct kt_record *r)
{
	if (r->ksym_type == KT_KSYM_TYPE_BPF)
		return "bpf";
	if (r->source == KT_SRC_FTRACE)
		return "__builtin__ftrace";
	if (r->source == KT_SRC_KPROBE)
		return "__builtin__kprobes";
	return NULL;
}
