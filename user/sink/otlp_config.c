// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * OTLP exporter settings as the OpenTelemetry specification names them
 * (opentelemetry.io/docs/specs/otel/protocol/exporter/ and
 * .../configuration/sdk-environment-variables/): the signal's own variable
 * (OTEL_EXPORTER_OTLP_LOGS_*) first, then the shared one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <event2/http.h>
#include "util/fileio.h"
#include "sink/otlp_config.h"
#include "version.h"

static const char *env2(const char *logs, const char *all, const char **which)
{
	const char *v = getenv(logs);

	*which = logs;
	if (v && *v)
		return v;
	*which = all;
	v = getenv(all);
	return v && *v ? v : NULL;
}

static int bad(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A copy in c->strs; NULL when full. */
static const char *keep(struct kt_otlp_config *c, const char *s, size_t n)
{
	char *p = c->strs + c->used;

	if (c->used + n + 1 > sizeof(c->strs))
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	c->used += n + 1;
	return p;
}

/* The W3C Baggage form the specification gives both variables: key=value
 * pairs, comma-separated, values percent-encoded. */
static int parse_pairs(struct kt_otlp_config *c, const char *s, struct kt_otlp_kv *kv, size_t max,
		       size_t *n, const char *var, char *why, size_t why_size)
{
	const char *end, *eq;
	char *val, *raw;
	size_t klen, vlen;

	for (; s && *s; s = *end ? end + 1 : end) {
		end = s + strcspn(s, ",");
		s += strspn(s, " \t");
		eq = memchr(s, '=', end - s);
		if (s == end)
			continue;
		if (!eq || eq == s)
			return bad(why, why_size, "%s: '%.*s' is not key=value", var,
				   (int)(end - s), s);
		klen = eq - s;
		while (klen && (s[klen - 1] == ' ' || s[klen - 1] == '\t'))
			klen--;
		/* Blanks around the value are not part of it (%20 inside is). */
		raw = strndup(eq + 1, end - eq - 1);
		for (vlen = raw ? strlen(raw) : 0; vlen && strchr(" \t", raw[vlen - 1]); vlen--)
			raw[vlen - 1] = '\0';
		val = raw ? evhttp_uridecode(raw + strspn(raw, " \t"), 0, NULL) : NULL;
		free(raw);
		if (!val)
			return bad(why, why_size, "%s: out of memory", var);
		if (*n >= max) {
			free(val);
			return bad(why, why_size, "%s: more than %zu pairs", var, max);
		}
		kv[*n].key = keep(c, s, klen);
		kv[*n].value = keep(c, val, strlen(val));
		free(val);
		if (!kv[*n].key || !kv[*n].value)
			return bad(why, why_size, "%s: too long", var);
		(*n)++;
	}
	return 0;
}

/* The URL: the signal's variable (or --otlp-endpoint with a path) is used as
 * it is; the shared variable, or an option without a path, gets /v1/logs. */
static int parse_url(struct kt_otlp_config *c, const char *url, bool append, const char *var,
		     char *why, size_t why_size)
{
	struct evhttp_uri *u = evhttp_uri_parse(url);
	const char *scheme, *host, *path;
	int err = 0;

	scheme = u ? evhttp_uri_get_scheme(u) : NULL;
	if (!scheme) {
		if (u)
			evhttp_uri_free(u);
		return bad(why, why_size, "%s: '%s' is not a URL (http://HOST[:PORT][/PATH])", var,
			   url);
	}
	host = evhttp_uri_get_host(u);
	path = evhttp_uri_get_path(u);
	if (strcmp(scheme, "http") && strcmp(scheme, "https")) {
		err = bad(why, why_size, "%s: '%s': not an http:// or https:// URL", var, url);
		goto out;
	}
	c->tls = !strcmp(scheme, "https");
	if (!host || !*host) {
		err = bad(why, why_size, "%s: '%s' names no host", var, url);
		goto out;
	}
	if (!path || !*path || (append && !strcmp(path, "/")))
		path = "";
	snprintf(c->host, sizeof(c->host), "%s", host);
	c->port = evhttp_uri_get_port(u) > 0 ? evhttp_uri_get_port(u) : c->tls ? 443 : 80;
	snprintf(c->path, sizeof(c->path), "%s%s", path,
		 append || !*path ?
			 (path[0] && path[strlen(path) - 1] == '/' ? "v1/logs" : "/v1/logs") :
			 "");
	snprintf(c->url, sizeof(c->url), "%s://%s:%d%s", scheme, c->host, c->port, c->path);
out:
	evhttp_uri_free(u);
	return err;
}

static int parse_uint(const char *v, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(v, &end, 10);
	return errno || end == v || *end || *out > max || *v == '-' ? -EINVAL : 0;
}

/* A file named by OTEL_EXPORTER_OTLP_[LOGS_]NAME: only for https://. */
static int tls_file(char *out, size_t size, const char *name, bool tls, char *why, size_t why_size)
{
	char logs[64], all[64];
	const char *v, *var;

	snprintf(logs, sizeof(logs), "OTEL_EXPORTER_OTLP_LOGS_%s", name);
	snprintf(all, sizeof(all), "OTEL_EXPORTER_OTLP_%s", name);
	v = env2(logs, all, &var);
	if (!v)
		return 0;
	if (!tls)
		return bad(why, why_size, "%s: set, but the endpoint is not https://", var);
	if (strlen(v) >= size)
		return bad(why, why_size, "%s: too long a path", var);
	strcpy(out, v);
	return 0;
}

static int load_exporter(struct kt_otlp_config *c, char *why, size_t why_size)
{
	const char *v, *var;
	unsigned long n;
	int err;

	v = env2("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL", &var);
	if (v && !strcmp(v, "http/json"))
		c->proto = KT_OTLP_JSON;
	else if (v && strcmp(v, "http/protobuf"))
		return bad(why, why_size, "%s: '%s' is not http/protobuf or http/json%s", var, v,
			   !strcmp(v, "grpc") ? " (grpc is not supported)" : "");
	v = env2("OTEL_EXPORTER_OTLP_LOGS_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION", &var);
	if (v && strcmp(v, "gzip") && strcmp(v, "none"))
		return bad(why, why_size, "%s: '%s' is not gzip or none", var, v);
	c->gzip = v && !strcmp(v, "gzip");
	v = env2("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT", &var);
	if (v && (parse_uint(v, 600000, &n) || !n))
		return bad(why, why_size, "%s: '%s' is not milliseconds from 1 to 600000", var, v);
	if (v)
		c->timeout_ms = n;
	v = getenv("OTEL_BLRP_MAX_EXPORT_BATCH_SIZE");
	if (v && (parse_uint(v, 65536, &n) || !n))
		return bad(why, why_size, "OTEL_BLRP_MAX_EXPORT_BATCH_SIZE: '%s' is not 1 to 65536",
			   v);
	if (v)
		c->batch_max = n;
	v = getenv("OTEL_BLRP_SCHEDULE_DELAY");
	if (v && parse_uint(v, 600000, &n))
		return bad(why, why_size, "OTEL_BLRP_SCHEDULE_DELAY: '%s' is not milliseconds", v);
	if (v)
		c->delay_ms = n;
	if ((err = tls_file(c->ca_file, sizeof(c->ca_file), "CERTIFICATE", c->tls, why,
			    why_size)) ||
	    (err = tls_file(c->cert_file, sizeof(c->cert_file), "CLIENT_CERTIFICATE", c->tls, why,
			    why_size)) ||
	    (err = tls_file(c->key_file, sizeof(c->key_file), "CLIENT_KEY", c->tls, why, why_size)))
		return err;
	if (!c->cert_file[0] != !c->key_file[0])
		return bad(why, why_size,
			   "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY go together");
	v = env2("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS", &var);
	return parse_pairs(c, v, c->headers, KT_OTLP_MAX_HEADERS, &c->nheaders, var, why, why_size);
}

static void res_set(struct kt_otlp_config *c, const char *key, const char *value)
{
	size_t i;

	if (!value || !*value)
		return;
	value = keep(c, value, strlen(value));
	for (i = 0; value && i < c->resource.n; i++) {
		if (!strcmp(c->res[i].key, key)) {
			c->res[i].value = value;
			return;
		}
	}
	if (value && c->resource.n < KT_OTLP_MAX_RESOURCE) {
		c->res[c->resource.n].key = key;
		c->res[c->resource.n++].value = value;
	}
}

/* A one-line file's text, "" if it cannot be read. */
static void read_line(const char *path, char *buf, size_t size)
{
	if (kt_read_small(path, buf, size) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* What the node is: the semantic conventions' host, os and k8s attributes,
 * the boot (ksymtap.boot.id: sequence numbers are per boot), then what
 * OTEL_RESOURCE_ATTRIBUTES says, then OTEL_SERVICE_NAME. */
static int load_resource(struct kt_otlp_config *c, char *why, size_t why_size)
{
	struct kt_otlp_kv env[KT_OTLP_MAX_RESOURCE];
	struct utsname u;
	char line[128];
	size_t i, n = 0;
	int err;

	c->resource.attrs = c->res;
	c->resource.version = KT_VERSION;
	res_set(c, "service.name", "ksymtap");
	res_set(c, "service.version", KT_VERSION);
	if (!uname(&u)) {
		res_set(c, "host.name", u.nodename);
		res_set(c, "os.version", u.release);
	}
	res_set(c, "os.type", "linux");
#if defined(__x86_64__)
	res_set(c, "host.arch", "amd64");
#elif defined(__aarch64__)
	res_set(c, "host.arch", "arm64");
#endif
	read_line("/etc/machine-id", line, sizeof(line));
	res_set(c, "host.id", line);
	read_line("/proc/sys/kernel/random/boot_id", line, sizeof(line));
	res_set(c, "ksymtap.boot.id", line);
	res_set(c, "k8s.node.name", getenv("K8S_NODE_NAME"));
	err = parse_pairs(c, getenv("OTEL_RESOURCE_ATTRIBUTES"), env, KT_OTLP_MAX_RESOURCE, &n,
			  "OTEL_RESOURCE_ATTRIBUTES", why, why_size);
	for (i = 0; !err && i < n; i++)
		res_set(c, env[i].key, env[i].value);
	res_set(c, "service.name", getenv("OTEL_SERVICE_NAME"));
	return err;
}

int kt_otlp_config_load(struct kt_otlp_config *c, const char *endpoint, char *why, size_t why_size)
{
	const char *v, *var;
	int err;

	memset(c, 0, sizeof(*c));
	c->proto = KT_OTLP_PROTOBUF;
	c->timeout_ms = 10000;
	c->batch_max = 512;
	c->delay_ms = 1000;
	c->queue_bytes = 32 << 20;
	v = env2("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT", &var);
	if (endpoint) {
		v = endpoint;
		var = "--otlp-endpoint";
	}
	if (!v)
		return 0;
	c->enabled = true;
	err = parse_url(c, v, !strcmp(var, "OTEL_EXPORTER_OTLP_ENDPOINT"), var, why, why_size);
	return err ?: load_exporter(c, why, why_size) ?: load_resource(c, why, why_size);
}

static const char *rebase(const struct kt_otlp_config *from, struct kt_otlp_config *to,
			  const char *p)
{
	return p >= from->strs && p < from->strs + sizeof(from->strs) ?
		       to->strs + (p - from->strs) :
		       p;
}

void kt_otlp_config_copy(struct kt_otlp_config *dst, const struct kt_otlp_config *c)
{
	size_t i;

	*dst = *c;
	for (i = 0; i < c->nheaders; i++) {
		dst->headers[i].key = rebase(c, dst, c->headers[i].key);
		dst->headers[i].value = rebase(c, dst, c->headers[i].value);
	}
	for (i = 0; i < c->resource.n; i++) {
		dst->res[i].key = rebase(c, dst, c->res[i].key);
		dst->res[i].value = rebase(c, dst, c->res[i].value);
	}
	dst->resource.attrs = dst->res;
}
