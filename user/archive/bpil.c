// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One program's bpf_prog_info with its arrays, in perf's perf_bpil form
 * (tools/perf/util/bpf-utils.c, get_bpf_prog_info_linear() and
 * bpil_addr_to_offs()): two calls, the first for the arrays' sizes, the
 * second into one buffer; then the arrays' pointers become offsets from its
 * data.  The arrays are those perf record asks for, plus the xlated
 * instructions.
 */
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "archive/bpil.h"

/* perf's enum perf_bpil_array_types: bit i of "arrays" is array i. */
enum {
	BPIL_JITED_INSNS,
	BPIL_XLATED_INSNS,
	BPIL_MAP_IDS,
	BPIL_JITED_KSYMS,
	BPIL_JITED_FUNC_LENS,
	BPIL_FUNC_INFO,
	BPIL_LINE_INFO,
	BPIL_JITED_LINE_INFO,
	BPIL_PROG_TAGS,
	BPIL_LAST,
};

#define OFF(f) offsetof(struct bpf_prog_info, f)
/* size > 0: offset of the record size field; < 0: a fixed size. */
static const struct {
	int array, count, size;
} desc[BPIL_LAST] = {
	[BPIL_JITED_INSNS] = { OFF(jited_prog_insns), OFF(jited_prog_len), -1 },
	[BPIL_XLATED_INSNS] = { OFF(xlated_prog_insns), OFF(xlated_prog_len), -1 },
	[BPIL_MAP_IDS] = { OFF(map_ids), OFF(nr_map_ids), -4 },
	[BPIL_JITED_KSYMS] = { OFF(jited_ksyms), OFF(nr_jited_ksyms), -8 },
	[BPIL_JITED_FUNC_LENS] = { OFF(jited_func_lens), OFF(nr_jited_func_lens), -4 },
	[BPIL_FUNC_INFO] = { OFF(func_info), OFF(nr_func_info), OFF(func_info_rec_size) },
	[BPIL_LINE_INFO] = { OFF(line_info), OFF(nr_line_info), OFF(line_info_rec_size) },
	[BPIL_JITED_LINE_INFO] = { OFF(jited_line_info), OFF(nr_jited_line_info),
				   OFF(jited_line_info_rec_size) },
	[BPIL_PROG_TAGS] = { OFF(prog_tags), OFF(nr_prog_tags), -8 },
};

#define WANT                                                                         \
	(1U << BPIL_JITED_INSNS | 1U << BPIL_XLATED_INSNS | 1U << BPIL_JITED_KSYMS | \
	 1U << BPIL_JITED_FUNC_LENS | 1U << BPIL_FUNC_INFO | 1U << BPIL_LINE_INFO |  \
	 1U << BPIL_JITED_LINE_INFO | 1U << BPIL_PROG_TAGS)

static __u32 get32(const struct bpf_prog_info *info, int off)
{
	__u32 v;

	if (off < 0)
		return -off;
	memcpy(&v, (const char *)info + off, 4);
	return v;
}

static void put32(struct bpf_prog_info *info, int off, __u32 v)
{
	if (off >= 0)
		memcpy((char *)info + off, &v, 4);
}

static void put64(struct bpf_prog_info *info, int off, __u64 v)
{
	memcpy((char *)info + off, &v, 8);
}

static size_t roundup8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* Which wanted arrays this kernel has, and the room they need. */
static __u32 plan(const struct bpf_prog_info *info, __u32 len, __u32 *data_len)
{
	__u32 arrays = 0;
	int i;

	*data_len = 0;
	for (i = 0; i < BPIL_LAST; i++) {
		if (!(WANT & 1U << i))
			continue;
		/* A kernel older than the field. */
		if (len < desc[i].array + 8U || len < desc[i].count + 4U ||
		    (desc[i].size > 0 && len < desc[i].size + 4U))
			continue;
		arrays |= 1U << i;
		*data_len +=
			roundup8((size_t)get32(info, desc[i].count) * get32(info, desc[i].size));
	}
	return arrays;
}

/* A blob's info and its arrays' data (kt_bpil_head, then the info). */
#define BLOB_INFO(b) ((struct bpf_prog_info *)((b) + sizeof(struct kt_bpil_head)))
#define BLOB_DATA(b) ((b) + sizeof(struct kt_bpil_head) + sizeof(struct bpf_prog_info))

/* Point full's arrays into data, sized as info says. */
static void point(struct bpf_prog_info *full, const struct bpf_prog_info *info, __u32 arrays,
		  unsigned char *data)
{
	size_t off = 0;
	int i;

	for (i = 0; i < BPIL_LAST; i++) {
		__u32 count = get32(info, desc[i].count), rec = get32(info, desc[i].size);

		if (!(arrays & 1U << i))
			continue;
		put32(full, desc[i].count, count);
		put32(full, desc[i].size, rec);
		put64(full, desc[i].array, (__u64)(unsigned long)(data + off));
		off += roundup8((size_t)count * rec);
	}
}

/* 0, or -EAGAIN when an array's size changed between the two calls. */
static int to_offsets(struct bpf_prog_info *full, const struct bpf_prog_info *info, __u32 arrays,
		      const unsigned char *data)
{
	__u64 p;
	int i;

	for (i = 0; i < BPIL_LAST; i++) {
		if (!(arrays & 1U << i))
			continue;
		if (get32(full, desc[i].count) != get32(info, desc[i].count) ||
		    get32(full, desc[i].size) != get32(info, desc[i].size))
			return -EAGAIN;
		memcpy(&p, (char *)full + desc[i].array, 8);
		put64(full, desc[i].array, p - (__u64)(unsigned long)data);
	}
	return 0;
}

/*
 * A blob laid out for info's arrays (plan(): head, the info, the arrays'
 * data), its info seed's copy (or zeros) with the arrays pointed into the
 * data.  NULL on -ENOMEM.
 */
static unsigned char *blob_new(const struct bpf_prog_info *info, __u32 len,
			       const struct bpf_prog_info *seed, struct kt_bpil_head *head,
			       size_t *size)
{
	struct bpf_prog_info *full;
	unsigned char *b;
	__u32 data_len;

	head->info_len = sizeof(*info);
	head->arrays = plan(info, len, &data_len);
	head->data_len = data_len;
	*size = sizeof(*head) + sizeof(*info) + data_len;
	b = calloc(1, *size);
	if (!b)
		return NULL;
	memcpy(b, head, sizeof(*head));
	full = (struct bpf_prog_info *)(b + sizeof(*head));
	if (seed)
		*full = *seed;
	point(full, info, head->arrays, BLOB_DATA(b));
	return b;
}

int kt_bpil_read(int fd, unsigned char **blob, size_t *size, struct bpf_prog_info *first)
{
	struct bpf_prog_info info = {}, *full;
	__u32 len = sizeof(info);
	struct kt_bpil_head head;
	unsigned char *b;
	size_t n;
	int err;

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	b = blob_new(&info, len, NULL, &head, &n);
	if (!b)
		return -ENOMEM;
	full = BLOB_INFO(b);
	err = bpf_obj_get_info_by_fd(fd, full, &len) ? -errno : 0;
	/* A program's image is fixed once loaded: a size that changed is
	 * refused rather than kept cut. */
	if (!err)
		err = to_offsets(full, &info, head.arrays, BLOB_DATA(b));
	if (err) {
		free(b);
		return err;
	}
	if (first)
		*first = *full;
	*blob = b;
	*size = n;
	return 0;
}

int kt_bpil_pack(const struct bpf_prog_info *info, unsigned char **blob, size_t *size)
{
	struct kt_bpil_head head;
	struct bpf_prog_info *full;
	unsigned char *b;
	__u64 src, dst;
	size_t n;
	int i;

	b = blob_new(info, sizeof(*info), info, &head, &n);
	if (!b)
		return -ENOMEM;
	full = BLOB_INFO(b);
	for (i = 0; i < BPIL_LAST; i++) {
		size_t len = (size_t)get32(info, desc[i].count) * get32(info, desc[i].size);

		if (!(head.arrays & 1U << i) || !len)
			continue;
		memcpy(&src, (const char *)info + desc[i].array, 8);
		memcpy(&dst, (const char *)full + desc[i].array, 8);
		memcpy((void *)(unsigned long)dst, (const void *)(unsigned long)src, len);
	}
	to_offsets(full, info, head.arrays, BLOB_DATA(b));
	*blob = b;
	*size = n;
	return 0;
}

void kt_bpil_set_id(unsigned char *blob, __u32 id)
{
	BLOB_INFO(blob)->id = id;
}

static int bad(char *why, size_t why_size, const char *what)
{
	snprintf(why, why_size, "%s", what);
	return -EINVAL;
}

/* The smallest record of a sized array: the fields disasm reads. */
static __u32 min_rec(int a)
{
	if (a == BPIL_LINE_INFO)
		return sizeof(struct bpf_line_info);
	if (a == BPIL_FUNC_INFO)
		return sizeof(struct bpf_func_info);
	return 8;
}

/* Array i's count and record size, 0 if absent or cut off. */
static void array_at(const struct kt_bpil_view *v, int i, __u64 *off, __u64 *bytes)
{
	__u64 count = get32(&v->info, desc[i].count), rec = get32(&v->info, desc[i].size);

	memcpy(off, (const char *)&v->info + desc[i].array, 8);
	*bytes = count * rec;
}

/* Over 60 lines: one check per rule of the blob's layout, each with its why. */
int kt_bpil_view(const unsigned char *blob, size_t size, struct kt_bpil_view *v, char *why,
		 size_t why_size)
{
	struct kt_bpil_head head;
	__u64 off, bytes, sum = 0;
	__u32 i, n;
	int a;

	memset(v, 0, sizeof(*v));
	if (size < sizeof(head))
		return bad(why, why_size, "shorter than its header");
	memcpy(&head, blob, sizeof(head));
	if ((__u64)head.info_len + head.data_len > size - sizeof(head))
		return bad(why, why_size, "info_len and data_len go past its end");
	if (head.info_len < OFF(prog_tags) + 8)
		return bad(why, why_size, "info_len too short for the JIT's arrays");
	memcpy(&v->info, blob + sizeof(head),
	       head.info_len < sizeof(v->info) ? head.info_len : sizeof(v->info));
	v->data = blob + sizeof(head) + head.info_len;
	v->data_len = head.data_len;
	for (a = 0; a < BPIL_LAST; a++) {
		/* An array the blob does not hold is empty, whatever its count. */
		if (!(head.arrays & 1ULL << a)) {
			put32(&v->info, desc[a].count, 0);
			put64(&v->info, desc[a].array, 0);
			continue;
		}
		if (desc[a].size > 0 && get32(&v->info, desc[a].count) &&
		    get32(&v->info, desc[a].size) < min_rec(a))
			return bad(why, why_size, "an array's record size is too small");
		array_at(v, a, &off, &bytes);
		if (off > v->data_len || bytes > v->data_len - off)
			return bad(why, why_size, "an array lies outside its data");
	}
	n = v->info.nr_jited_ksyms;
	if (n != v->info.nr_jited_func_lens)
		return bad(why, why_size, "function lengths and addresses differ in number");
	for (i = 0; i < n; i++) {
		__u32 len;

		kt_bpil_func(v, i, &off, &len, NULL);
		sum += len;
	}
	if (sum > v->info.jited_prog_len)
		return bad(why, why_size, "its functions are longer than its image");
	v->nfuncs = n;
	if (v->info.nr_line_info == v->info.nr_jited_line_info)
		v->nlinfo = v->info.nr_line_info;
	return 0;
}

static const unsigned char *array(const struct kt_bpil_view *v, int a, __u32 i)
{
	__u64 off;

	memcpy(&off, (const char *)&v->info + desc[a].array, 8);
	return v->data + off + (size_t)i * get32(&v->info, desc[a].size);
}

const unsigned char *kt_bpil_jited(const struct kt_bpil_view *v, __u32 *len)
{
	*len = v->info.jited_prog_len;
	return array(v, BPIL_JITED_INSNS, 0);
}

void kt_bpil_func(const struct kt_bpil_view *v, __u32 i, __u64 *addr, __u32 *len, __u32 *off)
{
	__u32 j, l;

	memcpy(addr, array(v, BPIL_JITED_KSYMS, i), 8);
	memcpy(len, array(v, BPIL_JITED_FUNC_LENS, i), 4);
	if (!off)
		return;
	/* The kernel copies the functions' images one after the other, in
	 * func[] order (bpf_prog_get_info_by_fd()). */
	for (*off = 0, j = 0; j < i; j++) {
		memcpy(&l, array(v, BPIL_JITED_FUNC_LENS, j), 4);
		*off += l;
	}
}

void kt_bpil_linfo(const struct kt_bpil_view *v, __u32 i, struct bpf_line_info *li, __u64 *jaddr)
{
	memcpy(li, array(v, BPIL_LINE_INFO, i), sizeof(*li));
	memcpy(jaddr, array(v, BPIL_JITED_LINE_INFO, i), 8);
}
