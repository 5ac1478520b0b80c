/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The OTLP exporter's settings (docs/otlp.md), from the variables every
 * OpenTelemetry SDK and agent reads (OTEL_EXPORTER_OTLP_*, OTEL_BLRP_*,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME) and --otlp-endpoint, which
 * overrides the endpoint; and the node's resource attributes.
 */
#ifndef KT_OTLP_CONFIG_H
#define KT_OTLP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include "encode/otlp_logs.h"

#define KT_OTLP_MAX_HEADERS 16
#define KT_OTLP_MAX_RESOURCE 32
#define KT_OTLP_SPOOL_SIZE_DEFAULT (64ULL << 20)

struct kt_otlp_config {
	bool enabled; /* an endpoint was given (variable or option) */
	char url[1024]; /* where requests go: scheme://host[:port]/path */
	bool tls; /* https:// */
	char ca_file[512]; /* OTEL_EXPORTER_OTLP_CERTIFICATE; "": the system's CAs */
	char cert_file[512], key_file[512]; /* ..._CLIENT_CERTIFICATE, ..._CLIENT_KEY */
	char host[256];
	int port;
	char path[512];
	enum kt_otlp_protocol proto;
	bool gzip;
	unsigned int timeout_ms; /* one request, connect to answer */
	unsigned int batch_max; /* log records per request */
	unsigned int delay_ms; /* longest a record waits for its batch to fill */
	size_t queue_bytes; /* records waiting for the exporter, at most */
	char spool_dir[512]; /* --otlp-spool; "": none */
	size_t spool_bytes; /* --otlp-spool-size */
	struct kt_otlp_kv headers[KT_OTLP_MAX_HEADERS];
	size_t nheaders;
	struct kt_otlp_kv res[KT_OTLP_MAX_RESOURCE];
	struct kt_otlp_resource resource;
	char strs[8192]; /* what headers and res point into */
	size_t used;
};

/*
 * Read the environment, then endpoint (--otlp-endpoint; NULL: none) over it.
 * 0 (c->enabled false when no endpoint is set at all), or -EINVAL after
 * writing one line naming the variable or option and what is wrong with it
 * into why.
 */
int kt_otlp_config_load(struct kt_otlp_config *c, const char *endpoint, char *why, size_t why_size);

/* *c as dst, its strings and pointers into dst's own. */
void kt_otlp_config_copy(struct kt_otlp_config *dst, const struct kt_otlp_config *c);

#endif
