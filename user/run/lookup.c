// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* lookup.h */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "encode/encode_answer.h"
#include "run/cli.h"
#include "record/kallsyms.h"
#include "util/fileio.h"
#include "util/log.h"
#include "run/lookup.h"
#include "history/resolve.h"
#include "serve/serve_proto.h"

/* The options the three commands share. */
struct lookup_opts {
	const char *in; /* -i FILE */
	const char *sock; /* -s SOCKET */
	const char *at; /* -t TIME */
	struct kt_otlp_select sel; /* --host, --boot */
};

static int lookup_opt(void *ctx, int opt, const char *arg)
{
	struct lookup_opts *o = ctx;

	if (opt == 'i')
		o->in = arg;
	else if (opt == 's')
		o->sock = arg;
	else if (opt == 't')
		o->at = arg;
	else if (opt == OPT_HOST)
		o->sel.host = arg;
	else if (opt == OPT_BOOT)
		o->sel.boot = arg;
	else
		return 0;
	return 1;
}

/* A connection with its handshake sent; -errno after one error line. */
static int connect_daemon(const char *path, const struct kt_hello *hello)
{
	char why[600];
	int fd = kt_hello_connect(path, hello, why, sizeof(why));

	if (fd < 0)
		kt_err("%s", why);
	return fd;
}

/* Open FILE or SOCKET and parse --at: 0, or the exit status after one
 * error line. */
static int lookup_open(const struct lookup_opts *o, const char *cmd, struct kt_lookup *l, __u64 *t)
{
	struct kt_hello hello;
	char why[512] = "";

	if (!o->in == !o->sock) {
		kt_err("%s needs one of -i FILE (a 'ksymtap record' file) and -s SOCKET (a "
		       "'ksymtap serve' daemon) (try 'ksymtap %s --help')",
		       cmd, cmd);
		return KT_EXIT_USAGE;
	}
	if (o->sock && (o->sel.host || o->sel.boot)) {
		kt_err("--host and --boot choose a node of an OTLP file (-i FILE), not of a daemon (-s)");
		return KT_EXIT_USAGE;
	}
	if (o->in && kt_history_load(&l->h, o->in, &o->sel, why, sizeof(why))) {
		kt_err("%s", why);
		return KT_EXIT_FAIL;
	}
	l->now = o->in ? l->h.end : KT_HIST_NOW;
	*t = l->now;
	if (o->at && kt_parse_time(o->at, l->now, t)) {
		kt_err("--at '%s' is not a time (ns, seconds.fraction or now)", o->at);
		return KT_EXIT_USAGE;
	}
	if (!o->sock)
		return 0;
	l->sock = o->sock;
	/* A daemon that goes away is an error line, not a SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	kt_hello_default(&hello);
	hello.fmt = KT_FMT_TEXT;
	hello.mode = KT_MODE_QUERY;
	l->fd = connect_daemon(o->sock, &hello);
	if (l->fd < 0)
		return KT_EXIT_FAIL;
	l->rd = fdopen(dup(l->fd), "r");
	if (!l->rd) {
		kt_err("%s: %m", o->sock);
		return KT_EXIT_FAIL;
	}
	return 0;
}

int kt_lookup_start(const struct kt_cmd *tmpl, int argc, char **argv, struct kt_lookup *l, __u64 *t,
		    int *status)
{
	struct lookup_opts o = { 0 };
	struct kt_cmd cmd = *tmpl;
	struct kt_common c;
	int first;

	memset(l, 0, sizeof(*l));
	kt_history_init(&l->h);
	l->fd = -1;
	kt_common_init(&c);
	cmd.opt = lookup_opt;
	cmd.ctx = &o;
	first = kt_cmd_parse(&cmd, &c, argc, argv, status);
	if (first < 0)
		return -1;
	*status = lookup_open(&o, cmd.name, l, t);
	return *status ? -1 : first;
}

void kt_lookup_fini(struct kt_lookup *l)
{
	if (l->rd)
		fclose(l->rd);
	if (l->fd >= 0)
		close(l->fd);
	kt_history_fini(&l->h);
}

/* The daemon's answer "ADDR NAME..." or "ADDR [unknown]". */
static int ask(struct kt_lookup *l, __u64 addr, __u64 t, char *buf, size_t size)
{
	char req[64], line[KT_NAME_MAX + 128], *sp;
	int n, err;

	if (t == KT_HIST_NOW)
		n = snprintf(req, sizeof(req), "%llx now\n", (unsigned long long)addr);
	else
		n = snprintf(req, sizeof(req), "%llx %llu\n", (unsigned long long)addr,
			     (unsigned long long)t);
	err = kt_write_all(l->fd, req, n);
	if (err) {
		kt_err("%s: the daemon is gone: %s", l->sock, strerror(-err));
		return err;
	}
	if (!fgets(line, sizeof(line), l->rd)) {
		kt_err("%s: the daemon closed the connection", l->sock);
		return -EPIPE;
	}
	line[strcspn(line, "\n")] = 0;
	if (!strncmp(line, "ksymtap: error: ", 16) || !strncmp(line, "error: ", 7)) {
		/* An older daemon without queries says so in its refusal. */
		kt_err("%s: %s", l->sock, strstr(line, "error: ") + 7);
		return -EPROTO;
	}
	sp = strchr(line, ' ');
	if (!sp) {
		kt_err("%s: not an answer: '%.64s'", l->sock, line);
		return -EPROTO;
	}
	if (!strcmp(sp + 1, "[unknown]"))
		return 0;
	snprintf(buf, size, "%s", sp + 1);
	return 1;
}

int kt_lookup_name(struct kt_lookup *l, __u64 addr, __u64 t, char *buf, size_t size)
{
	const struct kt_hsym *s;

	if (l->sock)
		return ask(l, addr, t, buf, size);
	s = kt_history_find(&l->h, addr, t);
	if (!s)
		return 0;
	kt_answer_text(buf, size, s, addr);
	return 1;
}

static int print_one(void *ctx, const struct kt_hsym *s)
{
	char line[KT_NAME_MAX + 64];

	if (kt_kallsyms_format(line, sizeof(line), s->addr, s->name, s->source) > 0)
		fputs(line, ctx);
	return 0;
}

/* mode=kallsyms: the daemon sends the lines and closes. */
static int daemon_kallsyms(struct kt_lookup *l, __u64 t, FILE *out)
{
	char line[KT_NAME_MAX + 128];
	struct kt_hello hello;
	int fd, status = KT_EXIT_OK;
	FILE *rd;

	kt_hello_default(&hello);
	hello.mode = KT_MODE_KALLSYMS;
	hello.at = t;
	fd = connect_daemon(l->sock, &hello);
	if (fd < 0)
		return KT_EXIT_FAIL;
	rd = fdopen(fd, "r");
	if (!rd) {
		close(fd);
		kt_err("%s: %m", l->sock);
		return KT_EXIT_FAIL;
	}
	while (fgets(line, sizeof(line), rd)) {
		if (!strncmp(line, "ksymtap: error: ", 16)) {
			line[strcspn(line, "\n")] = 0;
			kt_err("%s: %s", l->sock, line + 16);
			status = KT_EXIT_FAIL;
			break;
		}
		fputs(line, out);
	}
	if (ferror(rd)) {
		kt_err("%s: %m", l->sock);
		status = KT_EXIT_FAIL;
	}
	fclose(rd);
	return status;
}

int kt_lookup_kallsyms(struct kt_lookup *l, __u64 t, FILE *out)
{
	if (l->sock)
		return daemon_kallsyms(l, t, out);
	kt_history_each_at(&l->h, t, print_one, out);
	return KT_EXIT_OK;
}
