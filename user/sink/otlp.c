// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The OTLP/HTTP exporter (otlp.h).  Its promises are the specification's
 * (opentelemetry.io/docs/specs/otlp/#otlphttp): one request at a time, so
 * records arrive in order; 429, 502, 503 and 504, and requests that got no
 * answer, are sent again after Retry-After or an exponential backoff with
 * jitter; any other error is not retried, counted and said once per status;
 * a partial success's rejected records are counted.  The HTTP client is
 * libevent's evhttp (otlp_conn.c: its resolver, TLS).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <zlib.h>
#include "util/clock.h"
#include "util/fifo.h"
#include "util/log.h"
#include "sink/otlp.h"
#include "sink/otlp_conn.h"
#include "sink/otlp_spool.h"
#include "version.h"

#define BACKOFF_FIRST_MS 1000
#define BACKOFF_MAX_MS 30000

struct kt_otlp {
	struct kt_sink sink; /* first: the pipeline calls us through it */
	struct kt_otlp_config c;
	__s64 clock_off; /* perf's clock minus CLOCK_MONOTONIC */
	__u64 seq; /* the next record's sequence number */
	struct kt_fifo q;
	int efd; /* wakes the exporter thread */
	pthread_t thread;
	bool running, queue_full_said;
	atomic_bool stopping;
	unsigned int stop_ms; /* set before stopping: how long to send on */
	atomic_ullong st[9]; /* struct kt_otlp_stats' counters, in order */
	atomic_ullong spool_bytes, spool_records; /* the spool's, for the metrics */
	bool spool_on;
	struct kt_spool spool; /* the thread's once it runs */
	/* The exporter thread's own. */
	struct event_base *base;
	struct kt_otlp_conn *conn;
	struct event *wake, *timer, *deadline;
	struct kt_fifo_batch cur;
	struct kt_otlp_entry *batch; /* the request's records */
	size_t nbatch;
	char *body; /* the request as sent, kept for a retry */
	size_t body_len;
	unsigned int body_records;
	enum kt_otlp_protocol body_proto;
	bool body_gzip;
	bool from_spool; /* body is the spool's oldest file */
	bool spool_said; /* "spool full" (or unwritable) said */
	bool busy; /* a request is out */
	bool timer_armed, deadline_armed;
	unsigned int attempt;
	int said_status; /* the last refusal said */
	enum evhttp_request_error req_err; /* the last request's, when it got no answer */
	bool said_down; /* "no answer" said, "answers again" not yet */
};

enum {
	ST_SENT,
	ST_REJECTED,
	ST_DROP_QUEUE,
	ST_DROP_REFUSED,
	ST_DROP_END,
	ST_DROP_SPOOL,
	ST_REQUESTS,
	ST_RETRIES,
	ST_SPOOLED,
};

static void count(struct kt_otlp *o, int which, unsigned long long n)
{
	atomic_fetch_add(&o->st[which], n);
}

/* The pipeline's thread: a copy into the queue, and a wake-up if the
 * exporter may be asleep.  The entry goes in only as long as its cgroup
 * path is (it is last). */
static int sink_record(struct kt_sink *sink, const struct kt_record *r)
{
	struct kt_otlp *o = (struct kt_otlp *)sink;
	struct kt_otlp_entry e;
	struct timespec ts;
	bool empty = false;
	__u64 now, one = 1;
	int err;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	kt_otlp_entry_fill(&e, r, (__s64)now - (__s64)(kt_monotonic_ns() + o->clock_off), o->seq++,
			   now);
	err = kt_fifo_push(&o->q, &e, KT_OTLP_ENTRY_LEN(&e), false, &empty);
	if (err) {
		count(o, ST_DROP_QUEUE, 1);
		if (!o->queue_full_said)
			kt_warn("otlp: queue full (%zu bytes); records dropped until the exporter catches up (ksymtap_otlp_dropped_records_total)",
				o->q.bound);
		o->queue_full_said = true;
		return 0;
	}
	o->queue_full_said = false;
	if (empty && write(o->efd, &one, sizeof(one)) < 0)
		kt_debug("otlp: waking the exporter: %m");
	return 0;
}

/* The next queued record, or NULL. */
static const struct kt_otlp_entry *next_entry(struct kt_otlp *o)
{
	const void *e;
	size_t len;

	for (;;) {
		if (o->cur.bytes && (e = kt_fifo_next(&o->cur, &len)))
			return e;
		if (o->cur.bytes)
			kt_fifo_release(&o->q, &o->cur);
		kt_fifo_take(&o->q, &o->cur);
		if (!o->cur.bytes)
			return NULL;
	}
}

static void fill(struct kt_otlp *o)
{
	const struct kt_otlp_entry *e;

	while (o->nbatch < o->c.batch_max && (e = next_entry(o)))
		memcpy(&o->batch[o->nbatch++], e, KT_OTLP_ENTRY_LEN(e));
}

/* gzip (RFC 1952) of a body, for Content-Encoding: gzip. */
static int gzip_body(char **body, size_t *body_len)
{
	z_stream z = { 0 };
	size_t cap = compressBound(*body_len) + 32;
	char *out = malloc(cap);
	int rc;

	if (!out)
		return -ENOMEM;
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)) {
		free(out);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)*body;
	z.avail_in = *body_len;
	z.next_out = (Bytef *)out;
	z.avail_out = cap;
	rc = deflate(&z, Z_FINISH);
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(out);
		return -EIO;
	}
	free(*body);
	*body = out;
	*body_len = z.total_out;
	return 0;
}

static void on_response(struct evhttp_request *req, void *arg);

static void on_error(enum evhttp_request_error e, void *arg)
{
	((struct kt_otlp *)arg)->req_err = e;
}

/* A request without an answer: said once until the collector answers. */
static void say_down(struct kt_otlp *o)
{
	static const char *const what[] = {
		[EVREQ_HTTP_TIMEOUT] = "timed out",
		[EVREQ_HTTP_EOF] = "connection closed or refused",
		[EVREQ_HTTP_INVALID_HEADER] = "not an HTTP answer",
		[EVREQ_HTTP_BUFFER_ERROR] = "connection failed",
		[EVREQ_HTTP_REQUEST_CANCEL] = "cancelled",
		[EVREQ_HTTP_DATA_TOO_LONG] = "answer too long",
	};
	char tls[200];

	if (o->said_down)
		return;
	o->said_down = true;
	kt_otlp_conn_why(o->conn, tls, sizeof(tls));
	kt_warn("otlp: %s: no answer (%s%s%s); retrying, records wait in the queue", o->c.url,
		(unsigned int)o->req_err < sizeof(what) / sizeof(what[0]) && what[o->req_err] ?
			what[o->req_err] :
			"failed",
		*tls ? ", TLS: " : "", tls);
}

static void post(struct kt_otlp *o)
{
	struct evhttp_connection *conn = kt_otlp_conn_get(o->conn);
	struct evhttp_request *req = conn ? evhttp_request_new(on_response, o) : NULL;
	struct evkeyvalq *h;
	char host[300];
	size_t i;

	if (!conn) {
		on_response(NULL, o); /* retried as for no answer */
		return;
	}
	if (req)
		evhttp_request_set_error_cb(req, on_error);
	o->req_err = EVREQ_HTTP_BUFFER_ERROR;
	if (!req || evbuffer_add(evhttp_request_get_output_buffer(req), o->body, o->body_len)) {
		kt_warn("otlp: out of memory for a request");
		if (req)
			evhttp_request_free(req);
		return;
	}
	h = evhttp_request_get_output_headers(req);
	snprintf(host, sizeof(host), "%s:%d", o->c.host, o->c.port);
	evhttp_add_header(h, "Host", host);
	evhttp_add_header(h, "User-Agent", "ksymtap/" KT_VERSION);
	evhttp_add_header(h, "Content-Type",
			  o->body_proto == KT_OTLP_JSON ? "application/json" :
							  "application/x-protobuf");
	if (o->body_gzip)
		evhttp_add_header(h, "Content-Encoding", "gzip");
	for (i = 0; i < o->c.nheaders; i++)
		evhttp_add_header(h, o->c.headers[i].key, o->c.headers[i].value);
	if (evhttp_make_request(conn, req, EVHTTP_REQ_POST, o->c.path)) {
		/* evhttp freed req; try again as for no answer. */
		on_response(NULL, o);
		return;
	}
	o->busy = true;
}

static void arm(struct kt_otlp *o, unsigned int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	evtimer_add(o->timer, &tv);
	o->timer_armed = true;
}

/* The filled batch as a request body: *body of *len bytes, gzipped as
 * configured (*gzip says whether it is).  0, or -errno with the batch
 * dropped and counted. */
static int encode_batch(struct kt_otlp *o, char **body, size_t *len, bool *gzip)
{
	ssize_t n = kt_otlp_encode(o->batch, o->nbatch, &o->c.resource, o->c.proto, body);

	if (n < 0) {
		kt_warn("otlp: encoding %zu records: %s; dropped", o->nbatch, strerror((int)-n));
		count(o, ST_DROP_REFUSED, o->nbatch);
		o->nbatch = 0;
		return (int)n;
	}
	*len = n;
	*gzip = false;
	if (o->c.gzip && gzip_body(body, len))
		kt_warn("otlp: gzip failed; sending the request uncompressed");
	else
		*gzip = o->c.gzip;
	return 0;
}

/* A batch is ready to go: full, its delay over (due), or stopping.  A
 * partial one arms the delay (unless a retry holds the timer). */
static bool batch_ready(struct kt_otlp *o, bool due)
{
	fill(o);
	if (!o->nbatch)
		return false;
	if (o->nbatch < o->c.batch_max && !due && !atomic_load(&o->stopping)) {
		if (!o->timer_armed)
			arm(o, o->c.delay_ms);
		return false;
	}
	return true;
}

static void publish_spool(struct kt_otlp *o)
{
	atomic_store(&o->spool_bytes, o->spool.bytes);
	atomic_store(&o->spool_records, o->spool.records);
}

/* A request into the spool, behind the others.  0, or -errno said once
 * (until the spool takes one again). */
static int spool(struct kt_otlp *o, const char *body, size_t len, unsigned int records,
		 enum kt_otlp_protocol proto, bool gzip)
{
	int err = kt_spool_put(&o->spool, body, len, records, proto, gzip);

	if (!err) {
		count(o, ST_SPOOLED, records);
		publish_spool(o);
		o->spool_said = false;
		return 0;
	}
	if (!o->spool_said)
		kt_warn("otlp: spool %s: %s; records dropped while it is (ksymtap_otlp_dropped_records_total{reason=\"spool\"})",
			o->spool.dir, err == -ENOSPC ? "full (--otlp-spool-size)" : strerror(-err));
	o->spool_said = true;
	return err;
}

/* While the collector does not answer, or the spool still holds older
 * requests: the batches that are ready go to the spool, behind them. */
static void spool_batches(struct kt_otlp *o, bool due)
{
	char *body = NULL;
	size_t len;
	bool gzip;

	while (batch_ready(o, due)) {
		if (encode_batch(o, &body, &len, &gzip))
			continue;
		if (spool(o, body, len, o->nbatch, o->c.proto, gzip))
			count(o, ST_DROP_SPOOL, o->nbatch);
		o->nbatch = 0;
		free(body);
		body = NULL;
	}
}

/* The spool's oldest request out.  false: the spool is empty. */
static bool send_spooled(struct kt_otlp *o)
{
	const struct kt_spool_file *f;
	int err;

	while ((f = kt_spool_head(&o->spool))) {
		err = kt_spool_read_head(&o->spool, &o->body, &o->body_len);
		if (!err) {
			o->body_records = f->records;
			o->body_proto = f->proto;
			o->body_gzip = f->gzip;
			o->from_spool = true;
			post(o);
			return true;
		}
		kt_warn("otlp: spool %s: reading its oldest file: %s; its %u records dropped",
			o->spool.dir, strerror(-err), f->records);
		count(o, ST_DROP_SPOOL, f->records);
		kt_spool_pop(&o->spool);
		publish_spool(o);
	}
	return false;
}

/* Send the next request if one is due: the spool's oldest, else a batch
 * that is full or whose delay is over (due). */
static void pump(struct kt_otlp *o, bool due)
{
	if (o->spool_on && (o->attempt || !kt_spool_empty(&o->spool)))
		spool_batches(o, due);
	if (o->busy || o->attempt)
		return; /* an answer or a retry is awaited */
	if (o->spool_on && send_spooled(o))
		return;
	if (!batch_ready(o, due) || encode_batch(o, &o->body, &o->body_len, &o->body_gzip))
		return;
	o->body_records = o->nbatch;
	o->body_proto = o->c.proto;
	o->from_spool = false;
	o->nbatch = 0;
	post(o);
}

/* Stopping, and nothing left to send or wait for: end the thread's loop.
 * With a spool, a collector that does not answer is not waited for: what
 * is left goes to the spool (kt_otlp_close). */
static void maybe_done(struct kt_otlp *o)
{
	if (!atomic_load(&o->stopping))
		return;
	if ((o->spool_on && o->attempt && !o->busy) ||
	    (!o->busy && !o->body && !o->nbatch && !o->cur.bytes &&
	     (!o->spool_on || kt_spool_empty(&o->spool))))
		event_base_loopbreak(o->base);
}

/* The request is done with: taken, or refused for good. */
static void done_batch(struct kt_otlp *o)
{
	if (o->from_spool) {
		kt_spool_pop(&o->spool);
		publish_spool(o);
	}
	free(o->body);
	o->body = NULL;
	o->body_records = 0;
	o->from_spool = false;
	o->attempt = 0;
}

/* After Retry-After (seconds) if the collector gave one, else 1 s, 2 s,
 * 4 s ... up to 30 s, each times a random 0.8 to 1.2. */
static unsigned int retry_ms(struct kt_otlp *o, struct evhttp_request *req)
{
	const char *ra =
		req ? evhttp_find_header(evhttp_request_get_input_headers(req), "Retry-After") :
		      NULL;
	unsigned int ms = BACKOFF_FIRST_MS;
	char *end;
	long s;

	if (ra) {
		s = strtol(ra, &end, 10);
		if (end != ra && !*end && s >= 0 && s <= 3600)
			return s * 1000;
	}
	for (unsigned int i = 1; i < o->attempt && ms < BACKOFF_MAX_MS; i++)
		ms *= 2;
	ms = ms > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : ms;
	return ms * (0.8 + 0.4 * ((double)random() / RAND_MAX));
}

static void answered(struct kt_otlp *o, struct evhttp_request *req)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(in);
	long long rejected = 0;
	char msg[256];

	if (kt_otlp_parse_response(evbuffer_pullup(in, len), len, o->body_proto, &rejected, msg,
				   sizeof(msg)))
		kt_debug("otlp: the collector's answer is not an ExportLogsServiceResponse");
	if (rejected > 0) {
		count(o, ST_REJECTED, rejected);
		kt_warn("otlp: the collector rejected %lld of %u records%s%s", rejected,
			o->body_records, *msg ? ": " : "", msg);
	}
	count(o, ST_SENT, o->body_records - (rejected > 0 ? (unsigned int)rejected : 0));
	count(o, ST_REQUESTS, 1);
	done_batch(o);
}

static void on_response(struct evhttp_request *req, void *arg)
{
	struct kt_otlp *o = arg;
	int code = req ? evhttp_request_get_response_code(req) : 0;

	o->busy = false;
	if (code && o->said_down) {
		kt_info("otlp: %s answers again", o->c.url);
		o->said_down = false;
	}
	if (!code)
		say_down(o);
	if (code >= 200 && code < 300) {
		answered(o, req);
	} else if (!code || code == 429 || code == 502 || code == 503 || code == 504) {
		o->attempt++;
		count(o, ST_RETRIES, 1);
		kt_debug("otlp: %s: %d; retry %u", o->c.url, code, o->attempt);
		arm(o, retry_ms(o, req));
		/* Kept on disk from now on: the spool was empty, or this
		 * would be its oldest file. */
		if (o->spool_on && !o->from_spool &&
		    !spool(o, o->body, o->body_len, o->body_records, o->body_proto, o->body_gzip))
			o->from_spool = true;
	} else {
		if (o->said_status != code)
			kt_warn("otlp: %s answered %d; %u records dropped (not retried: only 429, 502, 503 and 504 are)",
				o->c.url, code, o->body_records);
		o->said_status = code;
		count(o, ST_DROP_REFUSED, o->body_records);
		done_batch(o);
	}
	pump(o, false);
	maybe_done(o);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct kt_otlp *o = arg;

	o->timer_armed = false;
	if (o->attempt && o->body) {
		if (o->spool_on)
			spool_batches(o, true);
		post(o); /* the same request again */
		return;
	}
	pump(o, true);
	maybe_done(o);
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
	struct kt_otlp *o = arg;
	__u64 v;

	if (read(o->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		kt_debug("otlp: eventfd: %m");
	if (atomic_load(&o->stopping) && !o->deadline_armed) {
		struct timeval tv = { o->stop_ms / 1000, (o->stop_ms % 1000) * 1000 };

		evtimer_add(o->deadline, &tv);
		o->deadline_armed = true;
	}
	pump(o, false);
	maybe_done(o);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	event_base_loopbreak(((struct kt_otlp *)arg)->base);
}

static void *exporter(void *arg)
{
	struct kt_otlp *o = arg;

	event_base_dispatch(o->base);
	return NULL;
}

static int set_up_thread_side(struct kt_otlp *o, char *why, size_t why_size)
{
	int err;

	o->base = event_base_new();
	if (!o->base)
		return snprintf(why, why_size, "otlp: the event loop: out of memory"), -ENOMEM;
	err = kt_otlp_conn_new(&o->conn, o->base, &o->c, why, why_size);
	if (err)
		return err;
	o->wake = event_new(o->base, o->efd, EV_READ | EV_PERSIST, on_wake, o);
	o->timer = evtimer_new(o->base, on_timer, o);
	o->deadline = evtimer_new(o->base, on_deadline, o);
	if (!o->wake || !o->timer || !o->deadline || event_add(o->wake, NULL)) {
		snprintf(why, why_size, "otlp: the event loop: out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int open_spool(struct kt_otlp *o, char *why, size_t why_size)
{
	int err;

	if (!o->c.spool_dir[0])
		return 0;
	err = kt_spool_open(&o->spool, o->c.spool_dir, o->c.spool_bytes, why, why_size);
	if (err)
		return err;
	o->spool_on = true;
	publish_spool(o);
	if (o->spool.records)
		kt_info("otlp: spool %s holds %llu records (%zu bytes) an earlier run could not send; they go first",
			o->spool.dir, o->spool.records, o->spool.bytes);
	return 0;
}

int kt_otlp_open(struct kt_otlp **out, const struct kt_otlp_config *c, struct kt_pipeline *p,
		 char *why, size_t why_size)
{
	struct kt_otlp *o = calloc(1, sizeof(*o));
	struct timespec ts;
	int err;

	if (o)
		o->efd = -1;
	if (o)
		o->spool.dirfd = o->spool.lockfd = -1;
	if (!o)
		return snprintf(why, why_size, "otlp: out of memory"), -ENOMEM;
	kt_otlp_config_copy(&o->c, c);
	o->sink.name = "otlp";
	o->sink.record = sink_record;
	if (kt_perf_clock_offset(&o->clock_off))
		o->clock_off = 0;
	/* Sequence numbers are per boot: from CLOCK_BOOTTIME's ns at the start,
	 * so a restarted ksymtap begins past every number the last one gave
	 * (it gave fewer than one a nanosecond). */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	o->seq = (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	o->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	o->batch = calloc(c->batch_max, sizeof(*o->batch));
	err = o->efd < 0 || !o->batch || kt_fifo_init(&o->q, c->queue_bytes) ? -ENOMEM : 0;
	if (err)
		snprintf(why, why_size, "otlp: out of memory");
	err = err ?: set_up_thread_side(o, why, why_size);
	err = err ?: open_spool(o, why, why_size);
	if (!err && (err = kt_pipeline_add_sink(p, &o->sink)))
		snprintf(why, why_size, "otlp: %s", strerror(-err));
	if (err) {
		kt_otlp_close(o);
		return err;
	}
	kt_info("otlp: exporting to %s (%s%s)", o->c.url,
		c->proto == KT_OTLP_JSON ? "http/json" : "http/protobuf", c->gzip ? ", gzip" : "");
	*out = o;
	return 0;
}

int kt_otlp_start(struct kt_otlp *o)
{
	__u64 one = 1;
	int err;

	if (!o || o->running)
		return 0;
	err = -pthread_create(&o->thread, NULL, exporter, o);
	if (err)
		kt_err("otlp: starting its thread: %s", strerror(-err));
	o->running = !err;
	/* What the spool holds goes out before any new record arrives. */
	if (!err && o->spool_on && !kt_spool_empty(&o->spool) &&
	    write(o->efd, &one, sizeof(one)) < 0)
		kt_debug("otlp: waking the exporter: %m");
	return err;
}

/* After the thread: what it did not send (the request out when it
 * stopped, the batch, the queue, in that order) into the spool, or
 * counted.  The records neither sent nor spooled. */
static unsigned long long keep_rest(struct kt_otlp *o)
{
	unsigned long long left = 0;
	char *body = NULL;
	size_t len;
	bool gzip;

	if (o->body && !o->from_spool &&
	    (!o->spool_on ||
	     spool(o, o->body, o->body_len, o->body_records, o->body_proto, o->body_gzip)))
		left += o->body_records;
	if (!o->spool_on) {
		for (left += o->nbatch; next_entry(o); left++)
			;
		return left;
	}
	while (batch_ready(o, true)) {
		if (encode_batch(o, &body, &len, &gzip))
			continue;
		if (spool(o, body, len, o->nbatch, o->c.proto, gzip))
			left += o->nbatch;
		o->nbatch = 0;
		free(body);
		body = NULL;
	}
	return left;
}

void kt_otlp_close(struct kt_otlp *o)
{
	struct kt_otlp_stats st;
	unsigned long long left;
	__u64 one = 1;

	if (!o)
		return;
	if (o->running) {
		/* The thread sends what is queued, then stops; or stops at the
		 * deadline it arms itself (no libevent call crosses threads). */
		o->stop_ms = o->c.timeout_ms;
		atomic_store(&o->stopping, true);
		if (write(o->efd, &one, sizeof(one)) < 0)
			kt_debug("otlp: waking the exporter: %m");
		pthread_join(o->thread, NULL);
	}
	atomic_store(&o->stopping, true);
	left = keep_rest(o);
	count(o, ST_DROP_END, left);
	kt_otlp_get_stats(o, &st);
	if (left)
		kt_warn("otlp: %llu records not sent before the end (%s; %llu sent)", left,
			o->c.url, st.sent);
	if (o->spool_on && o->spool.records)
		kt_info("otlp: %llu records wait in the spool %s for the next start",
			o->spool.records, o->spool.dir);
	if (o->spool_on)
		kt_spool_close(&o->spool);
	kt_otlp_conn_free(o->conn);
	if (o->wake)
		event_free(o->wake);
	if (o->timer)
		event_free(o->timer);
	if (o->deadline)
		event_free(o->deadline);
	if (o->base)
		event_base_free(o->base);
	if (o->efd >= 0)
		close(o->efd);
	kt_fifo_fini(&o->q);
	free(o->body);
	free(o->batch);
	free(o);
}

void kt_otlp_get_stats(struct kt_otlp *o, struct kt_otlp_stats *st)
{
	size_t peak;

	st->sent = atomic_load(&o->st[ST_SENT]);
	st->rejected = atomic_load(&o->st[ST_REJECTED]);
	st->dropped_queue = atomic_load(&o->st[ST_DROP_QUEUE]);
	st->dropped_refused = atomic_load(&o->st[ST_DROP_REFUSED]);
	st->dropped_end = atomic_load(&o->st[ST_DROP_END]);
	st->requests = atomic_load(&o->st[ST_REQUESTS]);
	st->retries = atomic_load(&o->st[ST_RETRIES]);
	st->dropped_spool = atomic_load(&o->st[ST_DROP_SPOOL]);
	st->spooled = atomic_load(&o->st[ST_SPOOLED]);
	st->spool_bytes = atomic_load(&o->spool_bytes);
	st->spool_records = atomic_load(&o->spool_records);
	st->spool_bound = o->spool_on ? o->c.spool_bytes : 0;
	kt_fifo_usage(&o->q, &st->queue_bytes, &peak);
	st->queue_bound = o->q.bound;
}
