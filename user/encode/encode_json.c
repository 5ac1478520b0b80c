// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Records as JSON lines, through the writer's low-level appends with the
 * keys as literals (encode/json_writer.h says why, and how strings are
 * escaped).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "util/base.h"
#include "encode/encode.h"
#include "encode/json_writer.h"

static void jstr_or_null(struct kt_jw *b, const char *s)
{
	if (s && *s)
		kt_jw_put_str(b, s);
	else
		KT_JW_LIT(b, "null");
}

/* The cgroup's path and what it says; null where unknown (user/record/attrib.h). */
static void jattrib(struct kt_jw *b, const struct kt_attrib *a)
{
	KT_JW_LIT(b, ",\"cgroup_path\":");
	jstr_or_null(b, a ? a->path : NULL);
	KT_JW_LIT(b, ",\"container_runtime\":");
	jstr_or_null(b, a && a->path ? a->c.runtime : NULL);
	KT_JW_LIT(b, ",\"container_id\":");
	jstr_or_null(b, a && a->path ? a->c.container_id : NULL);
	KT_JW_LIT(b, ",\"pod_uid\":");
	jstr_or_null(b, a && a->path ? a->c.pod_uid : NULL);
}

/* What every record says: its kind, its task, where it came from. */
static void jhead(struct kt_jw *b, const struct kt_record *r)
{
	bool none = r->rflags & KT_RF_NO_TASK;

	KT_JW_LIT(b, "{\"kind\":");
	kt_jw_put_name(b, kt_record_kind_name(r->type));
	KT_JW_LIT(b, ",\"time\":");
	kt_jw_put_u(b, r->time);
	KT_JW_LIT(b, ",\"cpu\":");
	kt_jw_put_u(b, r->cpu);
	KT_JW_LIT(b, ",\"pid\":");
	kt_jw_put_d(b, none ? -1 : (int)r->pid);
	KT_JW_LIT(b, ",\"tid\":");
	kt_jw_put_d(b, none ? -1 : (int)r->tid);
	KT_JW_LIT(b, ",\"comm\":");
	kt_jw_put_str(b, r->comm);
	KT_JW_LIT(b, ",\"cgroup_id\":");
	kt_jw_put_u(b, r->cgroup_id);
	KT_JW_LIT(b, ",\"identity\":");
	kt_jw_put_name(b, none				      ? "none" :
			  (r->rflags & KT_RF_LOADER_IDENTITY) ? "loader" :
								"current");
	if (r->rflags & KT_RF_SNAPSHOT)
		KT_JW_LIT(b, ",\"snapshot\":true,\"origin\":");
	else
		KT_JW_LIT(b, ",\"snapshot\":false,\"origin\":");
	kt_jw_put_name(b, kt_origin_name(r->origin));
	if (r->type != KT_RECORD_LOST)
		jattrib(b, r->attrib);
}

static void jksymbol(struct kt_jw *b, const struct kt_record *r)
{
	KT_JW_LIT(b, ",\"source\":");
	kt_jw_put_name(b, kt_source_name(r->source));
	KT_JW_LIT(b, ",\"addr\":\"0x");
	kt_jw_put_x(b, r->addr);
	KT_JW_LIT(b, "\",\"len\":");
	kt_jw_put_u(b, r->len);
	KT_JW_LIT(b, ",\"ksym_type\":");
	kt_jw_put_u(b, r->ksym_type);
	KT_JW_LIT(b, ",\"ksym_type_name\":");
	kt_jw_put_name(b, kt_ksym_type_name(r->ksym_type));
	KT_JW_LIT(b, ",\"flags\":");
	kt_jw_put_u(b, r->flags);
	if (r->flags & KT_KSYM_FLAG_UNREGISTER)
		KT_JW_LIT(b, ",\"unregister\":true,\"name\":");
	else
		KT_JW_LIT(b, ",\"unregister\":false,\"name\":");
	kt_jw_put_str(b, r->name);
	/* What kallsyms shows in brackets, and for program images their
	 * program: the module-like name per program of the 2018 design. */
	KT_JW_LIT(b, ",\"module\":");
	jstr_or_null(b, kt_ksym_module(r));
	if (r->source == KT_SRC_BPF_PROG && r->prog_id) {
		KT_JW_LIT(b, ",\"prog_id\":");
		kt_jw_put_u(b, r->prog_id);
	} else {
		KT_JW_LIT(b, ",\"prog_id\":null");
	}
}

static void jbpf_event(struct kt_jw *b, const struct kt_record *r)
{
	char tag[2 * KT_TAG_SIZE];

	KT_JW_LIT(b, ",\"source\":");
	kt_jw_put_name(b, kt_source_name(r->source));
	KT_JW_LIT(b, ",\"type\":");
	kt_jw_put_u(b, r->bpf_type);
	KT_JW_LIT(b, ",\"type_name\":");
	kt_jw_put_name(b, kt_bpf_event_type_name(r->bpf_type));
	KT_JW_LIT(b, ",\"flags\":");
	kt_jw_put_u(b, r->bpf_flags);
	KT_JW_LIT(b, ",\"id\":");
	kt_jw_put_u(b, r->prog_id);
	put_hex_bytes(tag, r->tag, KT_TAG_SIZE);
	KT_JW_LIT(b, ",\"tag\":\"");
	kt_jw_put(b, tag, sizeof(tag));
	KT_JW_LIT(b, "\",\"prog_name\":");
	kt_jw_put_str(b, r->name);
}

ssize_t kt_encode_json(const struct kt_record *r, char *buf, size_t size)
{
	struct kt_jw b;

	kt_jw_init(&b, buf, size);
	if (r->type != KT_RECORD_KSYMBOL && r->type != KT_RECORD_BPF_EVENT &&
	    r->type != KT_RECORD_LOST)
		return -EINVAL;
	jhead(&b, r);
	if (r->type == KT_RECORD_KSYMBOL) {
		jksymbol(&b, r);
	} else if (r->type == KT_RECORD_BPF_EVENT) {
		jbpf_event(&b, r);
	} else {
		KT_JW_LIT(&b, ",\"lost\":");
		kt_jw_put_u(&b, r->lost);
	}
	KT_JW_LIT(&b, "}\n");
	return kt_jw_end(&b);
}

ssize_t kt_encode_snapshot_end(char *buf, size_t size, __u64 time, unsigned long long records,
			       const char *reason)
{
	struct kt_jw w;

	kt_jw_init(&w, buf, size);
	kt_jw_obj_begin(&w);
	KT_JW_FIELD(kt_jw_str, &w, "kind", "snapshot_end");
	KT_JW_FIELD(kt_jw_u64, &w, "time", time);
	KT_JW_FIELD(kt_jw_u64, &w, "records", records);
	KT_JW_FIELD(kt_jw_str, &w, "reason", reason);
	kt_jw_obj_end(&w);
	KT_JW_LIT(&w, "\n");
	return kt_jw_end(&w);
}
