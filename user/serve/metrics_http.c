// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * serve --metrics-listen (metrics_http.h).  The HTTP side is libevent's
 * evhttp: Debian's libmicrohttpd is built with GnuTLS, whose static link
 * needs p11-kit, of which Debian ships no static library.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/thread.h>
#include "serve/metrics_http.h"

/* Scrapes that wait for one render at most; more are answered 503. */
#define MAX_WAITING 64
/* How long a scrape waits for the serve loop before it gets the last text. */
#define ANSWER_WITHIN_S 1
/* A connection idle, or too slow to send its request or read the answer,
 * this long is closed (evhttp's timeout covers reads and writes). */
#define CLIENT_TIMEOUT_S 10
#define MAX_HEADERS 8192
#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct kt_metrics_http {
	pthread_t thread;
	bool running;
	struct event_base *base;
	struct evhttp *http;
	struct event *rendered, *late, *stop;
	int efd;
	char url[96];
	/* Shared with the serve loop, under lock. */
	pthread_mutex_t lock;
	char *text;
	size_t len;
	/* The HTTP thread's own. */
	struct evhttp_request *waiting[MAX_WAITING];
	int nwaiting;
	bool asked;
};

static void reply(struct evhttp_request *req, int code, const char *reason, const char *type,
		  const char *body, size_t len)
{
	struct evbuffer *b = evbuffer_new();

	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", type);
	if (b && evbuffer_add(b, body, len) == 0) {
		evhttp_send_reply(req, code, reason, b);
	} else {
		evhttp_send_error(req, HTTP_INTERNAL, NULL);
	}
	if (b)
		evbuffer_free(b);
}

static void say(struct evhttp_request *req, int code, const char *reason, const char *msg)
{
	reply(req, code, reason, "text/plain; charset=utf-8", msg, strlen(msg));
}

/* Answer every waiting scrape with the last text (h->lock held), or 503. */
static void answer_waiting(struct kt_metrics_http *h)
{
	int i;

	for (i = 0; i < h->nwaiting; i++) {
		if (h->text)
			reply(h->waiting[i], HTTP_OK, "OK", CONTENT_TYPE, h->text, h->len);
		else
			say(h->waiting[i], HTTP_SERVUNAVAIL, "Service Unavailable",
			    "ksymtap: the serve loop has not answered yet\n");
	}
	h->nwaiting = 0;
	h->asked = false;
	evtimer_del(h->late);
}

static void on_answer(evutil_socket_t fd, short what, void *arg)
{
	struct kt_metrics_http *h = arg;

	pthread_mutex_lock(&h->lock);
	answer_waiting(h);
	pthread_mutex_unlock(&h->lock);
}

static void on_stop(evutil_socket_t fd, short what, void *arg)
{
	struct kt_metrics_http *h = arg;
	int i;

	for (i = 0; i < h->nwaiting; i++)
		say(h->waiting[i], HTTP_SERVUNAVAIL, "Service Unavailable", "ksymtap: stopping\n");
	h->nwaiting = 0;
	event_base_loopbreak(h->base);
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct kt_metrics_http *h = arg;
	const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	uint64_t one = 1;

	if (!path || strcmp(path, "/metrics")) {
		say(req, HTTP_NOTFOUND, "Not Found", "ksymtap: the metrics are at /metrics\n");
		return;
	}
	if (h->nwaiting == MAX_WAITING) {
		say(req, HTTP_SERVUNAVAIL, "Service Unavailable",
		    "ksymtap: too many scrapes at once\n");
		return;
	}
	h->waiting[h->nwaiting++] = req;
	if (h->asked)
		return;
	/* The serve loop renders when it sees the eventfd; a full counter
	 * (EAGAIN) still leaves it readable. */
	if (write(h->efd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
		on_answer(-1, 0, h);
		return;
	}
	h->asked = true;
	evtimer_add(h->late, &(struct timeval){ .tv_sec = ANSWER_WITHIN_S });
}

static void *loop(void *arg)
{
	struct kt_metrics_http *h = arg;

	event_base_loop(h->base, EVLOOP_NO_EXIT_ON_EMPTY);
	return NULL;
}

/* "PORT", "IPV4:PORT", "[IPV6]:PORT" into ss; 0 or -EINVAL. */
static int parse_spec(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	char host[64] = "127.0.0.1";
	const char *port = spec, *colon = strrchr(spec, ':');
	unsigned long p;
	char *end;

	if (colon) {
		const char *h0 = spec, *h1 = colon;

		if (spec[0] == '[') {
			h0 = spec + 1;
			h1 = colon > spec && colon[-1] == ']' ? colon - 1 : spec;
			if (h1 <= h0)
				return -EINVAL;
		}
		if ((size_t)(h1 - h0) >= sizeof(host) || h1 == h0)
			return -EINVAL;
		memcpy(host, h0, h1 - h0);
		host[h1 - h0] = 0;
		port = colon + 1;
	}
	errno = 0;
	p = strtoul(port, &end, 10);
	if (errno || end == port || *end || p > 65535 || *port == '-' || *port == '+')
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1 && spec[0] != '[') {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(p);
		*len = sizeof(*a4);
		return 0;
	}
	if (spec[0] == '[' && inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(p);
		*len = sizeof(*a6);
		return 0;
	}
	return -EINVAL;
}

/* The listening socket, and the URL it answers on. */
static int listen_on(struct kt_metrics_http *h, const char *spec, char *why, size_t why_size)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char addr[INET6_ADDRSTRLEN];
	int fd, on = 1, err;

	if (parse_spec(spec, &ss, &len)) {
		snprintf(why, why_size,
			 "--metrics-listen: '%s' is not PORT, IPV4:PORT or [IPV6]:PORT (numeric)",
			 spec);
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len))
		goto fail;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, addr, sizeof(addr));
		snprintf(h->url, sizeof(h->url), "http://%s:%u/metrics", addr, ntohs(a->sin_port));
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, addr, sizeof(addr));
		snprintf(h->url, sizeof(h->url), "http://[%s]:%u/metrics", addr,
			 ntohs(a->sin6_port));
	}
	if (!evhttp_accept_socket_with_handle(h->http, fd)) {
		close(fd);
		snprintf(why, why_size, "--metrics-listen %s: evhttp refused the socket", spec);
		return -ENOMEM;
	}
	return 0;
fail:
	err = -errno;
	if (fd >= 0)
		close(fd);
	snprintf(why, why_size, "--metrics-listen %s: %s", spec, strerror(-err));
	return err;
}

int kt_metrics_http_start(struct kt_metrics_http **out, const char *spec, char *why,
			  size_t why_size)
{
	struct kt_metrics_http *h;
	int err = -ENOMEM;

	*out = NULL;
	/* Before the base: the serve loop wakes this thread (event_active). */
	if (evthread_use_pthreads()) {
		snprintf(why, why_size, "--metrics-listen: libevent has no thread support");
		return -ENOSYS;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		goto nomem;
	pthread_mutex_init(&h->lock, NULL);
	h->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	h->base = event_base_new();
	h->http = h->base ? evhttp_new(h->base) : NULL;
	if (h->efd < 0 || !h->http)
		goto nomem;
	h->rendered = event_new(h->base, -1, 0, on_answer, h);
	h->stop = event_new(h->base, -1, 0, on_stop, h);
	h->late = evtimer_new(h->base, on_answer, h);
	if (!h->rendered || !h->stop || !h->late)
		goto nomem;
	evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD);
	evhttp_set_timeout(h->http, CLIENT_TIMEOUT_S);
	evhttp_set_max_headers_size(h->http, MAX_HEADERS);
	evhttp_set_max_body_size(h->http, 0);
	evhttp_set_gencb(h->http, on_request, h);
	err = listen_on(h, spec, why, why_size);
	if (err)
		goto out;
	*out = h;
	return 0;
nomem:
	snprintf(why, why_size, "--metrics-listen: out of memory");
out:
	kt_metrics_http_stop(h);
	return err;
}

int kt_metrics_http_run(struct kt_metrics_http *h, char *why, size_t why_size)
{
	int err = -pthread_create(&h->thread, NULL, loop, h);

	if (err) {
		snprintf(why, why_size, "--metrics-listen: no thread: %s", strerror(-err));
		return err;
	}
	h->running = true;
	return 0;
}

const char *kt_metrics_http_url(const struct kt_metrics_http *h)
{
	return h->url;
}

int kt_metrics_http_fd(const struct kt_metrics_http *h)
{
	return h->efd;
}

int kt_metrics_http_wanted(struct kt_metrics_http *h)
{
	uint64_t n;

	return read(h->efd, &n, sizeof(n)) == sizeof(n);
}

int kt_metrics_http_publish(struct kt_metrics_http *h, const char *text, size_t len)
{
	char *copy = malloc(len ? len : 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	pthread_mutex_lock(&h->lock);
	free(h->text);
	h->text = copy;
	h->len = len;
	pthread_mutex_unlock(&h->lock);
	event_active(h->rendered, 0, 0);
	return 0;
}

void kt_metrics_http_stop(struct kt_metrics_http *h)
{
	if (!h)
		return;
	if (h->running) {
		event_active(h->stop, 0, 0);
		pthread_join(h->thread, NULL);
	}
	if (h->http)
		evhttp_free(h->http);
	if (h->rendered)
		event_free(h->rendered);
	if (h->stop)
		event_free(h->stop);
	if (h->late)
		event_free(h->late);
	if (h->base)
		event_base_free(h->base);
	if (h->efd >= 0)
		close(h->efd);
	pthread_mutex_destroy(&h->lock);
	free(h->text);
	free(h);
}
