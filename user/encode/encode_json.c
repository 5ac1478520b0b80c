// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JSON lines.  Kernel symbol names are bytes, not text: valid UTF-8 passes
 * through, control characters and bytes that are not valid UTF-8 are escaped
 * as \u00XX (the byte's value), so every line is valid JSON and a name
 * round-trips byte for byte through a Latin-1 reading of those escapes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "encode/digits.h"
#include "encode/encode.h"

struct jbuf {
	char *p;
	size_t size;
	size_t len;
	bool full;
};

/* Appends, leaving room for the NUL jend() writes. */
static inline __attribute__((always_inline)) void jput(struct jbuf *b, const char *s, size_t n)
{
	if (b->full || b->len + n >= b->size) {
		b->full = true;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

#define JLIT(b, lit) jput(b, lit, sizeof(lit) - 1)

static ssize_t jend(struct jbuf *b)
{
	if (b->full)
		return -ENOSPC;
	b->p[b->len] = 0;
	return (ssize_t)b->len;
}

/* "%llu", "%d" and "%llx" without printf (encode/digits.h). */
static inline __attribute__((always_inline)) void ju(struct jbuf *b, unsigned long long v)
{
	char tmp[24], *q = dec(tmp, v);

	jput(b, q, tmp + 24 - q);
}

static inline __attribute__((always_inline)) void jd(struct jbuf *b, int v)
{
	if (v < 0)
		JLIT(b, "-");
	ju(b, v < 0 ? -(long long)v : v);
}

static inline __attribute__((always_inline)) void jx(struct jbuf *b, unsigned long long v)
{
	char tmp[16];

	jput(b, tmp, put_x(tmp, v) - tmp);
}

/* A constant string's value: "\"s\"". */
static inline __attribute__((always_inline)) void jname(struct jbuf *b, const char *s)
{
	JLIT(b, "\"");
	jput(b, s, strlen(s));
	JLIT(b, "\"");
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not one. */
static int utf8_seq(const unsigned char *s)
{
	int n, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/* Bytes that pass through as they are: printable ASCII but '"' and '\\'. */
static const unsigned char plain_tab[256] = { [0x20 ... 0x21] = 1,
					      [0x23 ... 0x5b] = 1,
					      [0x5d ... 0x7e] = 1 };

static inline bool plain(unsigned char c)
{
	return plain_tab[c];
}

static void jstr(struct jbuf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	char esc[8];
	size_t run;
	int n;

	JLIT(b, "\"");
	for (;;) {
		/* The common case, a whole name of plain bytes, in one copy. */
		for (run = 0; plain(s[run]); run++)
			;
		jput(b, (const char *)s, run);
		s += run;
		if (!*s)
			break;
		if (*s == '"' || *s == '\\') {
			esc[0] = '\\';
			esc[1] = *s;
			jput(b, esc, 2);
			s++;
			continue;
		}
		n = *s < 0x80 ? 0 : utf8_seq(s);
		if (!n) {
			snprintf(esc, sizeof(esc), "\\u%04x", *s);
			jput(b, esc, 6);
			s++;
			continue;
		}
		jput(b, (const char *)s, n);
		s += n;
	}
	JLIT(b, "\"");
}

ssize_t kt_json_str(char *buf, size_t size, const char *s)
{
	struct jbuf b = { .p = buf, .size = size };

	jstr(&b, s);
	return jend(&b);
}

static const char *bpf_type_name(unsigned int t)
{
	switch (t) {
	case KT_BPF_EVENT_PROG_LOAD:
		return "prog_load";
	case KT_BPF_EVENT_PROG_UNLOAD:
		return "prog_unload";
	default:
		return "unknown";
	}
}

static const char *origin_name(unsigned int o)
{
	switch (o) {
	case KT_ORIGIN_BPF:
		return "bpf";
	case KT_ORIGIN_NATIVE:
		return "native";
	case KT_ORIGIN_SNAPSHOT:
		return "snapshot";
	case KT_ORIGIN_SERVE:
		return "serve";
	case KT_ORIGIN_RESYNC:
		return "resync";
	case KT_ORIGIN_QUEUE:
		return "queue";
	default:
		return "unknown";
	}
}

static void jstr_or_null(struct jbuf *b, const char *s)
{
	if (s && *s)
		jstr(b, s);
	else
		JLIT(b, "null");
}

/* The cgroup's path and what it says; null where unknown (user/record/attrib.h). */
static void jattrib(struct jbuf *b, const struct kt_attrib *a)
{
	JLIT(b, ",\"cgroup_path\":");
	jstr_or_null(b, a ? a->path : NULL);
	JLIT(b, ",\"container_runtime\":");
	jstr_or_null(b, a && a->path ? a->c.runtime : NULL);
	JLIT(b, ",\"container_id\":");
	jstr_or_null(b, a && a->path ? a->c.container_id : NULL);
	JLIT(b, ",\"pod_uid\":");
	jstr_or_null(b, a && a->path ? a->c.pod_uid : NULL);
}

static const char *ksym_module(const struct kt_record *r)
{
	if (r->ksym_type == KT_KSYM_TYPE_BPF)
		return "\"bpf\"";
	if (r->source == KT_SRC_FTRACE)
		return "\"__builtin__ftrace\"";
	if (r->source == KT_SRC_KPROBE)
		return "\"__builtin__kprobes\"";
	return "null";
}

/* What every record says: its kind, its task, where it came from. */
static void jhead(struct jbuf *b, const struct kt_record *r)
{
	bool none = r->rflags & KT_RF_NO_TASK;

	JLIT(b, "{\"kind\":");
	jname(b, kt_record_kind_name(r->type));
	JLIT(b, ",\"time\":");
	ju(b, r->time);
	JLIT(b, ",\"cpu\":");
	ju(b, r->cpu);
	JLIT(b, ",\"pid\":");
	jd(b, none ? -1 : (int)r->pid);
	JLIT(b, ",\"tid\":");
	jd(b, none ? -1 : (int)r->tid);
	JLIT(b, ",\"comm\":");
	jstr(b, r->comm);
	JLIT(b, ",\"cgroup_id\":");
	ju(b, r->cgroup_id);
	JLIT(b, ",\"identity\":");
	jname(b, none ? "none" : (r->rflags & KT_RF_LOADER_IDENTITY) ? "loader" : "current");
	if (r->rflags & KT_RF_SNAPSHOT)
		JLIT(b, ",\"snapshot\":true,\"origin\":");
	else
		JLIT(b, ",\"snapshot\":false,\"origin\":");
	jname(b, origin_name(r->origin));
	if (r->type != KT_RECORD_LOST)
		jattrib(b, r->attrib);
}

static void jksymbol(struct jbuf *b, const struct kt_record *r)
{
	JLIT(b, ",\"source\":");
	jname(b, kt_source_name(r->source));
	JLIT(b, ",\"addr\":\"0x");
	jx(b, r->addr);
	JLIT(b, "\",\"len\":");
	ju(b, r->len);
	JLIT(b, ",\"ksym_type\":");
	ju(b, r->ksym_type);
	JLIT(b, ",\"ksym_type_name\":");
	jname(b, kt_ksym_type_name(r->ksym_type));
	JLIT(b, ",\"flags\":");
	ju(b, r->flags);
	if (r->flags & KT_KSYM_FLAG_UNREGISTER)
		JLIT(b, ",\"unregister\":true,\"name\":");
	else
		JLIT(b, ",\"unregister\":false,\"name\":");
	jstr(b, r->name);
	/* What kallsyms shows in brackets, and for program images their
	 * program: the module-like name per program of the 2018 design. */
	JLIT(b, ",\"module\":");
	jput(b, ksym_module(r), strlen(ksym_module(r)));
	if (r->source == KT_SRC_BPF_PROG && r->prog_id) {
		JLIT(b, ",\"prog_id\":");
		ju(b, r->prog_id);
	} else {
		JLIT(b, ",\"prog_id\":null");
	}
}

static void jbpf_event(struct jbuf *b, const struct kt_record *r)
{
	static const char hex[] = "0123456789abcdef";
	char tag[2 * KT_TAG_SIZE];
	int i;

	JLIT(b, ",\"source\":");
	jname(b, kt_source_name(r->source));
	JLIT(b, ",\"type\":");
	ju(b, r->bpf_type);
	JLIT(b, ",\"type_name\":");
	jname(b, bpf_type_name(r->bpf_type));
	JLIT(b, ",\"flags\":");
	ju(b, r->bpf_flags);
	JLIT(b, ",\"id\":");
	ju(b, r->prog_id);
	for (i = 0; i < KT_TAG_SIZE; i++) {
		tag[2 * i] = hex[r->tag[i] >> 4];
		tag[2 * i + 1] = hex[r->tag[i] & 15];
	}
	JLIT(b, ",\"tag\":\"");
	jput(b, tag, sizeof(tag));
	JLIT(b, "\",\"prog_name\":");
	jstr(b, r->name);
}

ssize_t kt_encode_json(const struct kt_record *r, char *buf, size_t size)
{
	struct jbuf b = { .p = buf, .size = size };

	if (size)
		buf[0] = 0;
	if (r->type != KT_RECORD_KSYMBOL && r->type != KT_RECORD_BPF_EVENT &&
	    r->type != KT_RECORD_LOST)
		return -EINVAL;
	jhead(&b, r);
	if (r->type == KT_RECORD_KSYMBOL) {
		jksymbol(&b, r);
	} else if (r->type == KT_RECORD_BPF_EVENT) {
		jbpf_event(&b, r);
	} else {
		JLIT(&b, ",\"lost\":");
		ju(&b, r->lost);
	}
	JLIT(&b, "}\n");
	return jend(&b);
}
