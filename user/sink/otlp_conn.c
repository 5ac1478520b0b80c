// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exporter's connection (otlp_conn.h).  A TLS connection is made anew
 * for each request: libevent 2.1's evhttp cannot reconnect a bufferevent
 * whose SSL session ended, and a request a second at most costs one
 * handshake each.  Names are resolved by libevent's evdns (it reads
 * /etc/resolv.conf and /etc/hosts): a static binary has no glibc NSS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/http.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include "util/log.h"
#include "sink/otlp_conn.h"

/* Debian's CA bundle, where the default paths of OpenSSL's build (a
 * container without /usr/lib/ssl) find nothing. */
#define CA_BUNDLE "/etc/ssl/certs/ca-certificates.crt"

struct kt_otlp_conn {
	const struct kt_otlp_config *c;
	struct event_base *base;
	struct evdns_base *dns;
	SSL_CTX *ctx; /* NULL: plain HTTP */
	struct evhttp_connection *conn;
	/* TLS connections done with, freed once their callbacks returned. */
	struct evhttp_connection *retired[4];
	int nretired;
	bool said;
};

static void ssl_why(char *why, size_t why_size, const char *what, const char *file)
{
	char err[200];

	ERR_error_string_n(ERR_get_error(), err, sizeof(err));
	snprintf(why, why_size, "otlp: %s %s: %s", what, file, err);
}

static int tls_ctx(struct kt_otlp_conn *k, char *why, size_t why_size)
{
	const struct kt_otlp_config *c = k->c;

	k->ctx = SSL_CTX_new(TLS_client_method());
	if (!k->ctx)
		return snprintf(why, why_size, "otlp: TLS: out of memory"), -ENOMEM;
	SSL_CTX_set_min_proto_version(k->ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(k->ctx, SSL_VERIFY_PEER, NULL);
	if (c->ca_file[0]) {
		if (SSL_CTX_load_verify_locations(k->ctx, c->ca_file, NULL) != 1)
			return ssl_why(why, why_size, "the CA file", c->ca_file), -EINVAL;
	} else {
		SSL_CTX_set_default_verify_paths(k->ctx);
		SSL_CTX_load_verify_locations(k->ctx, CA_BUNDLE, NULL);
		ERR_clear_error();
	}
	if (c->cert_file[0] && SSL_CTX_use_certificate_chain_file(k->ctx, c->cert_file) != 1)
		return ssl_why(why, why_size, "the client certificate", c->cert_file), -EINVAL;
	if (c->key_file[0] &&
	    SSL_CTX_use_PrivateKey_file(k->ctx, c->key_file, SSL_FILETYPE_PEM) != 1)
		return ssl_why(why, why_size, "the client key", c->key_file), -EINVAL;
	return 0;
}

static void set_up(struct kt_otlp_conn *k)
{
	struct timeval tv = { k->c->timeout_ms / 1000, (k->c->timeout_ms % 1000) * 1000 };

	evhttp_connection_set_timeout_tv(k->conn, &tv);
	evhttp_connection_set_retries(k->conn, 0);
}

int kt_otlp_conn_new(struct kt_otlp_conn **out, struct event_base *base,
		     const struct kt_otlp_config *c, char *why, size_t why_size)
{
	struct kt_otlp_conn *k = calloc(1, sizeof(*k));
	int err;

	if (!k)
		return snprintf(why, why_size, "otlp: out of memory"), -ENOMEM;
	k->c = c;
	k->base = base;
	k->dns = evdns_base_new(base, EVDNS_BASE_INITIALIZE_NAMESERVERS);
	if (!k->dns) /* no /etc/resolv.conf: numeric hosts and /etc/hosts */
		k->dns = evdns_base_new(base, 0);
	if (k->dns)
		evdns_base_load_hosts(k->dns, NULL);
	err = k->dns ? 0 : -ENOMEM;
	if (err)
		snprintf(why, why_size, "otlp: the resolver: out of memory");
	if (!err && c->tls)
		err = tls_ctx(k, why, why_size);
	if (!err && !c->tls &&
	    !(k->conn = evhttp_connection_base_new(base, k->dns, c->host, c->port)))
		err = -ENOMEM, snprintf(why, why_size, "otlp: the HTTP client: out of memory");
	if (err) {
		kt_otlp_conn_free(k);
		return err;
	}
	if (k->conn)
		set_up(k);
	*out = k;
	return 0;
}

static void free_retired(struct kt_otlp_conn *k)
{
	while (k->nretired)
		evhttp_connection_free(k->retired[--k->nretired]);
}

static void free_later(evutil_socket_t fd, short what, void *arg)
{
	free_retired(arg);
}

/* The server's name checked in its certificate (an address as an address),
 * SNI for a name. */
static SSL *new_ssl(struct kt_otlp_conn *k)
{
	struct in6_addr a;
	SSL *ssl = SSL_new(k->ctx);
	bool ip = inet_pton(AF_INET, k->c->host, &a) == 1 ||
		  inet_pton(AF_INET6, k->c->host, &a) == 1;

	if (!ssl)
		return NULL;
	if (ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), k->c->host) != 1 :
		 SSL_set1_host(ssl, k->c->host) != 1 ||
			    SSL_set_tlsext_host_name(ssl, k->c->host) != 1) {
		SSL_free(ssl);
		return NULL;
	}
	return ssl;
}

struct evhttp_connection *kt_otlp_conn_get(struct kt_otlp_conn *k)
{
	const struct timeval now = { 0, 0 };
	struct bufferevent *bev;
	SSL *ssl;

	if (!k->ctx)
		return k->conn;
	if (k->conn) {
		/* One request at a time: at most one waits, but be safe. */
		if (k->nretired == (int)(sizeof(k->retired) / sizeof(k->retired[0])))
			free_retired(k);
		k->retired[k->nretired++] = k->conn;
		if (event_base_once(k->base, -1, EV_TIMEOUT, free_later, k, &now))
			kt_debug("otlp: freeing a TLS connection later failed; at the end then");
	}
	k->conn = NULL;
	ssl = new_ssl(k);
	bev = ssl ? bufferevent_openssl_socket_new(k->base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
						   BEV_OPT_CLOSE_ON_FREE |
							   BEV_OPT_DEFER_CALLBACKS) :
		    NULL;
	if (bev)
		bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
	else if (ssl)
		SSL_free(ssl);
	k->conn = bev ? evhttp_connection_base_bufferevent_new(k->base, k->dns, bev, k->c->host,
							       k->c->port) :
			NULL;
	if (k->conn)
		set_up(k);
	if (!k->conn && !k->said)
		kt_warn("otlp: cannot make a TLS connection to %s (out of memory)", k->c->url);
	k->said = !k->conn;
	return k->conn;
}

void kt_otlp_conn_why(struct kt_otlp_conn *k, char *buf, size_t size)
{
	struct bufferevent *bev = k->conn ? evhttp_connection_get_bufferevent(k->conn) : NULL;
	unsigned long e = k->ctx && bev ? bufferevent_get_openssl_error(bev) : 0;

	buf[0] = '\0';
	if (e)
		ERR_error_string_n(e, buf, size);
}

void kt_otlp_conn_free(struct kt_otlp_conn *k)
{
	if (!k)
		return;
	if (k->conn)
		evhttp_connection_free(k->conn);
	free_retired(k);
	if (k->dns)
		evdns_base_free(k->dns, 0);
	if (k->ctx)
		SSL_CTX_free(k->ctx);
	free(k);
}
