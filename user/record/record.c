// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <string.h>
#include "record/record.h"

const char *kt_source_name(unsigned int source)
{
	switch (source) {
	case KT_SRC_BPF_PROG:
		return "bpf_prog";
	case KT_SRC_BPF_IMAGE:
		return "bpf_image";
	case KT_SRC_FTRACE:
		return "ftrace";
	case KT_SRC_KPROBE:
		return "kprobe";
	default:
		return "unknown";
	}
}

const char *kt_ksym_type_name(unsigned int ksym_type)
{
	switch (ksym_type) {
	case KT_KSYM_TYPE_BPF:
		return "bpf";
	case KT_KSYM_TYPE_OOL:
		return "ool";
	default:
		return "unknown";
	}
}

const char *kt_record_kind_name(unsigned int type)
{
	switch (type) {
	case KT_RECORD_KSYMBOL:
		return "ksymbol";
	case KT_RECORD_BPF_EVENT:
		return "bpf_event";
	case KT_RECORD_LOST:
		return "lost";
	default:
		return "unknown";
	}
}

/* Who the event says made it. */
unsigned char kt_classify(unsigned int ksym_type, const char *name)
{
	if (ksym_type == KT_KSYM_TYPE_BPF)
		return strncmp(name, "bpf_prog_", 9) ? KT_SRC_BPF_IMAGE : KT_SRC_BPF_PROG;
	if (ksym_type == KT_KSYM_TYPE_OOL) {
		if (!strcmp(name, "ftrace_trampoline"))
			return KT_SRC_FTRACE;
		if (!strncmp(name, "kprobe_", 7))
			return KT_SRC_KPROBE;
	}
	return KT_SRC_UNKNOWN;
}
