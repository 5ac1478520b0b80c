// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * OTLP/JSON read back (otlp_in.h) with json-c (Debian's libjson-c, linked
 * statically).  Each log record is turned back into the record it was made
 * from by the attribute table of docs/otlp.md (encode/otlp_logs.c writes
 * it); the attribution's strings are not kept (no answer uses them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "encode/encode.h"
#include "util/base.h"
#include "history/otlp_in.h"

struct node {
	char host[256], boot[64];
	size_t records;
};

struct entry {
	__u64 seq;
	size_t node;
	struct kt_record r;
};

struct reader {
	const struct kt_otlp_select *sel;
	struct node *nodes;
	size_t nn, ncap;
	/* Only the selected node's records are kept, and none once a second
	 * node matches (that is an error): a fleet's file may be large. */
	long kept_node;
	bool ambiguous;
	struct entry *e;
	size_t n, cap;
};

bool kt_otlp_file_is(const char *path)
{
	FILE *f = fopen(path, "re");
	int c;

	if (!f)
		return false;
	while ((c = getc(f)) == ' ' || c == '\n' || c == '\t' || c == '\r')
		;
	fclose(f);
	return c == '{';
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* An array's length: 0 for anything else (json-c asserts on a non-array). */
static size_t arr_len(json_object *o)
{
	return o && json_object_is_type(o, json_type_array) ? json_object_array_length(o) : 0;
}

/* An AnyValue's string, integer (OTLP/JSON writes 64-bit ones as strings)
 * or bool. */
static const char *any_str(json_object *av)
{
	json_object *v = get(av, "stringValue");

	return v ? json_object_get_string(v) : "";
}

static long long any_int(json_object *av)
{
	json_object *v = get(av, "intValue");

	if (!v)
		v = get(av, "boolValue");
	return v ? (long long)json_object_get_int64(v) : 0;
}

static unsigned int name_index(const char *(*name)(unsigned int), const char *s)
{
	for (unsigned int i = 0; i < 32; i++)
		if (!strcmp(name(i), s))
			return i;
	return 0;
}

static void hex_bytes(const char *s, __u8 *out, size_t n)
{
	for (size_t i = 0; i < n && s[2 * i] && s[2 * i + 1]; i++)
		sscanf(s + 2 * i, "%2hhx", &out[i]);
}

/* One attribute into the record (docs/otlp.md's table, read backwards). */
static void attr(struct entry *e, const char *key, json_object *av)
{
	struct kt_record *r = &e->r;
	const char *s = any_str(av);
	long long v = any_int(av);

	if (!strcmp(key, "ksymtap.seq"))
		e->seq = v;
	else if (!strcmp(key, "ksymtap.time"))
		r->time = v;
	else if (!strcmp(key, "ksymtap.origin"))
		r->origin = name_index(kt_origin_name, s);
	else if (!strcmp(key, "ksymtap.snapshot"))
		r->rflags |= v ? KT_RF_SNAPSHOT : 0;
	else if (!strcmp(key, "ksymtap.identity"))
		r->rflags |= !strcmp(s, "none")	  ? KT_RF_NO_TASK :
			     !strcmp(s, "loader") ? KT_RF_LOADER_IDENTITY :
						    0;
	else if (!strcmp(key, "cpu.logical_number"))
		r->cpu = v;
	else if (!strcmp(key, "process.pid"))
		r->pid = v;
	else if (!strcmp(key, "thread.id"))
		r->tid = v;
	else if (!strcmp(key, "process.executable.name"))
		snprintf(r->comm, sizeof(r->comm), "%s", s);
	else if (!strcmp(key, "ksymtap.cgroup.id"))
		r->cgroup_id = v;
	else if (!strcmp(key, "ksymtap.symbol.source") || !strcmp(key, "ksymtap.bpf.source"))
		r->source = name_index(kt_source_name, s);
	else if (!strcmp(key, "ksymtap.symbol.addr"))
		r->addr = strtoull(s, NULL, 16);
	else if (!strcmp(key, "ksymtap.symbol.len"))
		r->len = v;
	else if (!strcmp(key, "ksymtap.symbol.type"))
		r->ksym_type = v;
	else if (!strcmp(key, "ksymtap.symbol.flags"))
		r->flags = v;
	else if (!strcmp(key, "ksymtap.symbol.name") || !strcmp(key, "ksymtap.bpf.prog.name"))
		snprintf(r->name, sizeof(r->name), "%s", s);
	else if (!strcmp(key, "ksymtap.bpf.prog.id"))
		r->prog_id = v;
	else if (!strcmp(key, "ksymtap.bpf.event.type"))
		r->bpf_type = v;
	else if (!strcmp(key, "ksymtap.bpf.event.flags"))
		r->bpf_flags = v;
	else if (!strcmp(key, "ksymtap.bpf.prog.tag"))
		hex_bytes(s, r->tag, sizeof(r->tag));
	else if (!strcmp(key, "ksymtap.lost"))
		r->lost = v;
}

/* The record kind from the event name; 0: not one of ksymtap's. */
static __u32 kind_of(const char *event)
{
	if (!strncmp(event, "ksymtap.ksymbol.", 16))
		return KT_RECORD_KSYMBOL;
	if (!strncmp(event, "ksymtap.bpf.prog_", 17))
		return KT_RECORD_BPF_EVENT;
	if (!strcmp(event, "ksymtap.lost"))
		return KT_RECORD_LOST;
	return 0;
}

static bool selected(const struct kt_otlp_select *sel, const struct node *n)
{
	return (!sel->host || !strcmp(sel->host, n->host)) &&
	       (!sel->boot || !strcmp(sel->boot, n->boot));
}

/* Keep this node's records? */
static bool keep(struct reader *rd, size_t node)
{
	if (!selected(rd->sel, &rd->nodes[node]))
		return false;
	if (rd->kept_node < 0)
		rd->kept_node = node;
	if ((size_t)rd->kept_node != node && !rd->ambiguous) {
		rd->ambiguous = true;
		rd->n = 0;
	}
	return !rd->ambiguous;
}

static int add_record(struct reader *rd, size_t node, json_object *lr)
{
	json_object *ev = get(lr, "eventName"), *attrs = get(lr, "attributes"), *kv;
	__u32 kind = ev ? kind_of(json_object_get_string(ev)) : 0;
	struct entry *e;
	size_t i;

	if (!kind)
		return 0; /* another program's log record: not ours */
	rd->nodes[node].records++;
	if (!keep(rd, node))
		return 0;
	if (KT_GROW(rd->e, rd->cap, rd->n + 1))
		return -ENOMEM;
	e = &rd->e[rd->n++];
	memset(e, 0, sizeof(*e));
	e->node = node;
	e->r.type = kind;
	for (i = 0; i < arr_len(attrs); i++) {
		kv = json_object_array_get_idx(attrs, i);
		if (get(kv, "key"))
			attr(e, json_object_get_string(get(kv, "key")), get(kv, "value"));
	}
	return 0;
}

/* The resource's node: its index in rd->nodes (added if new), or -ENOMEM. */
static long node_of(struct reader *rd, json_object *res)
{
	json_object *attrs = get(res, "attributes"), *kv;
	const char *host = "", *boot = "", *key;
	size_t i;

	for (i = 0; i < arr_len(attrs); i++) {
		kv = json_object_array_get_idx(attrs, i);
		key = get(kv, "key") ? json_object_get_string(get(kv, "key")) : "";
		if (!strcmp(key, "host.name"))
			host = any_str(get(kv, "value"));
		else if (!strcmp(key, "ksymtap.boot.id"))
			boot = any_str(get(kv, "value"));
	}
	for (i = 0; i < rd->nn; i++)
		if (!strcmp(rd->nodes[i].host, host) && !strcmp(rd->nodes[i].boot, boot))
			return i;
	if (KT_GROW(rd->nodes, rd->ncap, rd->nn + 1))
		return -ENOMEM;
	memset(&rd->nodes[rd->nn], 0, sizeof(rd->nodes[0]));
	snprintf(rd->nodes[rd->nn].host, sizeof(rd->nodes[0].host), "%s", host);
	snprintf(rd->nodes[rd->nn].boot, sizeof(rd->nodes[0].boot), "%s", boot);
	return rd->nn++;
}

/* One line: an ExportLogsServiceRequest. */
static int add_request(struct reader *rd, json_object *req)
{
	json_object *rls = get(req, "resourceLogs"), *rl, *sls, *lrs;
	size_t i, j, k;
	long node;
	int err;

	if (!rls || !json_object_is_type(rls, json_type_array))
		return -EBADMSG;
	for (i = 0; i < arr_len(rls); i++) {
		rl = json_object_array_get_idx(rls, i);
		node = node_of(rd, get(rl, "resource"));
		if (node < 0)
			return (int)node;
		sls = get(rl, "scopeLogs");
		for (j = 0; j < arr_len(sls); j++) {
			lrs = get(json_object_array_get_idx(sls, j), "logRecords");
			for (k = 0; k < arr_len(lrs); k++) {
				err = add_record(rd, node, json_object_array_get_idx(lrs, k));
				if (err)
					return err;
			}
		}
	}
	return 0;
}

static int read_lines(struct reader *rd, const char *path, char *why, size_t why_size)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, no = 0;
	json_object *req;
	ssize_t len;
	int err = 0;

	if (!f)
		return err = -errno, snprintf(why, why_size, "%s: %s", path, strerror(-err)), err;
	while (!err && (len = getline(&line, &cap, f)) > 0) {
		no++;
		if (strspn(line, " \t\r\n") == (size_t)len)
			continue;
		req = json_tokener_parse(line);
		err = req ? add_request(rd, req) : -EBADMSG;
		json_object_put(req);
		if (err == -EBADMSG)
			snprintf(
				why, why_size,
				"%s:%zu: not an ExportLogsServiceRequest in OTLP/JSON (a Collector file exporter's line)",
				path, no);
	}
	free(line);
	fclose(f);
	if (err == -ENOMEM)
		snprintf(why, why_size, "%s: out of memory", path);
	return err;
}

/* The one node the selection names, or -ENOENT/-EEXIST with the nodes
 * listed in why. */
static long choose(const struct reader *rd, const char *path, char *why, size_t why_size)
{
	size_t i, match = 0, off;
	long chosen = -1;

	for (i = 0; i < rd->nn; i++) {
		if (rd->nodes[i].records && selected(rd->sel, &rd->nodes[i])) {
			match++;
			chosen = i;
		}
	}
	if (match == 1)
		return chosen;
	off = snprintf(why, why_size, "%s: %s; choose one with --host NAME or --boot ID:", path,
		       match ? "more than one node (host and boot) matches" :
			       "no node's records match");
	for (i = 0; i < rd->nn && off < why_size; i++)
		if (rd->nodes[i].records)
			off += snprintf(why + off, why_size - off, " %s (boot %s, %zu records)%s",
					rd->nodes[i].host, rd->nodes[i].boot, rd->nodes[i].records,
					i + 1 < rd->nn ? "," : "");
	return match ? -EEXIST : -ENOENT;
}

static int by_seq(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int kt_otlp_file_read(const char *path, const struct kt_otlp_select *sel, kt_emit_fn fn, void *ctx,
		      char *why, size_t why_size)
{
	struct reader rd = { .sel = sel, .kept_node = -1 };
	long node;
	size_t i;
	int err;

	err = read_lines(&rd, path, why, why_size);
	node = err ? err : choose(&rd, path, why, why_size);
	if (node >= 0) {
		/* Sent twice (a retry after a lost answer): once. */
		qsort(rd.e, rd.n, sizeof(*rd.e), by_seq);
		for (i = 0, err = 0; !err && i < rd.n; i++) {
			if (rd.e[i].node != (size_t)node || (i && rd.e[i - 1].seq == rd.e[i].seq))
				continue;
			err = fn(ctx, &rd.e[i].r);
		}
	}
	free(rd.e);
	free(rd.nodes);
	return node < 0 ? (int)node : err;
}
