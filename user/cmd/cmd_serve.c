// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap serve: the table and the live stream for every client of a Unix socket. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/loop.h"
#include "serve/metrics.h"
#include "serve/metrics_http.h"
#include "sink/pipeline.h"
#include "serve/serve.h"

static const char serve_help[] =
	"Usage: ksymtap serve --socket PATH [OPTIONS]\n"
	"\n"
	"Run as a daemon that serves the live table of dynamic kernel symbols over a\n"
	"Unix stream socket.  Every client first gets the current table (records\n"
	"marked snapshot), then every change as it happens, in the format it asks for\n"
	"with a one-line handshake (docs/serve.md; 'ksymtap tail' is such a client).\n"
	"JSON records carry the loader's pid, comm, cgroup id and path, and the\n"
	"container runtime, container id and pod UID the path names.\n"
	"\n"
	"Clients may also ask what held an address at a time (mode=query): the daemon\n"
	"keeps every symbol's birth and death, bounded by --history and --history-age;\n"
	"'ksymtap resolve/kallsyms/symbolize -s PATH' are such clients.  It also keeps\n"
	"each BPF program's code (bpf_prog_info and BTF, read as it loads) and the\n"
	"bytes of trampolines and other code (from /proc/kcore) as long as the\n"
	"history keeps them, within --code-size, for 'ksymtap disasm -s PATH'\n"
	"(mode=code; --no-code: none).\n"
	"\n"
	"A client that does not keep up never slows the others or the kernel side: its\n"
	"queue is bounded; on overflow it is sent a LOST record with the count and then\n"
	"the table anew once it has read what was queued.\n"
	"\n"
	"The socket is mode 0600: the stream carries kernel addresses (KASLR).  A\n"
	"stale socket file is replaced; one a daemon still answers on is not.\n"
	"SIGINT/SIGTERM: stop accepting, send what is queued (up to 2 s), close the\n"
	"clients, remove the socket, exit 0.\n"
	"\n"
	"Options:\n";

static const char serve_examples[] =
	"\n"
	"Examples:\n"
	"  ksymtap serve -s /run/ksymtap.sock\n"
	"  ksymtap serve -s /run/ksymtap/sock --socket-mode 0660 --socket-group ksymtap \\\n"
	"      --metrics-file /var/lib/node_exporter/textfile/ksymtap.prom\n"
	"  ksymtap serve -s /run/ksymtap.sock --metrics-listen 9464\n"
	"  curl -s http://127.0.0.1:9464/metrics\n"
	"  ksymtap tail -s /run/ksymtap.sock | jq 'select(.container_id) | .name'\n";

struct serve_cfg {
	struct kt_serve_opts so;
	const char *metrics_file;
	double metrics_interval;
	const char *metrics_listen;
};

/* What the serve loop works with. */
struct serve_run {
	const struct serve_cfg *cfg;
	const struct kt_common *c;
	struct kt_backend *b;
	struct kt_pipeline *p;
	struct kt_server *s;
	struct kt_metrics_http *http; /* NULL: no --metrics-listen */
	double start;
	bool warned; /* of a failed --metrics-file write, until one succeeds */
	/* The loop: the socket and its clients (the server's), the backend, the
	 * HTTP thread's eventfd, the next wake-up, --metrics-file's interval,
	 * --duration's end, SIGINT and SIGTERM. */
	struct kt_loop *l;
	struct kt_watch backend, http_w;
	struct kt_timer wake, metrics, end;
	struct kt_stop_signals sig;
};

/* A group name from /etc/group itself: getgrnam() in a static binary would
 * need glibc's NSS modules at run time, which containers do not have. */
static int parse_group(const char *s, gid_t *gid)
{
	char line[1024], *end;
	size_t n = strlen(s);
	unsigned long v;
	FILE *f;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!errno && end != s && !*end) {
		*gid = v;
		return 0;
	}
	f = fopen("/etc/group", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *gf;

		if (strncmp(line, s, n) || line[n] != ':')
			continue;
		gf = strchr(line + n + 1, ':');
		if (!gf)
			continue;
		v = strtoul(gf + 1, &end, 10);
		if (end == gf + 1 || *end != ':')
			continue;
		fclose(f);
		*gid = v;
		return 0;
	}
	fclose(f);
	return -ENOENT;
}

/* The socket's options: where, who may connect, how much each may queue. */
static int socket_opt(struct kt_serve_opts *so, int opt, const char *arg)
{
	unsigned long long v;
	char *end;

	switch (opt) {
	case 's':
		so->path = arg;
		return 1;
	case OPT_SOCKET_MODE:
		errno = 0;
		v = strtoul(arg, &end, 8);
		if (errno || end == arg || *end || v > 0777 || (v & 0600) != 0600) {
			kt_err("--socket-mode: '%s' is not an octal mode with owner read/write",
			       arg);
			return -1;
		}
		so->mode = v;
		return 1;
	case OPT_SOCKET_GROUP:
		if (parse_group(arg, &so->gid)) {
			kt_err("--socket-group: no group '%s'", arg);
			return -1;
		}
		return 1;
	case OPT_CLIENT_QUEUE:
		if (kt_parse_size(arg, &v) || v < 16 * 1024 || v > (1ULL << 32)) {
			kt_err("--client-queue: '%s' is not a size between 16K and 4G", arg);
			return -1;
		}
		so->queue = v;
		return 1;
	case OPT_MAX_CLIENTS:
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || v < 1 || v > 10000) {
			kt_err("--max-clients: '%s' is not a number between 1 and 10000", arg);
			return -1;
		}
		so->max_clients = v;
		return 1;
	}
	return 0;
}

/* The history's bounds and the metrics. */
static int serve_opt(void *ctx, int opt, const char *arg)
{
	struct serve_cfg *cfg = ctx;
	unsigned long long v;
	double sec;
	char *end;

	switch (opt) {
	case 'f':
		kt_err("serve: each client picks its format in the handshake (docs/serve.md)");
		return -1;
	case OPT_HISTORY:
		errno = 0;
		v = strtoull(arg, &end, 10);
		if (errno || end == arg || *end || v > 100000000) {
			kt_err("--history: '%s' is not a number of symbols up to 100000000", arg);
			return -1;
		}
		cfg->so.history_max = v;
		return 1;
	case OPT_HISTORY_AGE:
		errno = 0;
		sec = strtod(arg, &end);
		if (errno || end == arg || *end || !(sec >= 0) || sec > 1e7) {
			kt_err("--history-age: '%s' is not a number of seconds", arg);
			return -1;
		}
		cfg->so.history_age = (__u64)(sec * 1e9);
		return 1;
	case OPT_NO_CODE:
		cfg->so.no_code = true;
		return 1;
	case OPT_CODE_SIZE:
		if (kt_parse_size(arg, &v) || v > (1ULL << 40)) {
			kt_err("--code-size: '%s' is not a size (up to 1T)", arg);
			return -1;
		}
		cfg->so.code_max = v;
		return 1;
	case OPT_METRICS_FILE:
		cfg->metrics_file = arg;
		return 1;
	case OPT_METRICS_INTERVAL:
		errno = 0;
		cfg->metrics_interval = strtod(arg, &end);
		if (errno || end == arg || *end || cfg->metrics_interval < 0.1) {
			kt_err("--metrics-interval: '%s' is not a number of seconds >= 0.1", arg);
			return -1;
		}
		return 1;
	case OPT_METRICS_LISTEN:
		cfg->metrics_listen = arg;
		return 1;
	}
	return socket_opt(&cfg->so, opt, arg);
}

static double unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill_metrics(const struct serve_run *r, struct kt_metrics *m, struct kt_serve_stats *st,
			 struct kt_otlp_stats *ot)
{
	struct kt_backend *b = r->b;

	kt_server_get_stats(r->s, st);
	*m = (struct kt_metrics){
		.backend = b->ops->name,
		.p = r->p,
		.ringbuf_lost = b->ops->dropped ? b->ops->dropped(b, false) : 0,
		.native_lost = b->ops->dropped ? b->ops->dropped(b, true) : 0,
		.hook_missed = b->ops->missed ? b->ops->missed(b) : 0,
		.has_hooks = b->ops->hooks != NULL,
		.hooks = b->ops->hooks ? b->ops->hooks(b) : 0,
		.serve = st,
		.start_time = r->start,
	};
	if (b->ops->skipped)
		m->hook_skipped = b->ops->skipped(b, &m->hook_made_up);
	if (b->ops->queue)
		b->ops->queue(b, &m->queue);
	if (r->c->otlp) {
		kt_otlp_get_stats(r->c->otlp, ot);
		m->otlp = ot;
	}
}

static void write_metrics(struct serve_run *r)
{
	struct kt_serve_stats st;
	struct kt_otlp_stats ot;
	struct kt_metrics m;
	int err;

	fill_metrics(r, &m, &st, &ot);
	err = kt_metrics_write(r->cfg->metrics_file, &m);
	/* A full disk must not stop the stream; say so once per failure run. */
	if (err && !r->warned)
		kt_warn("--metrics-file %s: %s (will keep trying)", r->cfg->metrics_file,
			strerror(-err));
	r->warned = err != 0;
}

/* A scrape waits (the HTTP thread's eventfd): render for it.  A failure
 * leaves the scrape the last text; the stream goes on either way. */
static void serve_scrape(struct serve_run *r)
{
	struct kt_serve_stats st;
	struct kt_otlp_stats ot;
	struct kt_metrics m;
	char *buf;
	size_t len;

	if (!kt_metrics_http_wanted(r->http))
		return;
	fill_metrics(r, &m, &st, &ot);
	if (kt_metrics_render(&m, &buf, &len))
		return;
	kt_metrics_http_publish(r->http, buf, len);
	free(buf);
}

/* After each round of the loop, whatever fired: the backend's records, the
 * pipeline's tick (the clients' new records go out), the server's tick
 * (handshake deadlines, closed clients freed), then the next wake-up. */
static void serve_after(void *ctx)
{
	struct serve_run *r = ctx;
	int err = r->b->ops->poll(r->b, 0);

	if (err >= 0)
		err = kt_pipeline_tick(r->p);
	if (err < 0) {
		kt_loop_exit(r->l, err);
		return;
	}
	kt_server_tick(r->s);
	kt_timer_at(&r->wake, kt_wake_min(kt_wake_min(r->b->wake_ns, kt_pipeline_wake_ns(r->p)),
					  kt_server_wake_ns(r->s)));
}

/* The backend's records and the timed work: both are serve_after()'s. */
static void on_backend(struct kt_watch *w, unsigned int what)
{
}

static void on_wake(struct kt_timer *t)
{
}

static void on_http(struct kt_watch *w, unsigned int what)
{
	serve_scrape(container_of(w, struct serve_run, http_w));
}

static void on_metrics(struct kt_timer *t)
{
	struct serve_run *r = container_of(t, struct serve_run, metrics);

	write_metrics(r);
	kt_timer_at(t, kt_monotonic_ns() + (__u64)(r->cfg->metrics_interval * 1e9));
}

static void on_end(struct kt_timer *t)
{
	kt_loop_exit(container_of(t, struct serve_run, end)->l, 0);
}

static void on_sig(struct kt_stop_signals *set, int sig)
{
	struct serve_run *r = container_of(set, struct serve_run, sig);

	kt_stop = 1;
	kt_loop_exit(r->l, 0);
}

/* The loop's timers and signals (its fds are added as they open). */
static int serve_arm(struct serve_run *r, const struct kt_common *c)
{
	int err = kt_timer_init(r->l, &r->wake, on_wake)	       ?:
			  kt_timer_init(r->l, &r->metrics, on_metrics) ?:
			  kt_timer_init(r->l, &r->end, on_end)	       ?:
			  kt_stop_signals_start(r->l, &r->sig, false, on_sig);

	if (err)
		return err;
	if (c->duration > 0)
		kt_timer_at(&r->end, kt_monotonic_ns() + (__u64)(c->duration * 1e9));
	if (r->cfg->metrics_file)
		kt_timer_at(&r->metrics, kt_monotonic_ns());
	kt_loop_after(r->l, serve_after, r);
	return 0;
}

/*
 * One loop (user/util/loop.h): the backend's fd, the listening socket,
 * every client, the HTTP thread's eventfd, and timers for what asked to be
 * woken (serve_after()); the one periodic timer is --metrics-file's.  Then,
 * stopping: no new clients, what the kernel made is passed on, the clients
 * get a bounded moment to read what is queued.
 */
static int serve_loop(struct serve_run *r, const struct kt_common *c)
{
	int err;

	r->start = unix_now();
	err = serve_arm(r, c);
	if (!err) {
		/* A signal that came before the loop's own handlers. */
		if (kt_stop)
			kt_loop_exit(r->l, 0);
		else
			serve_after(r);
		err = kt_loop_run(r->l);
	}
	kt_loop_after(r->l, NULL, NULL);
	if (err)
		return err;
	/* Stop accepting first: the socket file is gone as soon as we stop. */
	kt_server_stop_accepting(r->s);
	err = kt_drain(r->b, kt_pipeline_tick, r->p);
	if (err)
		return err;
	/* The last flush is not put off (the --kallsyms file). */
	err = kt_pipeline_flush(r->p);
	if (err)
		return err;
	kt_server_shutdown(r->s, 2000);
	if (r->cfg->metrics_file)
		write_metrics(r);
	return 0;
}

/* The loop, the socket, the HTTP listener, then the backend; prints its
 * error. */
static int serve_open(struct serve_run *r, struct kt_common *c)
{
	char why[300];
	int err;

	err = kt_loop_new(&r->l);
	if (err) {
		kt_err("the event loop: %s", strerror(-err));
		return err;
	}
	/* The sockets before the backend: a live daemon on the path, or a
	 * port in use, are the likelier failures, and loading BPF programs
	 * for nothing is slow. */
	err = kt_server_open(&r->s, &r->cfg->so, r->p, r->l, why, sizeof(why));
	if (err) {
		kt_err("%s", why);
		return err;
	}
	if (r->cfg->metrics_listen) {
		err = kt_metrics_http_start(&r->http, r->cfg->metrics_listen, why, sizeof(why));
		if (err) {
			kt_err("%s", why);
			return err;
		}
		err = kt_watch_start(r->l, &r->http_w, kt_metrics_http_fd(r->http), KT_IN, on_http);
		if (err) {
			kt_err("the event loop: %s", strerror(-err));
			return err;
		}
	}
	c->bo.code_stage = kt_server_code_stage(r->s);
	err = kt_open_backend(c, r->p, &r->b);
	if (err)
		return err;
	err = kt_watch_start(r->l, &r->backend, r->b->ops->fd(r->b), KT_IN, on_backend);
	if (err)
		kt_err("the event loop: %s", strerror(-err));
	return err;
}

static void serve_close_loop(struct serve_run *r)
{
	if (!r->l)
		return;
	kt_stop_signals_stop(&r->sig);
	kt_timer_fini(&r->wake);
	kt_timer_fini(&r->metrics);
	kt_timer_fini(&r->end);
	kt_watch_stop(&r->backend);
	kt_watch_stop(&r->http_w);
	kt_loop_free(r->l);
	r->l = NULL;
}

/* Open, start (the snapshot, the ready line), loop; prints its errors. */
static int serve_run(struct serve_run *r, struct kt_common *c)
{
	struct kt_kallsyms_file kf = { .err = 0 };
	char extra[300], why[300];
	int err;

	kt_install_signals();
	if (serve_open(r, c))
		return KT_EXIT_FAIL;
	/* The snapshot goes into the table before any client can connect, so
	 * every client's first walk includes it. */
	snprintf(extra, sizeof(extra), "; serving %s%s%s", r->cfg->so.path,
		 r->http ? "; metrics on " : "", r->http ? kt_metrics_http_url(r->http) : "");
	if (kt_live_start_ready(c, r->p, r->b, &kf, extra))
		return KT_EXIT_FAIL;
	if (r->http && (err = kt_metrics_http_run(r->http, why, sizeof(why)))) {
		kt_err("%s", why);
		return KT_EXIT_FAIL;
	}
	err = serve_loop(r, c);
	if (err) {
		kt_report(r->p, err, "serve");
		return KT_EXIT_FAIL;
	}
	return KT_EXIT_OK;
}

int cmd_serve(int argc, char **argv)
{
	struct serve_cfg cfg = {
		.so = { .gid = (gid_t)-1,
			.queue = 4 << 20,
			.max_clients = 64,
			.history_max = 100000,
			.history_age = 3600ULL * 1000000000ULL,
			.code_max = 64 << 20 },
		.metrics_interval = 5,
	};
	const struct kt_cmd cmd = {
		.name = "serve",
		.opts = kt_opts_serve,
		.usage = serve_help,
		.more = serve_examples,
		.opt = serve_opt,
		.ctx = &cfg,
	};
	struct kt_pipeline p;
	struct kt_common c;
	struct serve_run r = { .cfg = &cfg, .p = &p, .c = &c };
	int ret;

	kt_common_init(&c);
	c.otlp_ok = true;
	if (kt_cmd_parse(&cmd, &c, argc, argv, &ret) < 0)
		return ret;
	if (!cfg.so.path) {
		kt_err("serve: --socket PATH is required");
		return KT_EXIT_USAGE;
	}
	if (kt_pipeline_init(&p)) {
		kt_err("out of memory");
		return KT_EXIT_FAIL;
	}
	ret = serve_run(&r, &c);
	if (r.s)
		kt_server_shutdown(r.s, 0);
	kt_live_stop(&c);
	kt_metrics_http_stop(r.http);
	if (r.b)
		r.b->ops->close(r.b);
	kt_server_free(r.s);
	serve_close_loop(&r);
	kt_pipeline_fini(&p);
	return ret;
}
