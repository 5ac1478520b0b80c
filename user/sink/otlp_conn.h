/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The OTLP exporter's HTTP connection (otlp.h's thread): plain evhttp, or
 * TLS through libevent's OpenSSL bufferevent, the server's certificate
 * checked against the system's CAs or OTEL_EXPORTER_OTLP_CERTIFICATE and its
 * name, with a client certificate when one is set.
 */
#ifndef KT_OTLP_CONN_H
#define KT_OTLP_CONN_H

#include <stddef.h>
#include "sink/otlp_config.h"

struct event_base;
struct evhttp_connection;
struct kt_otlp_conn;

/* 0, or -errno with one line in why (a CA file that cannot be read, ...). */
int kt_otlp_conn_new(struct kt_otlp_conn **out, struct event_base *base,
		     const struct kt_otlp_config *c, char *why, size_t why_size);
/* The connection for the next request: the same one for plain HTTP (evhttp
 * reconnects it); a new one for TLS, the last one freed once its callbacks
 * have returned.  NULL if one cannot be made (said once). */
struct evhttp_connection *kt_otlp_conn_get(struct kt_otlp_conn *k);
/* Why the last request on it got no answer, if TLS knows: "" otherwise. */
void kt_otlp_conn_why(struct kt_otlp_conn *k, char *buf, size_t size);
void kt_otlp_conn_free(struct kt_otlp_conn *k);

#endif
