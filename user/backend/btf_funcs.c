// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which of a few kernel functions the kernel's BTF has, in one pass over the
 * raw type section.  btf__load_vmlinux_btf() would index and check every type
 * first, and btf__find_by_name_kind() then scans them all once per name: 0.25 s
 * of the loader's start-up in the bench VMs, while libbpf parses the same BTF
 * again for the load itself (BENCHMARKS.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/btf.h>
#include "util/fileio.h"
#include "backend/btf_funcs.h"

/* Bytes after struct btf_type, by kind; -1: a kind this code does not know. */
static long extra_bytes(const struct btf_type *t)
{
	__u32 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		return sizeof(__u32);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	default:
		return -1;
	}
}

/* A name's first two bytes (one, and its NUL, for a name of one): compared
 * before strcmp(), the scan calls it for a few hundred of the kernel's
 * ~60,000 functions instead of for each against each name (under TCG the
 * calls were most of the scan's time, BENCHMARKS.md). */
static __u16 head(const char *s)
{
	return (unsigned char)s[0] | (s[0] ? (unsigned char)s[1] << 8 : 0);
}

int kt_btf_find_funcs(const char *path, const char *const *names, int n, bool *found)
{
	const struct btf_header *h;
	const char *types, *strs, *p, *end, *name;
	const struct btf_type *t;
	char *buf = NULL;
	size_t size = 0;
	__u16 keys[KT_BTF_FIND_MAX], k;
	long extra = 0;
	int err, i;

	err = kt_read_file(path, 8 << 20, &buf, &size);
	if (err)
		return err;
	err = -EPROTO;
	h = (const void *)buf;
	if (size < sizeof(*h) || h->magic != BTF_MAGIC || h->hdr_len > size ||
	    (size_t)h->type_off + h->type_len > size - h->hdr_len ||
	    (size_t)h->str_off + h->str_len > size - h->hdr_len || !h->str_len ||
	    buf[h->hdr_len + h->str_off + h->str_len - 1])
		goto out;
	types = buf + h->hdr_len + h->type_off;
	strs = buf + h->hdr_len + h->str_off;
	if (n > KT_BTF_FIND_MAX) {
		err = -E2BIG;
		goto out;
	}
	for (i = 0; i < n; i++) {
		found[i] = false;
		keys[i] = head(names[i]);
	}
	for (p = types, end = types + h->type_len; p < end; p += extra) {
		if ((size_t)(end - p) < sizeof(*t))
			goto out;
		t = (const void *)p;
		p += sizeof(*t);
		extra = extra_bytes(t);
		if (extra < 0 || extra > end - p)
			goto out;
		if (BTF_INFO_KIND(t->info) != BTF_KIND_FUNC || t->name_off >= h->str_len)
			continue;
		name = strs + t->name_off;
		k = head(name);
		for (i = 0; i < n; i++)
			if (!found[i] && keys[i] == k && !strcmp(name, names[i]))
				found[i] = true;
	}
	err = 0;
out:
	free(buf);
	return err;
}
