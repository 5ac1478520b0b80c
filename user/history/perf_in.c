// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data as perf reads it: tools/perf/util/header.c (perf_file_header,
 * perf_header__read_attrs, the feature table after the data), session.c
 * (the record loop), evsel.c (perf_evsel__parse_id_sample: the sample_id
 * trailer is parsed from the end of a record).  Checked against Debian's perf
 * 6.1 files; docs/formats.md has the layout.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "util/fileio.h"
#include "history/perf_in.h"

#define PI_BUF_CAP (256 * 1024)
#define PI_PIPE_HEADER_SIZE 16
#define PI_FILE_HEADER_SIZE 104
#define PI_MAX_ATTRS 4096
#define PI_MAX_IDS (1 << 20)

_Static_assert(sizeof(struct kt_pi_file_header) == PI_FILE_HEADER_SIZE, "perf_file_header");

static int bad(char *why, size_t n, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int bad(char *why, size_t n, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return err;
}

static int add_attr(struct kt_perf_in *in, const void *attr, size_t attr_len, const __u64 *ids,
		    size_t nids, char *why, size_t why_size)
{
	struct kt_pi_attr *a, *t;
	__u32 size;

	if (attr_len < PERF_ATTR_SIZE_VER0)
		return bad(why, why_size, -EINVAL,
			   "%s: attr of %zu bytes, less than perf's first ABI", in->what, attr_len);
	/* A larger attr than the uapi headers of the build know (perf 6.3+
	 * writes 136 bytes, config3, where bookworm's headers say 128) is read
	 * as far as they go and copied whole: inject reads only fields of
	 * perf's first ABIs (sample_type, sample_id_all, ksymbol,
	 * use_clockid). */
	memcpy(&size, (const char *)attr + offsetof(struct perf_event_attr, size), sizeof(size));
	if (size < PERF_ATTR_SIZE_VER0 || size > attr_len)
		return bad(why, why_size, -EINVAL, "%s: corrupt attr: size %u in %zu bytes",
			   in->what, size, attr_len);
	if (in->nattrs >= PI_MAX_ATTRS || nids > PI_MAX_IDS)
		return bad(why, why_size, -EINVAL, "%s: %zu attrs with %zu ids: corrupt", in->what,
			   in->nattrs, nids);
	t = realloc(in->attrs, (in->nattrs + 1) * sizeof(*t));
	if (!t)
		return bad(why, why_size, -ENOMEM, "out of memory");
	in->attrs = t;
	a = &t[in->nattrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr, attr_len < sizeof(a->attr) ? attr_len : sizeof(a->attr));
	a->ids = calloc(nids ? nids : 1, sizeof(__u64));
	if (!a->ids)
		return bad(why, why_size, -ENOMEM, "out of memory");
	if (nids)
		memcpy(a->ids, ids, nids * sizeof(__u64));
	a->nids = nids;
	in->nattrs++;
	return 0;
}

/* The file format's attrs section: attr_size bytes each, an attr then the
 * {offset, size} of its ids. */
static int read_attrs(struct kt_perf_in *in, char *why, size_t why_size)
{
	const struct kt_pi_file_header *h = &in->hdr;
	size_t alen = h->attr_size - sizeof(struct kt_pi_section), i, n;
	unsigned char *attr;
	struct kt_pi_section ids;
	__u64 *idv = NULL;
	int err = 0;

	if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(ids) || h->attr_size > 4096 ||
	    h->attrs.size % h->attr_size)
		return bad(why, why_size, -EINVAL,
			   "%s: corrupt header: attr_size %llu, attrs %llu bytes", in->what,
			   (unsigned long long)h->attr_size, (unsigned long long)h->attrs.size);
	attr = malloc(alen);
	if (!attr)
		return bad(why, why_size, -ENOMEM, "out of memory");
	n = h->attrs.size / h->attr_size;
	for (i = 0; i < n && !err; i++) {
		__u64 off = h->attrs.offset + i * h->attr_size;

		err = kt_pread_all(in->fd, attr, alen, off);
		if (!err)
			err = kt_pread_all(in->fd, &ids, sizeof(ids), off + alen);
		if (err) {
			err = bad(why, why_size, err == -EPROTO ? -EPROTO : err,
				  "%s: truncated: attr %zu at offset %llu is beyond the file",
				  in->what, i, (unsigned long long)off);
			break;
		}
		if (ids.size % 8 || ids.size / 8 > PI_MAX_IDS ||
		    ids.offset + ids.size > h->data.offset) {
			err = bad(why, why_size, -EINVAL,
				  "%s: corrupt: ids of attr %zu at %llu+%llu", in->what, i,
				  (unsigned long long)ids.offset, (unsigned long long)ids.size);
			break;
		}
		free(idv);
		idv = malloc(ids.size ? ids.size : 8);
		if (!idv) {
			err = bad(why, why_size, -ENOMEM, "out of memory");
			break;
		}
		err = kt_pread_all(in->fd, idv, ids.size, ids.offset);
		if (err) {
			err = bad(why, why_size, err, "%s: cannot read the ids of attr %zu",
				  in->what, i);
			break;
		}
		err = add_attr(in, attr, alen, idv, ids.size / 8, why, why_size);
	}
	free(idv);
	free(attr);
	return err;
}

/* perf's string in a feature section: u32 len, then len bytes NUL-padded. */
static void read_feat_string(struct kt_perf_in *in, const struct kt_pi_section *s, char *out,
			     size_t out_size)
{
	__u32 len;

	if (s->size < 4 || kt_pread_all(in->fd, &len, 4, s->offset) || len > s->size - 4)
		return;
	if (len >= out_size)
		len = out_size - 1;
	if (kt_pread_all(in->fd, out, len, s->offset + 4))
		return;
	out[len] = 0;
}

static int check_features(struct kt_perf_in *in, char *why, size_t why_size)
{
	struct kt_pi_section sec[KT_PI_FEAT_BITS];
	int bits[KT_PI_FEAT_BITS], n, i;

	n = kt_perf_in_features(in, sec, bits, KT_PI_FEAT_BITS, why, why_size);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (bits[i] > KT_PI_FEAT_KNOWN_MAX)
			return bad(
				why, why_size, -EINVAL,
				"%s: written by a newer perf than this ksymtap knows (feature %d)",
				in->what, bits[i]);
		if (bits[i] == KT_PI_FEAT_AUXTRACE)
			return bad(
				why, why_size, -EOPNOTSUPP,
				"%s: holds AUX area data (perf record -e intel_pt// or arm_spe//), which inject does not rewrite",
				in->what);
		if (sec[i].offset < in->end || sec[i].offset + sec[i].size > in->file_size ||
		    sec[i].offset + sec[i].size < sec[i].offset)
			return bad(why, why_size, -EINVAL,
				   "%s: corrupt: feature %d at %llu+%llu is outside the file",
				   in->what, bits[i], (unsigned long long)sec[i].offset,
				   (unsigned long long)sec[i].size);
		if (bits[i] == KT_PI_FEAT_HOSTNAME)
			read_feat_string(in, &sec[i], in->hostname, sizeof(in->hostname));
		if (bits[i] == KT_PI_FEAT_OSRELEASE)
			read_feat_string(in, &sec[i], in->osrelease, sizeof(in->osrelease));
		if (bits[i] == KT_PI_FEAT_ARCH)
			read_feat_string(in, &sec[i], in->arch, sizeof(in->arch));
	}
	return 0;
}

static int open_file(struct kt_perf_in *in, char *why, size_t why_size)
{
	struct kt_pi_file_header *h = &in->hdr;
	struct stat st;
	int err;

	if (fstat(in->fd, &st))
		return bad(why, why_size, -errno, "%s: %s", in->what, strerror(errno));
	in->file_size = st.st_size;
	err = kt_pread_all(in->fd, h, sizeof(*h), 0);
	if (err)
		return bad(why, why_size, -EPROTO, "%s: truncated: shorter than perf's file header",
			   in->what);
	if (h->data.offset < PI_FILE_HEADER_SIZE ||
	    h->data.offset + h->data.size < h->data.offset ||
	    h->attrs.offset + h->attrs.size > h->data.offset)
		return bad(why, why_size, -EINVAL,
			   "%s: corrupt header: data at %llu+%llu, attrs at %llu+%llu", in->what,
			   (unsigned long long)h->data.offset, (unsigned long long)h->data.size,
			   (unsigned long long)h->attrs.offset, (unsigned long long)h->attrs.size);
	if (h->data.offset + h->data.size > in->file_size)
		return bad(why, why_size, -EPROTO,
			   "%s: truncated: its data section ends at byte %llu, the file has %llu",
			   in->what, (unsigned long long)(h->data.offset + h->data.size),
			   (unsigned long long)in->file_size);
	if (!h->data.size)
		return bad(
			why, why_size, -EINVAL,
			"%s: no data (its header says 0 bytes: perf record killed, or still running?)",
			in->what);
	in->end = h->data.offset + h->data.size;
	err = read_attrs(in, why, why_size);
	if (err)
		return err;
	err = check_features(in, why, why_size);
	if (err)
		return err;
	if (lseek(in->fd, h->data.offset, SEEK_SET) < 0)
		return bad(why, why_size, -errno, "%s: %s", in->what, strerror(errno));
	in->pos = h->data.offset;
	return 0;
}

int kt_perf_in_open(struct kt_perf_in *in, int fd, const char *what, enum kt_pi_want want,
		    char *why, size_t why_size)
{
	__u64 head[2];
	int err;

	memset(in, 0, sizeof(*in));
	in->fd = fd;
	in->what = what;
	in->buf = malloc(PI_BUF_CAP);
	in->rec = malloc(KT_PI_REC_MAX);
	if (!in->buf || !in->rec)
		return bad(why, why_size, -ENOMEM, "out of memory");
	err = kt_read_all(fd, head, sizeof(head));
	if (err)
		return bad(why, why_size, err, "%s: %s", what,
			   err == -EPROTO ? "empty or shorter than a perf.data header" :
					    strerror(-err));
	if (head[0] == KT_PI_MAGIC_SWAPPED)
		return bad(why, why_size, -EOPNOTSUPP,
			   "%s: perf.data of the other byte order is not supported", what);
	if (head[0] != KT_PI_MAGIC)
		return bad(why, why_size, -EINVAL, "%s: not a perf.data file (no PERFILE2 magic)",
			   what);
	if (head[1] == PI_PIPE_HEADER_SIZE) {
		if (want == KT_PI_FILE)
			return bad(
				why, why_size, -EINVAL,
				"%s: is perf's pipe format (perf record -o -): give it on stdin, as -i -",
				what);
		in->pipe = true;
		in->pos = PI_PIPE_HEADER_SIZE;
		in->end = ~0ULL;
		return 0;
	}
	if (head[1] != PI_FILE_HEADER_SIZE)
		return bad(why, why_size, -EINVAL, "%s: corrupt header: size %llu (perf's is 104)",
			   what, (unsigned long long)head[1]);
	if (want == KT_PI_PIPE)
		return bad(why, why_size, -EINVAL,
			   "%s: is perf's file format, not its pipe format: give it as -i FILE",
			   what);
	return open_file(in, why, why_size);
}

void kt_perf_in_close(struct kt_perf_in *in)
{
	size_t i;

	for (i = 0; i < in->nattrs; i++)
		free(in->attrs[i].ids);
	free(in->attrs);
	free(in->buf);
	free(in->rec);
	in->attrs = NULL;
	in->buf = in->rec = NULL;
	in->nattrs = 0;
}

/* Make n bytes available at buf[buf_start]: 1, 0 at a clean end (nothing
 * left at all), -EPROTO if the input ends inside them, -errno. */
static int fill(struct kt_perf_in *in, size_t n)
{
	size_t have = in->buf_end - in->buf_start;
	ssize_t r;

	if (have >= n)
		return 1;
	memmove(in->buf, in->buf + in->buf_start, have);
	in->buf_start = 0;
	in->buf_end = have;
	while (in->buf_end < n) {
		size_t want = PI_BUF_CAP - in->buf_end;

		if (!in->pipe && in->end - in->pos - in->buf_end < want)
			want = in->end - in->pos - in->buf_end;
		if (!want)
			break;
		r = read(in->fd, in->buf + in->buf_end, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		in->buf_end += r;
	}
	if (in->buf_end >= n)
		return 1;
	return in->buf_end ? -EPROTO : 0;
}

static void pipe_attr(struct kt_perf_in *in, char *why, size_t why_size, int *err)
{
	const struct perf_event_header *h = (const void *)in->rec;
	__u32 asize;

	if (h->size < sizeof(*h) + PERF_ATTR_SIZE_VER0) {
		*err = bad(why, why_size, -EINVAL, "%s: corrupt HEADER_ATTR at offset %llu",
			   in->what, (unsigned long long)in->rec_off);
		return;
	}
	memcpy(&asize, in->rec + sizeof(*h) + offsetof(struct perf_event_attr, size), 4);
	if (asize < PERF_ATTR_SIZE_VER0 || sizeof(*h) + asize > h->size ||
	    (h->size - sizeof(*h) - asize) % 8) {
		*err = bad(why, why_size, -EINVAL,
			   "%s: corrupt HEADER_ATTR at offset %llu (attr size %u)", in->what,
			   (unsigned long long)in->rec_off, asize);
		return;
	}
	*err = add_attr(in, in->rec + sizeof(*h), asize,
			(const void *)(in->rec + sizeof(*h) + asize),
			(h->size - sizeof(*h) - asize) / 8, why, why_size);
}

static void pipe_feature(struct kt_perf_in *in)
{
	const struct perf_event_header *h = (const void *)in->rec;
	__u64 feat;
	__u32 len;
	char *out;

	if (h->size < sizeof(*h) + 12)
		return;
	memcpy(&feat, in->rec + sizeof(*h), 8);
	if (feat == KT_PI_FEAT_HOSTNAME)
		out = in->hostname;
	else if (feat == KT_PI_FEAT_OSRELEASE)
		out = in->osrelease;
	else
		return;
	memcpy(&len, in->rec + sizeof(*h) + 8, 4);
	if (len > h->size - sizeof(*h) - 12)
		return;
	if (len >= sizeof(in->hostname))
		len = sizeof(in->hostname) - 1;
	memcpy(out, in->rec + sizeof(*h) + 12, len);
	out[len] = 0;
}

int kt_perf_in_next(struct kt_perf_in *in, char *why, size_t why_size)
{
	struct perf_event_header h;
	int r, err = 0;

	r = fill(in, sizeof(h));
	if (r == 0)
		return 0;
	if (r < 0)
		return bad(why, why_size, r,
			   "%s: truncated: the input ends inside the record at offset %llu",
			   in->what, (unsigned long long)in->pos);
	memcpy(&h, in->buf + in->buf_start, sizeof(h));
	if (h.size < sizeof(h))
		return bad(why, why_size, -EINVAL, "%s: corrupt: record at offset %llu has size %u",
			   in->what, (unsigned long long)in->pos, h.size);
	if (!in->pipe && in->pos + h.size > in->end)
		return bad(why, why_size, -EINVAL,
			   "%s: corrupt: the record at offset %llu runs past the data section",
			   in->what, (unsigned long long)in->pos);
	r = fill(in, h.size);
	if (r <= 0)
		return bad(why, why_size, r ? r : -EPROTO,
			   "%s: truncated: the input ends inside the record at offset %llu",
			   in->what, (unsigned long long)in->pos);
	memcpy(in->rec, in->buf + in->buf_start, h.size);
	in->rec_len = h.size;
	in->rec_off = in->pos;
	in->buf_start += h.size;
	in->pos += h.size;
	if (in->pipe && h.type == KT_PI_HEADER_ATTR)
		pipe_attr(in, why, why_size, &err);
	if (in->pipe && h.type == KT_PI_HEADER_FEATURE)
		pipe_feature(in);
	return err ? err : 1;
}

static const struct kt_pi_attr *attr_of_id(const struct kt_perf_in *in, __u64 id)
{
	size_t i, j;

	for (i = 0; i < in->nattrs; i++)
		for (j = 0; j < in->attrs[i].nids; j++)
			if (in->attrs[i].ids[j] == id)
				return &in->attrs[i];
	return NULL;
}

/* Which attr a record belongs to: the only one, or by PERF_SAMPLE_IDENTIFIER
 * (first u64 of a sample, last of a trailer), or the first (perf then needs
 * every attr to have the same layout). */
static const struct kt_pi_attr *attr_of(const struct kt_perf_in *in, const unsigned char *rec,
					__u16 size, bool sample)
{
	const struct kt_pi_attr *a;
	__u64 id;

	if (!in->nattrs)
		return NULL;
	if (in->nattrs == 1 || !(in->attrs[0].attr.sample_type & PERF_SAMPLE_IDENTIFIER))
		return &in->attrs[0];
	if (size < sizeof(struct perf_event_header) + 8)
		return NULL;
	memcpy(&id, sample ? rec + sizeof(struct perf_event_header) : rec + size - 8, 8);
	a = attr_of_id(in, id);
	return a ? a : &in->attrs[0];
}

bool kt_perf_in_time(const struct kt_perf_in *in, const void *rec, __u64 *time)
{
	const struct perf_event_header *h = rec;
	const struct kt_pi_attr *a;
	__u64 st;
	size_t off;

	if (h->type >= KT_PI_HEADER_ATTR || !h->type)
		return false;
	a = attr_of(in, rec, h->size, h->type == PERF_RECORD_SAMPLE);
	if (!a || !((st = a->attr.sample_type) & PERF_SAMPLE_TIME))
		return false;
	if (h->type == PERF_RECORD_SAMPLE) {
		off = sizeof(*h) + 8 * !!(st & PERF_SAMPLE_IDENTIFIER) +
		      8 * !!(st & PERF_SAMPLE_IP) + 8 * !!(st & PERF_SAMPLE_TID);
	} else {
		size_t back = 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_CPU) +
				   !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_ID) + 1);

		if (!a->attr.sample_id_all || h->size < sizeof(*h) + back)
			return false;
		off = h->size - back;
	}
	if (off + 8 > h->size)
		return false;
	memcpy(time, (const unsigned char *)rec + off, 8);
	return true;
}

const struct kt_pi_attr *kt_perf_in_tracking_attr(const struct kt_perf_in *in)
{
	size_t i;

	for (i = 0; i < in->nattrs; i++)
		if (in->attrs[i].attr.ksymbol)
			return &in->attrs[i];
	return in->nattrs ? &in->attrs[0] : NULL;
}

size_t kt_perf_in_trailer(const struct kt_pi_attr *a, unsigned char *out, __u32 pid, __u32 tid,
			  __u64 time, __u32 cpu)
{
	__u64 st = a->attr.sample_type, id = a->nids ? a->ids[0] : 0;
	__u32 cpu_res[2] = { cpu, 0 }, pt[2] = { pid, tid };
	size_t n = 0;

	if (!a->attr.sample_id_all)
		return 0;
	if (st & PERF_SAMPLE_TID) {
		memcpy(out + n, pt, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(out + n, &time, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		memcpy(out + n, &id, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		memcpy(out + n, &id, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		memcpy(out + n, cpu_res, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		memcpy(out + n, &id, 8);
		n += 8;
	}
	return n;
}

int kt_perf_in_features(struct kt_perf_in *in, struct kt_pi_section *sec, int *bits, int max,
			char *why, size_t why_size)
{
	int n = 0, b, err;

	if (in->pipe)
		return 0;
	for (b = 0; b < KT_PI_FEAT_BITS; b++) {
		if (!(in->hdr.adds_features[b / 64] & (1ULL << (b % 64))))
			continue;
		if (n < max) {
			bits[n] = b;
			err = kt_pread_all(in->fd, &sec[n], sizeof(*sec),
					   in->end + n * sizeof(struct kt_pi_section));
			if (err)
				return bad(
					why, why_size, -EPROTO,
					"%s: truncated: the feature table after the data is cut short",
					in->what);
		}
		n++;
	}
	return n;
}
