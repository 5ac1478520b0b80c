// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The names the text, JSON and OTLP forms give a record's origin, a
 * BPF_EVENT's type and a symbol's module (encode.h): one table each, here,
 * below the encoders that use them. */
#include "util/base.h"
#include "encode/encode.h"

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
