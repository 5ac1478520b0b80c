/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A streaming perf.data reader (the file format and the pipe format, as
 * tools/perf/util/header.c and session.c read them): the header, the attrs
 * with their ids, the records one at a time through a bounded buffer, the
 * time of a record from its sample or its sample_id trailer, and the feature
 * sections' table.  Memory does not grow with the file: one record at a time.
 * Every malformed byte is an -EINVAL (or -EPROTO, truncated) with `why`
 * naming it and the offset.
 */
#ifndef KT_PERF_IN_H
#define KT_PERF_IN_H

#include <linux/perf_event.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#define KT_PI_MAGIC 0x32454c4946524550ULL /* "PERFILE2" */
#define KT_PI_MAGIC_SWAPPED 0x504552464c494532ULL
/* tools/perf/util/header.h: features are bits 1..HEADER_LAST_FEATURE-1. */
#define KT_PI_FEAT_BITS 256
#define KT_PI_FEAT_HOSTNAME 3
#define KT_PI_FEAT_OSRELEASE 4
#define KT_PI_FEAT_ARCH 6
#define KT_PI_FEAT_AUXTRACE 18
#define KT_PI_FEAT_DIR_FORMAT 24
/* The newest feature this reader knows (HEADER_PMU_CAPS = 31, and
 * HEADER_CPU_DOMAIN_INFO = 32 of perf 6.17+). */
#define KT_PI_FEAT_KNOWN_MAX 32
/* perf's user-space record types (tools/lib/perf/include/perf/event.h). */
#define KT_PI_HEADER_ATTR 64
#define KT_PI_FINISHED_ROUND 68
#define KT_PI_HEADER_FEATURE 80
/* A record's size is a u16: nothing is larger. */
#define KT_PI_REC_MAX 65536

struct kt_pi_section {
	__u64 offset, size;
};

/* tools/perf/util/header.h: struct perf_file_header. */
struct kt_pi_file_header {
	__u64 magic;
	__u64 size;
	__u64 attr_size;
	struct kt_pi_section attrs, data, event_types;
	__u64 adds_features[KT_PI_FEAT_BITS / 64];
};

struct kt_pi_attr {
	struct perf_event_attr attr; /* zero-extended to what uapi knows */
	__u64 *ids;
	size_t nids;
};

struct kt_perf_in {
	int fd;
	const char *what; /* for messages */
	bool pipe;
	struct kt_pi_file_header hdr; /* file format */
	__u64 file_size;
	struct kt_pi_attr *attrs;
	size_t nattrs;
	/* The record read last: rec[0, rec_len), at file offset rec_off. */
	unsigned char *rec; /* KT_PI_REC_MAX bytes */
	size_t rec_len;
	__u64 rec_off;
	/* Read buffer. */
	unsigned char *buf;
	size_t buf_start, buf_end;
	__u64 pos; /* file offset of buf[buf_start] */
	__u64 end; /* file format: where the data section ends */
	/* Pipe format: the features perf sent as PERF_RECORD_HEADER_FEATURE. */
	char hostname[65], osrelease[65];
	char arch[65]; /* file format: HEADER_ARCH, uname's machine */
};

/*
 * Read the header (and, file format, the attrs and their ids; the features
 * hostname and osrelease) of the perf.data on fd.  want: the format the
 * caller expects (stdin: the pipe format; a path: the file format); the other
 * one is refused with a line saying so.  0 or -errno with why filled.
 */
enum kt_pi_want { KT_PI_FILE, KT_PI_PIPE, KT_PI_ANY };
int kt_perf_in_open(struct kt_perf_in *in, int fd, const char *what, enum kt_pi_want want,
		    char *why, size_t why_size);
void kt_perf_in_close(struct kt_perf_in *in);
/* The next record into in->rec: 1, 0 at the end of the data, -errno with why
 * (truncated, a size that cannot be).  Pipe format: a HEADER_ATTR adds an
 * attr, a HEADER_FEATURE for the hostname or osrelease is remembered. */
int kt_perf_in_next(struct kt_perf_in *in, char *why, size_t why_size);
/* The time of a record (a sample's TIME, or its sample_id trailer's); false
 * if it has none (user-space records, no sample_id_all, no TIME). */
bool kt_perf_in_time(const struct kt_perf_in *in, const void *rec, __u64 *time);
/* The attr whose records carry KSYMBOL and BPF_EVENT (attr.ksymbol set; else
 * the first), or NULL before any attr is known. */
const struct kt_pi_attr *kt_perf_in_tracking_attr(const struct kt_perf_in *in);
/* Append the sample_id trailer a of a kernel record of attr a: pid/tid,
 * time, id, stream id, cpu, identifier as a->attr.sample_type says.  Returns
 * its size (0 without sample_id_all). */
size_t kt_perf_in_trailer(const struct kt_pi_attr *a, unsigned char *out, __u32 pid, __u32 tid,
			  __u64 time, __u32 cpu);
/* Feature sections: the table at the end of the data, one entry per bit set
 * in hdr.adds_features, in bit order.  Fills up to max entries, returns how
 * many there are, -errno with why. */
int kt_perf_in_features(struct kt_perf_in *in, struct kt_pi_section *sec, int *bits, int max,
			char *why, size_t why_size);

#endif
