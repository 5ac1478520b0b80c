// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Records as OTLP log records (otlp_logs.h; the attribute table is
 * docs/otlp.md's).  Names follow OpenTelemetry's semantic conventions where
 * they have one (process.pid, thread.id, process.executable.name,
 * container.id, k8s.pod.uid, cpu.logical_number); the rest are ksymtap.*.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "opentelemetry/proto/collector/logs/v1/logs_service.pb-c.h"
#include "util/base.h"
#include "encode/digits.h"
#include "encode/encode.h"
#include "encode/json_writer.h"
#include "encode/otlp_logs.h"
#include "encode/pb_json.h"

typedef Opentelemetry__Proto__Common__V1__KeyValue kv_t;
typedef Opentelemetry__Proto__Common__V1__AnyValue av_t;
typedef Opentelemetry__Proto__Logs__V1__LogRecord lr_t;

#define MAX_ATTRS 32
#define TEXT_MAX (KT_NAME_MAX + 256)

/* One log record's messages and the strings only it holds. */
struct node {
	lr_t lr;
	av_t body;
	kv_t kv[MAX_ATTRS];
	kv_t *kvp[MAX_ATTRS];
	av_t av[MAX_ATTRS];
	char addr[24], tag[2 * KT_TAG_SIZE + 1];
	char text[TEXT_MAX];
};

void kt_otlp_entry_fill(struct kt_otlp_entry *e, const struct kt_record *r, __s64 wall_off,
			__u64 seq, __u64 now)
{
	const struct kt_attrib *a = r->attrib;

	memcpy(&e->r, r, sizeof(*r));
	e->r.attrib = NULL;
	e->seq = seq;
	/* Time 0 (the snapshot's, as perf's synthesized records): unknown,
	 * which OTLP also says with 0. */
	e->time_unix_nano = r->time ? (__u64)((__s64)r->time + wall_off) : 0;
	e->observed_unix_nano = now;
	e->have_attrib = a && a->path;
	e->cgroup_path[0] = e->runtime[0] = e->container_id[0] = e->pod_uid[0] = '\0';
	if (!e->have_attrib)
		return;
	snprintf(e->cgroup_path, sizeof(e->cgroup_path), "%s", a->path);
	snprintf(e->runtime, sizeof(e->runtime), "%s", a->c.runtime ? a->c.runtime : "");
	memcpy(e->container_id, a->c.container_id, sizeof(e->container_id));
	memcpy(e->pod_uid, a->c.pod_uid, sizeof(e->pod_uid));
}

const char *kt_otlp_event_name(const struct kt_record *r)
{
	switch (r->type) {
	case KT_RECORD_KSYMBOL:
		return r->flags & KT_KSYM_FLAG_UNREGISTER ? "ksymtap.ksymbol.unregister" :
							    "ksymtap.ksymbol.register";
	case KT_RECORD_BPF_EVENT:
		return r->bpf_type == KT_BPF_EVENT_PROG_UNLOAD ? "ksymtap.bpf.prog_unload" :
								 "ksymtap.bpf.prog_load";
	default:
		return "ksymtap.lost";
	}
}

static av_t *next_av(struct node *n, const char *key)
{
	size_t i = n->lr.n_attributes++;
	static const av_t av0 = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__INIT;
	static const kv_t kv0 = OPENTELEMETRY__PROTO__COMMON__V1__KEY_VALUE__INIT;

	n->kv[i] = kv0;
	n->av[i] = av0;
	n->kv[i].key = (char *)key;
	n->kv[i].value = &n->av[i];
	n->kvp[i] = &n->kv[i];
	return &n->av[i];
}

/* Empty strings are left out, as unknown. */
static void attr_str(struct node *n, const char *key, const char *v)
{
	av_t *av;

	if (!v || !*v)
		return;
	av = next_av(n, key);
	av->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
	av->string_value = (char *)v;
}

static void attr_int(struct node *n, const char *key, long long v)
{
	av_t *av = next_av(n, key);

	av->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE;
	av->int_value = v;
}

static void attr_bool(struct node *n, const char *key, bool v)
{
	av_t *av = next_av(n, key);

	av->value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_BOOL_VALUE;
	av->bool_value = v;
}

/* Who, where from, and the cgroup it ran in: every record's. */
static void attrs_task(struct node *n, const struct kt_otlp_entry *e)
{
	const struct kt_record *r = &e->r;
	bool none = r->rflags & KT_RF_NO_TASK;

	attr_int(n, "ksymtap.seq", (long long)e->seq);
	/* perf's clock, as the node's own answers take it (resolve --at). */
	if (r->time)
		attr_int(n, "ksymtap.time", (long long)r->time);
	attr_str(n, "ksymtap.origin", kt_origin_name(r->origin));
	attr_bool(n, "ksymtap.snapshot", r->rflags & KT_RF_SNAPSHOT);
	attr_int(n, "cpu.logical_number", r->cpu);
	attr_str(n, "ksymtap.identity",
		 none				     ? "none" :
		 (r->rflags & KT_RF_LOADER_IDENTITY) ? "loader" :
						       "current");
	if (!none) {
		attr_int(n, "process.pid", r->pid);
		attr_int(n, "thread.id", r->tid);
		attr_str(n, "process.executable.name", r->comm);
	}
	if (r->type == KT_RECORD_LOST)
		return;
	attr_int(n, "ksymtap.cgroup.id", (long long)r->cgroup_id);
	if (!e->have_attrib)
		return;
	attr_str(n, "ksymtap.cgroup.path", e->cgroup_path);
	attr_str(n, "container.runtime.name", e->runtime);
	attr_str(n, "container.id", e->container_id);
	attr_str(n, "k8s.pod.uid", e->pod_uid);
}

static void attrs_ksymbol(struct node *n, const struct kt_record *r)
{
	snprintf(n->addr, sizeof(n->addr), "0x%llx", (unsigned long long)r->addr);
	attr_str(n, "ksymtap.symbol.source", kt_source_name(r->source));
	attr_str(n, "ksymtap.symbol.addr", n->addr);
	attr_int(n, "ksymtap.symbol.len", r->len);
	attr_int(n, "ksymtap.symbol.type", r->ksym_type);
	attr_str(n, "ksymtap.symbol.type_name", kt_ksym_type_name(r->ksym_type));
	attr_int(n, "ksymtap.symbol.flags", r->flags);
	attr_bool(n, "ksymtap.symbol.unregister", r->flags & KT_KSYM_FLAG_UNREGISTER);
	attr_str(n, "ksymtap.symbol.name", r->name);
	attr_str(n, "ksymtap.symbol.module", kt_ksym_module(r));
	if (r->source == KT_SRC_BPF_PROG && r->prog_id)
		attr_int(n, "ksymtap.bpf.prog.id", r->prog_id);
}

static void attrs_bpf_event(struct node *n, const struct kt_record *r)
{
	*put_hex_bytes(n->tag, r->tag, KT_TAG_SIZE) = '\0';
	attr_str(n, "ksymtap.bpf.source", kt_source_name(r->source));
	attr_int(n, "ksymtap.bpf.event.type", r->bpf_type);
	attr_str(n, "ksymtap.bpf.event.type_name", kt_bpf_event_type_name(r->bpf_type));
	attr_int(n, "ksymtap.bpf.event.flags", r->bpf_flags);
	attr_int(n, "ksymtap.bpf.prog.id", r->prog_id);
	attr_str(n, "ksymtap.bpf.prog.tag", n->tag);
	attr_str(n, "ksymtap.bpf.prog.name", r->name);
}

static void fill_node(struct node *n, const struct kt_otlp_entry *e)
{
	static const lr_t lr0 = OPENTELEMETRY__PROTO__LOGS__V1__LOG_RECORD__INIT;
	static const av_t av0 = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__INIT;
	const struct kt_record *r = &e->r;
	ssize_t len;

	n->lr = lr0;
	n->lr.time_unix_nano = e->time_unix_nano;
	n->lr.observed_time_unix_nano = e->observed_unix_nano;
	n->lr.severity_number =
		r->type == KT_RECORD_LOST ?
			OPENTELEMETRY__PROTO__LOGS__V1__SEVERITY_NUMBER__SEVERITY_NUMBER_WARN :
			OPENTELEMETRY__PROTO__LOGS__V1__SEVERITY_NUMBER__SEVERITY_NUMBER_INFO;
	n->lr.severity_text = r->type == KT_RECORD_LOST ? "WARN" : "INFO";
	n->lr.event_name = (char *)kt_otlp_event_name(r);
	/* The body: the line `perf script --show-bpf-events` prints. */
	len = kt_encode_text(r, n->text, sizeof(n->text));
	if (len > 0 && n->text[len - 1] == '\n')
		n->text[len - 1] = '\0';
	n->body = av0;
	n->body.value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
	n->body.string_value = len > 0 ? n->text : "";
	n->lr.body = &n->body;
	n->lr.attributes = n->kvp;
	attrs_task(n, e);
	if (r->type == KT_RECORD_KSYMBOL)
		attrs_ksymbol(n, r);
	else if (r->type == KT_RECORD_BPF_EVENT)
		attrs_bpf_event(n, r);
	else
		attr_int(n, "ksymtap.lost", (long long)r->lost);
}

/* The request's messages around the log records. */
struct tree {
	Opentelemetry__Proto__Collector__Logs__V1__ExportLogsServiceRequest req;
	Opentelemetry__Proto__Logs__V1__ResourceLogs rl, *rlp;
	Opentelemetry__Proto__Resource__V1__Resource res;
	Opentelemetry__Proto__Logs__V1__ScopeLogs sl, *slp;
	Opentelemetry__Proto__Common__V1__InstrumentationScope scope;
	kv_t *rkvp[64];
	kv_t rkv[64];
	av_t rav[64];
	lr_t **lrp;
	struct node *nodes;
};

static int build(struct tree *t, const struct kt_otlp_entry *e, size_t n,
		 const struct kt_otlp_resource *res)
{
	static const struct tree t0 = {
		.req = OPENTELEMETRY__PROTO__COLLECTOR__LOGS__V1__EXPORT_LOGS_SERVICE_REQUEST__INIT,
		.rl = OPENTELEMETRY__PROTO__LOGS__V1__RESOURCE_LOGS__INIT,
		.res = OPENTELEMETRY__PROTO__RESOURCE__V1__RESOURCE__INIT,
		.sl = OPENTELEMETRY__PROTO__LOGS__V1__SCOPE_LOGS__INIT,
		.scope = OPENTELEMETRY__PROTO__COMMON__V1__INSTRUMENTATION_SCOPE__INIT,
	};
	static const av_t av0 = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__INIT;
	static const kv_t kv0 = OPENTELEMETRY__PROTO__COMMON__V1__KEY_VALUE__INIT;
	size_t i;

	*t = t0;
	t->nodes = calloc(n ? n : 1, sizeof(*t->nodes));
	t->lrp = calloc(n ? n : 1, sizeof(*t->lrp));
	if (!t->nodes || !t->lrp)
		return -ENOMEM;
	for (i = 0; i < res->n && i < ARRAY_SIZE(t->rkv); i++) {
		t->rkv[i] = kv0;
		t->rav[i] = av0;
		t->rkv[i].key = (char *)res->attrs[i].key;
		t->rav[i].value_case =
			OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
		t->rav[i].string_value = (char *)res->attrs[i].value;
		t->rkv[i].value = &t->rav[i];
		t->rkvp[i] = &t->rkv[i];
	}
	t->res.n_attributes = i;
	t->res.attributes = t->rkvp;
	t->scope.name = "ksymtap";
	t->scope.version = (char *)res->version;
	for (i = 0; i < n; i++) {
		fill_node(&t->nodes[i], &e[i]);
		t->lrp[i] = &t->nodes[i].lr;
	}
	t->sl.scope = &t->scope;
	t->sl.n_log_records = n;
	t->sl.log_records = t->lrp;
	t->slp = &t->sl;
	t->rl.resource = &t->res;
	t->rl.n_scope_logs = 1;
	t->rl.scope_logs = &t->slp;
	t->rlp = &t->rl;
	t->req.n_resource_logs = 1;
	t->req.resource_logs = &t->rlp;
	return 0;
}

static ssize_t pack(struct tree *t, enum kt_otlp_protocol proto, char **out)
{
	struct kt_jw w;
	ssize_t len;

	if (proto == KT_OTLP_PROTOBUF) {
		len = opentelemetry__proto__collector__logs__v1__export_logs_service_request__get_packed_size(
			&t->req);
		*out = malloc(len ? len : 1);
		if (!*out)
			return -ENOMEM;
		return opentelemetry__proto__collector__logs__v1__export_logs_service_request__pack(
			&t->req, (uint8_t *)*out);
	}
	kt_jw_init_dyn(&w);
	kt_pb_json(&w, &t->req.base);
	len = kt_jw_end(&w);
	if (len < 0) {
		kt_jw_free(&w);
		return len;
	}
	*out = w.p;
	return len;
}

ssize_t kt_otlp_encode(const struct kt_otlp_entry *e, size_t n, const struct kt_otlp_resource *res,
		       enum kt_otlp_protocol proto, char **out)
{
	struct tree *t = malloc(sizeof(*t));
	ssize_t len;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	len = build(t, e, n, res);
	if (!len)
		len = pack(t, proto, out);
	free(t->nodes);
	free(t->lrp);
	free(t);
	return len;
}

/* OTLP/JSON's answer: {"partialSuccess":{"rejectedLogRecords":"2",
 * "errorMessage":"..."}} (int64 as a string or a number), read with json-c. */
static int parse_json_response(const char *body, size_t len, long long *rejected, char *msg,
			       size_t msg_size)
{
	json_tokener *tok = json_tokener_new();
	json_object *o = tok ? json_tokener_parse_ex(tok, body, len) : NULL, *ps, *v;
	int err = o && json_object_is_type(o, json_type_object) ? 0 : -EBADMSG;

	if (!err && json_object_object_get_ex(o, "partialSuccess", &ps)) {
		if (json_object_object_get_ex(ps, "rejectedLogRecords", &v))
			*rejected = json_object_get_int64(v);
		if (json_object_object_get_ex(ps, "errorMessage", &v))
			snprintf(msg, msg_size, "%s", json_object_get_string(v));
	}
	json_object_put(o);
	if (tok)
		json_tokener_free(tok);
	return tok ? err : -ENOMEM;
}

int kt_otlp_parse_response(const void *body, size_t len, enum kt_otlp_protocol proto,
			   long long *rejected, char *msg, size_t msg_size)
{
	Opentelemetry__Proto__Collector__Logs__V1__ExportLogsServiceResponse *r;

	*rejected = 0;
	if (msg_size)
		msg[0] = '\0';
	if (!len)
		return 0;
	if (proto == KT_OTLP_JSON)
		return parse_json_response(body, len, rejected, msg, msg_size);
	r = opentelemetry__proto__collector__logs__v1__export_logs_service_response__unpack(
		NULL, len, body);
	if (!r)
		return -EBADMSG;
	if (r->partial_success) {
		*rejected = r->partial_success->rejected_log_records;
		snprintf(msg, msg_size, "%s",
			 r->partial_success->error_message ? r->partial_success->error_message :
							     "");
	}
	opentelemetry__proto__collector__logs__v1__export_logs_service_response__free_unpacked(
		r, NULL);
	return 0;
}
