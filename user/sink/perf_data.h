/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A perf.data writer as a pipeline sink: perf's file format (PERFILE2 header,
 * one attr, the data section, header patched as data is written) or its pipe
 * format (16-byte header, PERF_RECORD_HEADER_ATTR, records).  Records are held
 * in a small reorder queue and written in time order.  The layout and the
 * facts behind it are in docs/formats.md.
 */
#ifndef KT_PERF_DATA_H
#define KT_PERF_DATA_H

#include <linux/types.h>
#include <stdbool.h>
#include "sink/pipeline.h"
#include "record/reorder.h"
#include "archive/archive.h"

/* perf 6.1 rejects a larger attr.size as a "more recent ABI". */
#define KT_PD_ATTR_SIZE 128
#define KT_PD_HEADER_SIZE 104
#define KT_PD_PIPE_HEADER_SIZE 16
/* Header, ids (one u64), attr + its ids section: where the data begins. */
#define KT_PD_IDS_OFFSET KT_PD_HEADER_SIZE
#define KT_PD_ATTRS_OFFSET (KT_PD_IDS_OFFSET + 8)
#define KT_PD_DATA_OFFSET (KT_PD_ATTRS_OFFSET + KT_PD_ATTR_SIZE + 16)
/* The one sample id the attr declares (records carry none: no PERF_SAMPLE_ID). */
#define KT_PD_ID 1

/* perf's user-space record types (tools/lib/perf/include/perf/event.h). */
#define KT_PERF_RECORD_HEADER_ATTR 64
#define KT_PERF_RECORD_FINISHED_ROUND 68

/* Default reorder window and queue bound. */
#define KT_PD_WINDOW_NS (100ULL * 1000 * 1000)
#define KT_PD_MAX_HELD 65536

struct kt_perf_data {
	struct kt_sink sink;
	int fd;
	const char *what; /* for messages: the path, "stdout" */
	bool pipe; /* perf's pipe format */
	bool truncatable; /* a regular file: cut back to the last whole record on error */
	__u64 data_offset;
	__u64 data_size; /* bytes of whole records in the data section */
	__u64 patched_size; /* data.size the header on disk says */
	unsigned char *buf; /* whole encoded records waiting for write(2) */
	size_t len, cap;
	struct kt_reorder q;
	__u64 (*now)(void); /* arrival clock of the reorder queue */
	int err; /* first output error, -errno: sticky */
	unsigned long long records; /* KSYMBOL, BPF_EVENT and LOST records written */
	/* Last comm announced per tid, so each task gets one PERF_RECORD_COMM. */
	struct kt_pd_comm *comm_tab;
	size_t comm_cap, comm_n;
	/* Set by the caller after open: each program whose load passes is read
	 * into it, and it goes out as HEADER_BPF_PROG_INFO and HEADER_BPF_BTF at
	 * close (file format only: the pipe format has no end section). */
	struct kt_archive *archive;
	/* With archive: read the bytes of code without a bpf_prog_info from
	 * /proc/kcore as it registers (record, not serve's answers). */
	bool texts;
};

/*
 * Start writing perf.data to fd: the file format at offset 0 of a seekable fd
 * (header patched later with pwrite), or the pipe format.  Writes the preamble
 * at once, so an unwritable output fails here.  -errno.
 */
int kt_perf_data_open(struct kt_perf_data *pd, int fd, bool pipe, const char *what);
/* Encode r (plus a PERF_RECORD_COMM the first time its task is seen) into the
 * reorder queue; writes out what is due.  -errno on an output error. */
int kt_perf_data_record(struct kt_perf_data *pd, const struct kt_record *r);
/* A PERF_RECORD_TEXT_POKE of bytes at r->addr with r's time and trailer
 * (code without a bpf_prog_info, its bytes as they were; docs/formats.md),
 * into the reorder queue.  -errno. */
int kt_perf_data_text(struct kt_perf_data *pd, const struct kt_record *r, const void *bytes,
		      __u32 len);
/* Write out what the reorder window lets go (all: everything), then patch the
 * header.  -errno on an output error. */
int kt_perf_data_flush(struct kt_perf_data *pd, bool all);
/* Flush everything and patch the header; frees memory, leaves fd open.
 * Returns the first output error of the whole run. */
int kt_perf_data_close(struct kt_perf_data *pd);

#endif
