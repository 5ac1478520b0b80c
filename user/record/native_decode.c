// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's side-band records (PERF_RECORD_KSYMBOL, BPF_EVENT, LOST,
 * COMM with sample_id TID|TIME|CPU) as kt_records: read live by the native
 * backend, read back from record files by history/record_file.c.
 */
#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>
#include "record/native_decode.h"
/*
 * The trailer is read where the body ends, not KT_NATIVE_TRAILER_SIZE before header.size:
 * perf_event_ksymbol_output() and perf_event_bpf_output() add each listener's
 * id_header_size to one shared header without restoring it, so every listener
 * after the first gets a header.size inflated by the earlier listeners' trailers
 * and garbage after its own (seen on 6.18 with two listeners).
 */
static void put_trailer(struct kt_record *r, const unsigned char *rec, size_t body_end)
{
	const unsigned char *t = rec + body_end;

	memcpy(&r->pid, t, 4);
	memcpy(&r->tid, t + 4, 4);
	memcpy(&r->time, t + 8, 8);
	memcpy(&r->cpu, t + 16, 4);
}

/* Decode one native record into r; 1 if it is one of ours, 0 to skip. */
/* Over 60 lines: a switch over the kernel's record layouts, each checked
 * against its size. */
int kt_native_decode(struct kt_record *r, const void *data, size_t size)
{
	const unsigned char *rec = data;
	struct perf_event_header h;
	size_t body, end;

	if (size < sizeof(h))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	if (h.size != size || size < sizeof(h) + KT_NATIVE_TRAILER_SIZE)
		return -EINVAL;
	body = size - sizeof(h) - KT_NATIVE_TRAILER_SIZE;
	memset(r, 0, offsetof(struct kt_record, name));
	r->name[0] = 0;
	r->origin = KT_ORIGIN_NATIVE;
	switch (h.type) {
	case PERF_RECORD_KSYMBOL: {
		size_t nlen;

		if (body < 16 + 1)
			return -EINVAL;
		r->type = KT_RECORD_KSYMBOL;
		memcpy(&r->addr, rec + 8, 8);
		memcpy(&r->len, rec + 16, 4);
		memcpy(&r->ksym_type, rec + 20, 2);
		memcpy(&r->flags, rec + 22, 2);
		nlen = strnlen((const char *)rec + 24, body - 16);
		/* The kernel pads the name with its NUL to 8 bytes. */
		end = 24 + ((nlen + 1 + 7) & ~(size_t)7);
		if (nlen == body - 16 || end + KT_NATIVE_TRAILER_SIZE > size)
			return -EINVAL;
		if (nlen >= KT_NAME_MAX)
			nlen = KT_NAME_MAX - 1;
		memcpy(r->name, rec + 24, nlen);
		r->name[nlen] = 0;
		r->source = kt_classify(r->ksym_type, r->name);
		break;
	}
	case PERF_RECORD_BPF_EVENT:
		if (body < 16)
			return -EINVAL;
		r->type = KT_RECORD_BPF_EVENT;
		r->source = KT_SRC_BPF_PROG;
		memcpy(&r->bpf_type, rec + 8, 2);
		memcpy(&r->bpf_flags, rec + 10, 2);
		memcpy(&r->prog_id, rec + 12, 4);
		memcpy(r->tag, rec + 16, KT_TAG_SIZE);
		end = 24;
		break;
	case PERF_RECORD_LOST:
		if (body < 16)
			return -EINVAL;
		r->type = KT_RECORD_LOST;
		memcpy(&r->lost, rec + 16, 8);
		end = 24;
		break;
	case PERF_RECORD_COMM: {
		size_t nlen;

		/* {u32 pid, tid; char comm[]} then sample_id */
		if (body < 9)
			return -EINVAL;
		memcpy(&r->pid, rec + 8, 4);
		memcpy(&r->tid, rec + 12, 4);
		nlen = strnlen((const char *)rec + 16, body - 8);
		if (nlen >= KT_COMM_LEN)
			nlen = KT_COMM_LEN - 1;
		memcpy(r->comm, rec + 16, nlen);
		r->comm[nlen] = 0;
		return 2;
	}
	default:
		return 0;
	}
	put_trailer(r, rec, end);
	return 1;
}
