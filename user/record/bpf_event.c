// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The BPF hooks' ring-buffer events (include/ksymtap.h) as kt_records. */
#include <errno.h>
#include <string.h>
#include "record/bpf_event.h"
#include "ksymtap.h"

static void task_from_event(struct kt_record *r, const struct kt_event *e)
{
	/* The hooks see whichever task registers or unregisters. */
	r->rflags = KT_RF_TASK_AT_HAND |
		    ((e->ev_flags & KT_EVF_LOADER_IDENTITY) ? KT_RF_LOADER_IDENTITY : 0);
	r->pid = e->pid;
	r->tid = e->tid;
	r->cgroup_id = e->cgroup_id;
	memcpy(r->comm, e->comm, sizeof(r->comm));
	r->comm[sizeof(r->comm) - 1] = 0;
}

int kt_record_from_event(struct kt_record *r, const void *data, size_t size)
{
	const struct kt_event *e = data;
	size_t name_len;

	if (size < KT_EVENT_HDR_SIZE)
		return -EINVAL;
	name_len = e->name_len;
	if (name_len >= KT_NAME_MAX || KT_EVENT_HDR_SIZE + name_len + 1 > size)
		return -EINVAL;
	if (e->record_type != KT_RECORD_KSYMBOL && e->record_type != KT_RECORD_BPF_EVENT)
		return -EINVAL;

	memset(r, 0, offsetof(struct kt_record, name));
	r->type = e->record_type;
	r->source = e->source < KT_SRC_MAX ? e->source : KT_SRC_UNKNOWN;
	r->origin = KT_ORIGIN_BPF;
	r->time = e->time;
	r->cpu = e->cpu;
	task_from_event(r, e);
	r->addr = e->addr;
	r->len = e->len;
	r->ksym_type = e->ksym_type;
	r->flags = e->flags;
	r->bpf_type = e->bpf_type;
	r->bpf_flags = e->bpf_flags;
	r->prog_id = e->prog_id;
	memcpy(r->tag, e->tag, sizeof(r->tag));
	memcpy(r->name, e->name, name_len);
	r->name[name_len] = 0;
	return 0;
}

int kt_record_bpf_event_of(struct kt_record *r, const void *data, size_t size)
{
	const struct kt_event *e = data;

	if (size < KT_EVENT_HDR_SIZE || !(e->ev_flags & KT_EVF_BPF_EVENT))
		return -ENOENT;
	/* The KSYMBOL's conversion already filled in the time; the task again,
	 * as the symbol table may have given the KSYMBOL its loader's. */
	r->type = KT_RECORD_BPF_EVENT;
	task_from_event(r, e);
	r->attrib = NULL;
	r->source = KT_SRC_BPF_PROG;
	r->addr = 0;
	r->len = 0;
	r->ksym_type = 0;
	r->flags = 0;
	r->bpf_type = e->bpf_type;
	r->bpf_flags = e->bpf_flags;
	r->prog_id = e->prog_id;
	memcpy(r->tag, e->tag, sizeof(r->tag));
	memcpy(r->name, e->prog_name, KT_PROG_NAME_LEN);
	r->name[KT_PROG_NAME_LEN - 1] = 0;
	return 0;
}
