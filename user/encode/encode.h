/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Record encoders.  Each writes one record into a caller's buffer and returns
 * its length, or -ENOSPC when the buffer is too small; none allocates, so the
 * same code serves stdout, files and per-client socket queues.
 */
#ifndef KT_ENCODE_H
#define KT_ENCODE_H

#include <sys/types.h>
#include "record/attrib.h"
#include "record/record.h"

enum kt_format {
	KT_FMT_TEXT = 0,
	KT_FMT_JSON,
	KT_FMT_RAW,
	KT_FMT_MAX,
};

/* Largest encoding of any record in any format (JSON escapes a byte in at
 * most 6: the name and the cgroup path). */
#define KT_ENCODE_MAX ((KT_NAME_MAX + KT_CGPATH_MAX) * 6 + 1024)

int kt_format_parse(const char *s, enum kt_format *fmt);
const char *kt_format_name(enum kt_format fmt);

/* One line as `perf script --show-bpf-events` prints it. */
ssize_t kt_encode_text(const struct kt_record *r, char *buf, size_t size);
/* One JSON object and a newline. */
ssize_t kt_encode_json(const struct kt_record *r, char *buf, size_t size);
/* The perf record as the kernel lays it out, with a sample_id trailer for
 * sample_type TID|TIME|CPU (see docs/formats.md). */
ssize_t kt_encode_perf(const struct kt_record *r, void *buf, size_t size);
/* PERF_RECORD_COMM {u32 pid, tid; char comm[]} for r's task, same trailer. */
ssize_t kt_encode_perf_comm(const struct kt_record *r, void *buf, size_t size);
/* PERF_RECORD_TEXT_POKE as the kernel writes it (perf_event_text_poke()):
 * addr, old_len 0, new_len len, the bytes, padded to 8, r's trailer: code
 * that appeared at r->addr (perf script --show-text-poke-events).  bytes
 * NULL: zeros, to be filled in later. */
ssize_t kt_encode_perf_text_poke(const struct kt_record *r, const void *bytes, __u16 len,
				 void *buf, size_t size);
ssize_t kt_encode(enum kt_format fmt, const struct kt_record *r, void *buf, size_t size);

/* The names the text and JSON forms give: the record's origin ("bpf",
 * "native", "snapshot", ...), a BPF_EVENT's type ("prog_load"), what
 * kallsyms shows in brackets for a symbol ("bpf", "__builtin__ftrace",
 * "__builtin__kprobes"; NULL: nothing). */
const char *kt_origin_name(unsigned int origin);
const char *kt_bpf_event_type_name(unsigned int type);
const char *kt_ksym_module(const struct kt_record *r);

/* serve's {"kind":"snapshot_end",...} line after a JSON client's snapshot
 * (docs/serve.md). */
ssize_t kt_encode_snapshot_end(char *buf, size_t size, __u64 time, unsigned long long records,
			       const char *reason);

#endif
