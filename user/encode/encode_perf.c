// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Binary perf records, laid out as kernel/events/core.c writes them
 * (perf_event_ksymbol_output(), perf_event_bpf_output(), perf_event_lost()):
 * perf_event_header, body, name NUL-padded to 8 bytes, then the sample_id
 * trailer of sample_type PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU
 * (sample_id_all=1): {u32 pid, tid} {u64 time} {u32 cpu, res}.
 */
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>
#include "encode/encode.h"

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)
#define TRAILER_SIZE 24

struct trailer {
	__u32 pid, tid;
	__u64 time;
	__u32 cpu, res;
};

static void put_trailer(void *p, const struct kt_record *r)
{
	struct trailer t = {
		.pid = r->pid,
		.tid = r->tid,
		.time = r->time,
		.cpu = r->cpu,
		.res = 0,
	};

	/* Synthesized records (perf's and ours) carry an all-zero sample_id. */
	if (r->rflags & KT_RF_SNAPSHOT)
		memset(&t, 0, sizeof(t));
	else if (r->rflags & KT_RF_NO_TASK)
		t.pid = t.tid = (__u32)-1;
	memcpy(p, &t, sizeof(t));
}

ssize_t kt_encode_perf(const struct kt_record *r, void *buf, size_t size)
{
	struct perf_event_header h = { .misc = 0 };
	unsigned char *p = buf;
	size_t name_len = 0, body;

	switch (r->type) {
	case KT_RECORD_KSYMBOL:
		name_len = strnlen(r->name, KT_NAME_MAX - 1);
		body = 8 + 4 + 2 + 2 + ALIGN8(name_len + 1);
		h.type = PERF_RECORD_KSYMBOL;
		break;
	case KT_RECORD_BPF_EVENT:
		body = 2 + 2 + 4 + KT_TAG_SIZE;
		h.type = PERF_RECORD_BPF_EVENT;
		break;
	case KT_RECORD_LOST:
		body = 8 + 8;
		h.type = PERF_RECORD_LOST;
		break;
	default:
		return -EINVAL;
	}
	if (sizeof(h) + body + TRAILER_SIZE > size)
		return -ENOSPC;
	h.size = sizeof(h) + body + TRAILER_SIZE;
	memset(p, 0, h.size);
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);

	switch (r->type) {
	case KT_RECORD_KSYMBOL:
		memcpy(p, &r->addr, 8);
		memcpy(p + 8, &r->len, 4);
		memcpy(p + 12, &r->ksym_type, 2);
		memcpy(p + 14, &r->flags, 2);
		memcpy(p + 16, r->name, name_len);
		break;
	case KT_RECORD_BPF_EVENT:
		memcpy(p, &r->bpf_type, 2);
		memcpy(p + 2, &r->bpf_flags, 2);
		memcpy(p + 4, &r->prog_id, 4);
		memcpy(p + 8, r->tag, KT_TAG_SIZE);
		break;
	case KT_RECORD_LOST:
		/* id: the sample id of the event that lost them; ours have none. */
		memcpy(p + 8, &r->lost, 8);
		break;
	}
	put_trailer(p + body, r);
	return h.size;
}

ssize_t kt_encode_perf_comm(const struct kt_record *r, void *buf, size_t size)
{
	struct perf_event_header h = { .type = PERF_RECORD_COMM, .misc = 0 };
	size_t n = strnlen(r->comm, KT_COMM_LEN - 1), body = 4 + 4 + ALIGN8(n + 1);
	unsigned char *p = buf;

	if (sizeof(h) + body + TRAILER_SIZE > size)
		return -ENOSPC;
	h.size = sizeof(h) + body + TRAILER_SIZE;
	memset(p, 0, h.size);
	memcpy(p, &h, sizeof(h));
	memcpy(p + 8, &r->pid, 4);
	memcpy(p + 12, &r->tid, 4);
	memcpy(p + 16, r->comm, n);
	put_trailer(p + sizeof(h) + body, r);
	return h.size;
}

ssize_t kt_encode_perf_text_poke(const struct kt_record *r, const void *bytes, __u16 len, void *buf,
				 size_t size)
{
	struct perf_event_header h = { .type = PERF_RECORD_TEXT_POKE,
				       .misc = PERF_RECORD_MISC_KERNEL };
	size_t body = 8 + ALIGN8(2 + 2 + (size_t)len);
	unsigned char *p = buf;
	__u16 zero = 0;

	if (sizeof(h) + body + TRAILER_SIZE > 65535)
		return -E2BIG;
	if (sizeof(h) + body + TRAILER_SIZE > size)
		return -ENOSPC;
	h.size = sizeof(h) + body + TRAILER_SIZE;
	memset(p, 0, h.size);
	memcpy(p, &h, sizeof(h));
	memcpy(p + 8, &r->addr, 8);
	memcpy(p + 16, &zero, 2);
	memcpy(p + 18, &len, 2);
	if (bytes)
		memcpy(p + 20, bytes, len);
	put_trailer(p + sizeof(h) + body, r);
	return h.size;
}
