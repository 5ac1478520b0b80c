// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JSON lines.  Kernel symbol names are bytes, not text: valid UTF-8 passes
 * through, control characters and bytes that are not valid UTF-8 are escaped
 * as \u00XX (the byte's value), so every line is valid JSON and a name
 * round-trips byte for byte through a Latin-1 reading of those escapes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "encode/encode.h"

struct jbuf {
	char *p;
	size_t size;
	size_t len;
	bool full;
};

static void jput(struct jbuf *b, const char *s, size_t n)
{
	if (b->full || b->len + n >= b->size) {
		b->full = true;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void jprintf(struct jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jprintf(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->size - b->len) {
		b->full = true;
		return;
	}
	b->len += n;
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

static void jstr(struct jbuf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	char esc[8];
	int n;

	jput(b, "\"", 1);
	while (*s) {
		if (*s == '"' || *s == '\\') {
			esc[0] = '\\';
			esc[1] = *s;
			jput(b, esc, 2);
			s++;
			continue;
		}
		if (*s < 0x20 || *s == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", *s);
			jput(b, esc, 6);
			s++;
			continue;
		}
		n = utf8_seq(s);
		if (!n) {
			snprintf(esc, sizeof(esc), "\\u%04x", *s);
			jput(b, esc, 6);
			s++;
			continue;
		}
		jput(b, (const char *)s, n);
		s += n;
	}
	jput(b, "\"", 1);
}

ssize_t kt_json_str(char *buf, size_t size, const char *s)
{
	struct jbuf b = { .p = buf, .size = size };

	jstr(&b, s);
	return b.full ? -ENOSPC : (ssize_t)b.len;
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
	default:
		return "unknown";
	}
}

static void jstr_or_null(struct jbuf *b, const char *s)
{
	if (s && *s)
		jstr(b, s);
	else
		jput(b, "null", 4);
}

/* The cgroup's path and what it says; null where unknown (user/record/attrib.h). */
static void jattrib(struct jbuf *b, const struct kt_attrib *a)
{
	jput(b, ",\"cgroup_path\":", 15);
	jstr_or_null(b, a ? a->path : NULL);
	jput(b, ",\"container_runtime\":", 21);
	jstr_or_null(b, a && a->path ? a->c.runtime : NULL);
	jput(b, ",\"container_id\":", 16);
	jstr_or_null(b, a && a->path ? a->c.container_id : NULL);
	jput(b, ",\"pod_uid\":", 11);
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
	jprintf(b, "{\"kind\":\"%s\",\"time\":%" PRIu64 ",\"cpu\":%u,\"pid\":%d,\"tid\":%d,",
		kt_record_kind_name(r->type), (uint64_t)r->time, r->cpu,
		(r->rflags & KT_RF_NO_TASK) ? -1 : (int)r->pid,
		(r->rflags & KT_RF_NO_TASK) ? -1 : (int)r->tid);
	jput(b, "\"comm\":", 7);
	jstr(b, r->comm);
	jprintf(b,
		",\"cgroup_id\":%" PRIu64 ",\"identity\":\"%s\",\"snapshot\":%s,\"origin\":\"%s\"",
		(uint64_t)r->cgroup_id,
		(r->rflags & KT_RF_NO_TASK)	    ? "none" :
		(r->rflags & KT_RF_LOADER_IDENTITY) ? "loader" :
						      "current",
		(r->rflags & KT_RF_SNAPSHOT) ? "true" : "false", origin_name(r->origin));
	if (r->type != KT_RECORD_LOST)
		jattrib(b, r->attrib);
}

static void jksymbol(struct jbuf *b, const struct kt_record *r)
{
	jprintf(b,
		",\"source\":\"%s\",\"addr\":\"0x%" PRIx64
		"\",\"len\":%u,\"ksym_type\":%u,\"ksym_type_name\":\"%s\",\"flags\":%u,"
		"\"unregister\":%s,\"name\":",
		kt_source_name(r->source), (uint64_t)r->addr, r->len, r->ksym_type,
		kt_ksym_type_name(r->ksym_type), r->flags,
		(r->flags & KT_KSYM_FLAG_UNREGISTER) ? "true" : "false");
	jstr(b, r->name);
	/* What kallsyms shows in brackets, and for program images their
	 * program: the module-like name per program of the 2018 design. */
	jprintf(b, ",\"module\":%s", ksym_module(r));
	if (r->source == KT_SRC_BPF_PROG && r->prog_id)
		jprintf(b, ",\"prog_id\":%u", r->prog_id);
	else
		jput(b, ",\"prog_id\":null", 15);
}

static void jbpf_event(struct jbuf *b, const struct kt_record *r)
{
	int i;

	jprintf(b,
		",\"source\":\"%s\",\"type\":%u,\"type_name\":\"%s\",\"flags\":%u,"
		"\"id\":%u,\"tag\":\"",
		kt_source_name(r->source), r->bpf_type, bpf_type_name(r->bpf_type), r->bpf_flags,
		r->prog_id);
	for (i = 0; i < KT_TAG_SIZE; i++)
		jprintf(b, "%02x", r->tag[i]);
	jput(b, "\",\"prog_name\":", 14);
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
	if (r->type == KT_RECORD_KSYMBOL)
		jksymbol(&b, r);
	else if (r->type == KT_RECORD_BPF_EVENT)
		jbpf_event(&b, r);
	else
		jprintf(&b, ",\"lost\":%" PRIu64, (uint64_t)r->lost);
	jput(&b, "}\n", 2);
	return b.full ? -ENOSPC : (ssize_t)b.len;
}
