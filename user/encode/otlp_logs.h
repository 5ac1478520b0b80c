/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records as OTLP logs (docs/otlp.md): one LogRecord per record, in an
 * ExportLogsServiceRequest under the node's resource, packed by protobuf-c
 * from the opentelemetry-proto messages (encode/proto/, written from the
 * specification) or written as OTLP/JSON from the same messages
 * (encode/pb_json.h).
 */
#ifndef KT_OTLP_LOGS_H
#define KT_OTLP_LOGS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include "record/attrib.h"
#include "record/record.h"

/* One record as the exporter keeps it until it is sent: the record, what
 * its attribution said then, its sequence number and its wall-clock times. */
struct kt_otlp_entry {
	struct kt_record r; /* r.attrib NULL: the copy below */
	__u64 seq;
	__u64 time_unix_nano; /* the record's time on the wall clock */
	__u64 observed_unix_nano; /* when ksymtap handed it to the exporter */
	bool have_attrib;
	char runtime[16];
	char container_id[KT_CONTAINER_ID_LEN + 1];
	char pod_uid[KT_POD_UID_MAX + 1];
	/* Last: a queue keeps an entry only up to the path's end
	 * (KT_OTLP_ENTRY_LEN). */
	char cgroup_path[KT_CGPATH_MAX];
};

/* The bytes of e that hold something: up to its cgroup path's NUL. */
#define KT_OTLP_ENTRY_LEN(e) \
	(offsetof(struct kt_otlp_entry, cgroup_path) + strlen((e)->cgroup_path) + 1)

/* wall_off: CLOCK_REALTIME minus perf's clock, ns; now: CLOCK_REALTIME ns. */
void kt_otlp_entry_fill(struct kt_otlp_entry *e, const struct kt_record *r, __s64 wall_off,
			__u64 seq, __u64 now);

struct kt_otlp_kv {
	const char *key, *value;
};

/* The node: the resource's attributes (string values), the scope's version. */
struct kt_otlp_resource {
	const struct kt_otlp_kv *attrs;
	size_t n;
	const char *version;
};

enum kt_otlp_protocol {
	KT_OTLP_PROTOBUF, /* http/protobuf: application/x-protobuf */
	KT_OTLP_JSON, /* http/json: application/json */
};

/* The request of n entries into *out (malloc()ed): its length, or -errno. */
ssize_t kt_otlp_encode(const struct kt_otlp_entry *e, size_t n, const struct kt_otlp_resource *res,
		       enum kt_otlp_protocol proto, char **out);

/* A collector's answer (ExportLogsServiceResponse): the log records it
 * rejected and its message ("" if none); -EBADMSG if it is not one. */
int kt_otlp_parse_response(const void *body, size_t len, enum kt_otlp_protocol proto,
			   long long *rejected, char *msg, size_t msg_size);

/* The event name of a record (docs/otlp.md's table). */
const char *kt_otlp_event_name(const struct kt_record *r);

#endif
