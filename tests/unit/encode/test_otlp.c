// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Records as OTLP logs (user/encode/otlp_logs.h): the protobuf bytes read
 * back by protobuf-c, the JSON form by its rules, a collector's answers. */
#include <errno.h>
#include <stdlib.h>
#include "opentelemetry/proto/collector/logs/v1/logs_service.pb-c.h"
#include "encode/otlp_logs.h"
#include "unit.h"

static const struct kt_otlp_kv res_attrs[] = { { "service.name", "ksymtap" },
					       { "host.name", "node-1" } };
static const struct kt_otlp_resource res = { res_attrs, 2, "1.0" };

static void entry(struct kt_otlp_entry *e, unsigned int type)
{
	struct kt_record r = { 0 };

	r.type = type;
	r.time = 1000;
	r.pid = r.tid = 42;
	r.cpu = 1;
	snprintf(r.comm, sizeof(r.comm), "loader");
	r.addr = 0xffffffffc0001000ULL;
	r.len = 96;
	r.ksym_type = KT_KSYM_TYPE_BPF;
	r.source = KT_SRC_BPF_PROG;
	r.prog_id = 7;
	r.bpf_type = KT_BPF_EVENT_PROG_LOAD;
	r.tag[0] = 0xab;
	r.lost = 3;
	snprintf(r.name, sizeof(r.name), "bpf_prog_ab00000000000000_f");
	kt_otlp_entry_fill(e, &r, 5000, 99, 123456);
}

static const char *attr_str(const Opentelemetry__Proto__Logs__V1__LogRecord *lr, const char *key)
{
	size_t i;

	for (i = 0; i < lr->n_attributes; i++)
		if (!strcmp(lr->attributes[i]->key, key))
			return lr->attributes[i]->value->value_case ==
					       OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE ?
				       lr->attributes[i]->value->string_value :
				       "(not a string)";
	return NULL;
}

static long long attr_int(const Opentelemetry__Proto__Logs__V1__LogRecord *lr, const char *key)
{
	size_t i;

	for (i = 0; i < lr->n_attributes; i++)
		if (!strcmp(lr->attributes[i]->key, key))
			return lr->attributes[i]->value->int_value;
	return -1;
}

static void test_protobuf(void)
{
	Opentelemetry__Proto__Collector__Logs__V1__ExportLogsServiceRequest *req;
	Opentelemetry__Proto__Logs__V1__LogRecord *lr;
	struct kt_otlp_entry e[2];
	char *buf;
	ssize_t len;

	if (!unit_start("otlp_protobuf"))
		return;
	entry(&e[0], KT_RECORD_KSYMBOL);
	entry(&e[1], KT_RECORD_BPF_EVENT);
	len = kt_otlp_encode(e, 2, &res, KT_OTLP_PROTOBUF, &buf);
	ASSERT_TRUE(len > 0, "encoded");
	req = opentelemetry__proto__collector__logs__v1__export_logs_service_request__unpack(
		NULL, len, (uint8_t *)buf);
	if (ASSERT_TRUE(req && req->n_resource_logs == 1, "one ResourceLogs")) {
		ASSERT_EQ(req->resource_logs[0]->resource->n_attributes, 2, "resource attributes");
		ASSERT_EQ(req->resource_logs[0]->scope_logs[0]->n_log_records, 2, "log records");
		lr = req->resource_logs[0]->scope_logs[0]->log_records[0];
		ASSERT_STREQ(lr->event_name, "ksymtap.ksymbol.register", "event name");
		ASSERT_EQ(lr->time_unix_nano, 6000, "time on the wall clock");
		ASSERT_EQ(lr->observed_time_unix_nano, 123456, "observed");
		ASSERT_EQ(lr->severity_number, 9, "INFO");
		ASSERT_STREQ(attr_str(lr, "ksymtap.symbol.addr"), "0xffffffffc0001000", "addr");
		ASSERT_EQ(attr_int(lr, "ksymtap.seq"), 99, "sequence number");
		ASSERT_EQ(attr_int(lr, "process.pid"), 42, "pid");
		ASSERT_STREQ(attr_str(lr, "process.executable.name"), "loader", "comm");
		ASSERT_STREQ(attr_str(lr, "ksymtap.symbol.module"), "bpf", "module");
		ASSERT_TRUE(strstr(lr->body->string_value,
				   "PERF_RECORD_KSYMBOL addr ffffffffc0001000"),
			    "body: the text line");
		lr = req->resource_logs[0]->scope_logs[0]->log_records[1];
		ASSERT_STREQ(lr->event_name, "ksymtap.bpf.prog_load", "event name");
		ASSERT_STREQ(attr_str(lr, "ksymtap.bpf.prog.tag"), "ab00000000000000", "tag");
	}
	opentelemetry__proto__collector__logs__v1__export_logs_service_request__free_unpacked(req,
											      NULL);
	free(buf);
	unit_end();
}

static void test_json(void)
{
	struct kt_otlp_entry e;
	char *buf;
	ssize_t len;

	if (!unit_start("otlp_json"))
		return;
	entry(&e, KT_RECORD_LOST);
	e.r.rflags = KT_RF_NO_TASK | KT_RF_SNAPSHOT;
	e.r.time = 0;
	kt_otlp_entry_fill(&e, &e.r, 5000, 1, 2);
	len = kt_otlp_encode(&e, 1, &res, KT_OTLP_JSON, &buf);
	ASSERT_TRUE(len > 0, "encoded");
	ASSERT_STRSTR(buf,
		      "{\"resourceLogs\":[{\"resource\":{\"attributes\":[{\"key\":"
		      "\"service.name\",\"value\":{\"stringValue\":\"ksymtap\"}}",
		      "camelCase keys, the resource first");
	ASSERT_STRSTR(buf, "\"observedTimeUnixNano\":\"2\"", "64-bit integers as strings");
	ASSERT_TRUE(!strstr(buf, "\"timeUnixNano\""), "time 0 (unknown) left out");
	ASSERT_STRSTR(buf, "\"severityNumber\":13", "enums as integers (WARN)");
	ASSERT_STRSTR(buf, "\"eventName\":\"ksymtap.lost\"", "event name");
	ASSERT_STRSTR(buf, "{\"key\":\"ksymtap.snapshot\",\"value\":{\"boolValue\":true}}", "bool");
	ASSERT_STRSTR(buf, "{\"key\":\"ksymtap.lost\",\"value\":{\"intValue\":\"3\"}}", "lost");
	ASSERT_TRUE(!strstr(buf, "process.pid"), "no task: no pid");
	free(buf);
	unit_end();
}

static void test_response(void)
{
	Opentelemetry__Proto__Collector__Logs__V1__ExportLogsServiceResponse r =
		OPENTELEMETRY__PROTO__COLLECTOR__LOGS__V1__EXPORT_LOGS_SERVICE_RESPONSE__INIT;
	Opentelemetry__Proto__Collector__Logs__V1__ExportLogsPartialSuccess ps =
		OPENTELEMETRY__PROTO__COLLECTOR__LOGS__V1__EXPORT_LOGS_PARTIAL_SUCCESS__INIT;
	const char *json = "{\"partialSuccess\":{\"rejectedLogRecords\":\"5\","
			   "\"errorMessage\":\"too old\"}}";
	uint8_t buf[128];
	long long rejected;
	char msg[64];
	size_t len;

	if (!unit_start("otlp_response"))
		return;
	ps.rejected_log_records = 4;
	ps.error_message = "bad";
	r.partial_success = &ps;
	len = opentelemetry__proto__collector__logs__v1__export_logs_service_response__pack(&r,
											    buf);
	ASSERT_EQ(kt_otlp_parse_response(buf, len, KT_OTLP_PROTOBUF, &rejected, msg, sizeof(msg)),
		  0, "protobuf answer");
	ASSERT_EQ(rejected, 4, "rejected");
	ASSERT_STREQ(msg, "bad", "message");
	ASSERT_EQ(kt_otlp_parse_response(json, strlen(json), KT_OTLP_JSON, &rejected, msg,
					 sizeof(msg)),
		  0, "JSON answer");
	ASSERT_EQ(rejected, 5, "rejected, int64 as a string");
	ASSERT_STREQ(msg, "too old", "message");
	ASSERT_EQ(kt_otlp_parse_response("", 0, KT_OTLP_PROTOBUF, &rejected, msg, sizeof(msg)), 0,
		  "an empty answer: full success");
	ASSERT_EQ(rejected, 0, "none rejected");
	ASSERT_EQ(kt_otlp_parse_response("\xff\xff\xff", 3, KT_OTLP_PROTOBUF, &rejected, msg,
					 sizeof(msg)),
		  -EBADMSG, "garbage");
	unit_end();
}

/* An entry as the exporter's queue keeps it (KT_OTLP_ENTRY_LEN bytes)
 * still says everything about its container. */
static void test_entry_len(void)
{
	Opentelemetry__Proto__Collector__Logs__V1__ExportLogsServiceRequest *req;
	struct kt_attrib a = { .cgroup_id = 5, .path = "/kubepods/pod1/c1" };
	struct kt_otlp_entry e, *copy;
	struct kt_record r = { 0 };
	char *buf;
	ssize_t len;

	if (!unit_start("otlp_entry_len"))
		return;
	copy = malloc(sizeof(*copy));
	a.c.runtime = "containerd";
	snprintf(a.c.container_id, sizeof(a.c.container_id), "c1");
	snprintf(a.c.pod_uid, sizeof(a.c.pod_uid), "pod1");
	r.type = KT_RECORD_KSYMBOL;
	r.cgroup_id = 5;
	r.attrib = &a;
	kt_otlp_entry_fill(&e, &r, 0, 1, 1);
	memset(copy, 0xa5, sizeof(*copy));
	memcpy(copy, &e, KT_OTLP_ENTRY_LEN(&e));
	len = kt_otlp_encode(copy, 1, &res, KT_OTLP_PROTOBUF, &buf);
	req = opentelemetry__proto__collector__logs__v1__export_logs_service_request__unpack(
		NULL, len, (uint8_t *)buf);
	if (ASSERT_TRUE(req, "decoded")) {
		const Opentelemetry__Proto__Logs__V1__LogRecord *lr =
			req->resource_logs[0]->scope_logs[0]->log_records[0];

		ASSERT_STREQ(attr_str(lr, "ksymtap.cgroup.path"), "/kubepods/pod1/c1", "path");
		ASSERT_STREQ(attr_str(lr, "container.runtime.name"), "containerd", "runtime");
		ASSERT_STREQ(attr_str(lr, "container.id"), "c1", "container id");
		ASSERT_STREQ(attr_str(lr, "k8s.pod.uid"), "pod1", "pod uid");
	}
	opentelemetry__proto__collector__logs__v1__export_logs_service_request__free_unpacked(req,
											      NULL);
	free(buf);
	free(copy);
	unit_end();
}

int main(void)
{
	test_entry_len();
	test_protobuf();
	test_json();
	test_response();
	return unit_exit();
}
