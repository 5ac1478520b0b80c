// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The OTLP exporter's settings from the OTEL_* variables and
 * --otlp-endpoint (user/sink/otlp_config.h), as the specification gives
 * them. */
#include <errno.h>
#include <stdlib.h>
#include "sink/otlp_config.h"
#include "unit.h"

static const char *const vars[] = {
	"OTEL_EXPORTER_OTLP_ENDPOINT",
	"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
	"OTEL_EXPORTER_OTLP_PROTOCOL",
	"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
	"OTEL_EXPORTER_OTLP_HEADERS",
	"OTEL_EXPORTER_OTLP_LOGS_HEADERS",
	"OTEL_EXPORTER_OTLP_COMPRESSION",
	"OTEL_EXPORTER_OTLP_TIMEOUT",
	"OTEL_EXPORTER_OTLP_CERTIFICATE",
	"OTEL_RESOURCE_ATTRIBUTES",
	"OTEL_SERVICE_NAME",
	"OTEL_BLRP_MAX_EXPORT_BATCH_SIZE",
	"OTEL_BLRP_SCHEDULE_DELAY",
	"K8S_NODE_NAME",
	"OTEL_EXPORTER_OTLP_CLIENT_KEY",
	"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE",
};

static void clear(void)
{
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

static const char *res(const struct kt_otlp_config *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->resource.n; i++)
		if (!strcmp(c->res[i].key, key))
			return c->res[i].value;
	return NULL;
}

static void test_endpoints(void)
{
	struct kt_otlp_config c;
	char why[256];

	if (!unit_start("otlp_config_endpoints"))
		return;
	clear();
	ASSERT_EQ(kt_otlp_config_load(&c, NULL, why, sizeof(why)), 0, "nothing set");
	ASSERT_TRUE(!c.enabled, "off without an endpoint");
	setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318", 1);
	ASSERT_EQ(kt_otlp_config_load(&c, NULL, why, sizeof(why)), 0, "base URL");
	ASSERT_STREQ(c.url, "http://collector:4318/v1/logs", "the shared variable gets /v1/logs");
	setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/otlp/", 1);
	kt_otlp_config_load(&c, NULL, why, sizeof(why));
	ASSERT_STREQ(c.path, "/otlp/v1/logs", "appended to a base path");
	setenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://logs:9999/custom", 1);
	kt_otlp_config_load(&c, NULL, why, sizeof(why));
	ASSERT_STREQ(c.url, "http://logs:9999/custom", "the signal's own, as it is, wins");
	kt_otlp_config_load(&c, "http://127.0.0.1:4318", why, sizeof(why));
	ASSERT_STREQ(c.url, "http://127.0.0.1:4318/v1/logs", "the option wins; no path: /v1/logs");
	ASSERT_EQ(c.port, 4318, "port");
	kt_otlp_config_load(&c, "http://h/x", why, sizeof(why));
	ASSERT_STREQ(c.url, "http://h:80/x", "the option's path kept, port 80");
	ASSERT_EQ(kt_otlp_config_load(&c, "https://h", why, sizeof(why)), 0, "https");
	ASSERT_TRUE(c.tls && c.port == 443, "TLS, port 443");
	ASSERT_EQ(kt_otlp_config_load(&c, "ftp://h", why, sizeof(why)), -EINVAL, "ftp");
	ASSERT_STRSTR(why, "--otlp-endpoint: 'ftp://h': not an http:// or https:// URL", "why");
	setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", "/ca.pem", 1);
	ASSERT_EQ(kt_otlp_config_load(&c, "http://h", why, sizeof(why)), -EINVAL,
		  "a CA for plain HTTP");
	ASSERT_EQ(kt_otlp_config_load(&c, "https://h", why, sizeof(why)), 0, "a CA for https");
	ASSERT_STREQ(c.ca_file, "/ca.pem", "the CA file");
	setenv("OTEL_EXPORTER_OTLP_CLIENT_KEY", "/k.pem", 1);
	ASSERT_EQ(kt_otlp_config_load(&c, "https://h", why, sizeof(why)), -EINVAL,
		  "a client key without its certificate");
	unsetenv("OTEL_EXPORTER_OTLP_CERTIFICATE");
	unsetenv("OTEL_EXPORTER_OTLP_CLIENT_KEY");
	ASSERT_EQ(kt_otlp_config_load(&c, "h:4318", why, sizeof(why)), -EINVAL, "no scheme");
	clear();
	unit_end();
}

static void test_exporter(void)
{
	struct kt_otlp_config c;
	char why[256];

	if (!unit_start("otlp_config_exporter"))
		return;
	clear();
	setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", 1);
	kt_otlp_config_load(&c, NULL, why, sizeof(why));
	ASSERT_EQ(c.proto, KT_OTLP_PROTOBUF, "http/protobuf by default");
	ASSERT_EQ(c.timeout_ms, 10000, "10 s by default");
	ASSERT_EQ(c.batch_max, 512, "512 a batch");
	ASSERT_TRUE(!c.gzip, "no compression by default");
	setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf", 1);
	setenv("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "http/json", 1);
	setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip", 1);
	setenv("OTEL_EXPORTER_OTLP_HEADERS", "api-key=a%20b, x-tenant = t1", 1);
	setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "2500", 1);
	ASSERT_EQ(kt_otlp_config_load(&c, NULL, why, sizeof(why)), 0, "loaded");
	ASSERT_EQ(c.proto, KT_OTLP_JSON, "the signal's protocol wins");
	ASSERT_TRUE(c.gzip, "gzip");
	ASSERT_EQ(c.timeout_ms, 2500, "timeout");
	if (ASSERT_EQ(c.nheaders, 2, "two headers")) {
		ASSERT_STREQ(c.headers[0].value, "a b", "percent-decoded");
		ASSERT_STREQ(c.headers[1].key, "x-tenant", "key trimmed");
	}
	setenv("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "grpc", 1);
	ASSERT_EQ(kt_otlp_config_load(&c, NULL, why, sizeof(why)), -EINVAL, "grpc");
	ASSERT_STRSTR(why, "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'grpc'", "names the variable");
	unsetenv("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL");
	setenv("OTEL_EXPORTER_OTLP_HEADERS", "novalue", 1);
	ASSERT_EQ(kt_otlp_config_load(&c, NULL, why, sizeof(why)), -EINVAL, "a header without =");
	clear();
	unit_end();
}

static void test_resource(void)
{
	struct kt_otlp_config c, copy;
	char why[256];

	if (!unit_start("otlp_config_resource"))
		return;
	clear();
	setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", 1);
	setenv("OTEL_RESOURCE_ATTRIBUTES",
	       "service.name=from-attrs,deployment.environment.name=prod", 1);
	setenv("K8S_NODE_NAME", "node-7", 1);
	ASSERT_EQ(kt_otlp_config_load(&c, NULL, why, sizeof(why)), 0, "loaded");
	ASSERT_STREQ(res(&c, "service.name"), "from-attrs", "OTEL_RESOURCE_ATTRIBUTES over ours");
	ASSERT_STREQ(res(&c, "deployment.environment.name"), "prod", "added");
	ASSERT_STREQ(res(&c, "k8s.node.name"), "node-7", "K8S_NODE_NAME");
	ASSERT_STREQ(res(&c, "os.type"), "linux", "os.type");
	ASSERT_TRUE(res(&c, "host.name") && res(&c, "os.version"), "host.name, os.version");
	setenv("OTEL_SERVICE_NAME", "svc", 1);
	kt_otlp_config_load(&c, NULL, why, sizeof(why));
	ASSERT_STREQ(res(&c, "service.name"), "svc", "OTEL_SERVICE_NAME over both");
	kt_otlp_config_copy(&copy, &c);
	memset(&c, 0, sizeof(c));
	ASSERT_STREQ(res(&copy, "service.name"), "svc", "a copy stands on its own");
	ASSERT_TRUE(copy.resource.attrs == copy.res, "the copy's resource is its own");
	clear();
	unit_end();
}

int main(void)
{
	test_endpoints();
	test_exporter();
	test_resource();
	return unit_exit();
}
