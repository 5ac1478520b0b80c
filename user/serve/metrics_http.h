/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * serve --metrics-listen: GET /metrics over HTTP, for Prometheus to scrape.
 * libevent's evhttp parses HTTP in a thread of its own, so that slow, huge
 * or many HTTP clients cost that thread alone.  The metrics are the serve
 * loop's state, read by that loop only: a scrape asks it through an eventfd
 * (kt_metrics_http_fd()) and gets the text it publishes; if the loop has not
 * answered within a second, the scrape gets the last text published.
 */
#ifndef KT_METRICS_HTTP_H
#define KT_METRICS_HTTP_H

#include <stddef.h>

struct kt_metrics_http;

/* Listen on spec: "PORT" (127.0.0.1), "IPV4:PORT" or "[IPV6]:PORT", numeric;
 * port 0 picks a free one.  -errno and why (one line) on failure.  Scrapes
 * wait in the socket's backlog until kt_metrics_http_run(). */
int kt_metrics_http_start(struct kt_metrics_http **out, const char *spec, char *why,
			  size_t why_size);
/* Start answering, in a thread of its own.  After the start-up's forks (the
 * BPF loader, the snapshot's walker): a thread that holds an allocator lock
 * at a fork() leaves the child deadlocked on it (seen under ASan). */
int kt_metrics_http_run(struct kt_metrics_http *h, char *why, size_t why_size);
/* "http://ADDR:PORT/metrics", as bound. */
const char *kt_metrics_http_url(const struct kt_metrics_http *h);
/* Readable when a scrape waits for kt_metrics_http_publish(). */
int kt_metrics_http_fd(const struct kt_metrics_http *h);
/* Clear the fd's readiness: 1 if a scrape waits, 0 if none. */
int kt_metrics_http_wanted(struct kt_metrics_http *h);
/* Hand over a rendered exposition (copied) to the waiting scrapes. */
int kt_metrics_http_publish(struct kt_metrics_http *h, const char *text, size_t len);
/* Stop the thread, close the socket; NULL is fine. */
void kt_metrics_http_stop(struct kt_metrics_http *h);

#endif
