// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The serve query's lookup rate (issue 14: 1,000,000 lookups per second on
 * one core with 10,000 live symbols and 1,000,000 in the history), beside
 * what re-reading /proc/kallsyms costs with the same number of programs.
 *
 * The daemon's own code: a pipeline and kt_server on a socket in /tmp, fed
 * synthetic KSYMBOL records (programs packed 64-byte aligned into 512-byte
 * regions as bpf_prog_pack does; each death frees a region a new program of
 * another size takes, at another offset inside it), then
 *   lookup    kt_history_find() alone, random (address, time), in-process
 *   text/raw  a client process sends batches of requests over the socket and
 *             reads the answers; the daemon is this process's single thread:
 *             its CPU time (getrusage) is what the rate is per
 *   kallsyms  with --programs: read and parse /proc/kallsyms as a profiler
 *             does, before and after loading that many socket filters (root)
 * Prints "BENCH key=value" lines.
 *
 *   ktbquery [--live N] [--dead N] [--lookups N] [--batch N] [--programs N]
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include "history/history.h"
#include "sink/pipeline.h"
#include "serve/query.h"
#include "serve/serve.h"
#include "util/loop.h"

static unsigned long long rng = 88172645463325252ULL;

static unsigned long long xrand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

#define BASE 0xffffffffc0000000ULL
#define REGION 512

struct prog {
	__u64 addr;
	__u32 len;
	unsigned int gen;
};

static __u64 t_end;

static void emit(struct kt_pipeline *p, __u64 t, const struct prog *g, unsigned int i, bool unreg)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_KSYMBOL;
	r.time = t;
	r.addr = g->addr;
	r.len = g->len;
	r.ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF;
	r.source = KT_SRC_BPF_PROG;
	r.rflags = KT_RF_NO_TASK;
	r.flags = unreg ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0;
	snprintf(r.name, sizeof(r.name), "bpf_prog_%016llx_prog_%u_%u", (unsigned long long)xrand(),
		 i, g->gen);
	if (kt_pipeline_emit(p, &r)) {
		fprintf(stderr, "ktbquery: emit failed\n");
		exit(1);
	}
}

static void new_prog(struct prog *g, unsigned int i)
{
	unsigned int slots = 1 + xrand() % (REGION / 64);
	unsigned int at = xrand() % (REGION / 64 - slots + 1);

	g->addr = BASE + (__u64)i * REGION + at * 64;
	g->len = slots * 64 - xrand() % 48;
	g->gen++;
}

/* live programs, then churn until dead have died: one record per event,
 * 1 us apart. */
static void fill(struct kt_pipeline *p, unsigned int live, unsigned long dead)
{
	struct prog *v = calloc(live, sizeof(*v));
	__u64 t = 1000;
	unsigned long d;
	unsigned int i;

	for (i = 0; i < live; i++) {
		new_prog(&v[i], i);
		emit(p, t += 1000, &v[i], i, false);
	}
	for (d = 0; d < dead; d++) {
		i = xrand() % live;
		emit(p, t += 1000, &v[i], i, true);
		new_prog(&v[i], i);
		emit(p, t += 1000, &v[i], i, false);
	}
	t_end = t;
	free(v);
}

static void rand_query(unsigned int live, __u64 *addr, __u64 *t)
{
	*addr = BASE + xrand() % ((__u64)live * REGION);
	/* Half now (a profiler's fresh samples), half anywhere in the past. */
	*t = xrand() & 1 ? KT_HIST_NOW : xrand() % t_end;
}

static void bench_lookup(const struct kt_history *h, unsigned int live, unsigned long n)
{
	unsigned long i, found = 0;
	double t0, t1;
	__u64 a, t;

	t0 = now_s();
	for (i = 0; i < n; i++) {
		rand_query(live, &a, &t);
		found += kt_history_find(h, a, t) != NULL;
	}
	t1 = now_s();
	printf("BENCH query.lookup_per_s=%.0f\n", n / (t1 - t0));
	printf("BENCH query.lookup_found_pct=%.1f\n", 100.0 * found / n);
}

/* The client: n requests in batches, reading each batch's answers. */
static int client(const char *path, enum kt_format fmt, unsigned int live, unsigned long n,
		  unsigned int batch)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char *out = malloc(batch * 40), *in = malloc(1 << 20);
	unsigned long sent = 0, answered = 0;
	size_t len, inlen = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	const char *hello = fmt == KT_FMT_RAW ? "format=raw mode=query\n" :
						"format=text mode=query\n";
	ssize_t r;
	unsigned int i;
	__u64 a, t;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) || write(fd, hello, strlen(hello)) < 0)
		return 1;
	while (answered < n) {
		for (i = 0, len = 0; i < batch && sent < n; i++, sent++) {
			rand_query(live, &a, &t);
			if (fmt == KT_FMT_RAW) {
				if (t == KT_HIST_NOW)
					t = KT_QUERY_RAW_NOW;
				memcpy(out + len, &a, 8);
				memcpy(out + len + 8, &t, 8);
				len += 16;
			} else if (t == KT_HIST_NOW) {
				len += sprintf(out + len, "%llx\n", (unsigned long long)a);
			} else {
				len += sprintf(out + len, "%llx %llu\n", (unsigned long long)a,
					       (unsigned long long)t);
			}
		}
		if (len && write(fd, out, len) != (ssize_t)len)
			return 1;
		/* Read until this batch is answered. */
		while (answered < sent) {
			r = read(fd, in + inlen, (1 << 20) - inlen);
			if (r <= 0)
				return 1;
			inlen += r;
			if (fmt == KT_FMT_RAW) {
				size_t off = 0;

				while (inlen - off >= 8 &&
				       inlen - off >=
					       ((struct perf_event_header *)(in + off))->size) {
					off += ((struct perf_event_header *)(in + off))->size;
					answered++;
				}
				memmove(in, in + off, inlen - off);
				inlen -= off;
			} else {
				char *p = in, *nl;

				while ((nl = memchr(p, '\n', in + inlen - p))) {
					p = nl + 1;
					answered++;
				}
				inlen = in + inlen - p;
				memmove(in, p, inlen);
			}
		}
	}
	close(fd);
	return 0;
}

static void bench_socket(struct kt_server *s, struct kt_loop *l, const char *path,
			 enum kt_format fmt, unsigned int live, unsigned long n, unsigned int batch)
{
	const char *name = fmt == KT_FMT_RAW ? "raw" : "text";
	struct kt_serve_stats st;
	unsigned long long q0;
	double w0, c0;
	int status;
	pid_t pid;

	kt_server_get_stats(s, &st);
	q0 = st.queries;
	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(client(path, fmt, live, n, batch));
	w0 = now_s();
	c0 = cpu_s();
	for (;;) {
		kt_loop_once(l, 100);
		kt_server_tick(s);
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
	}
	kt_server_get_stats(s, &st);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || st.queries - q0 != n) {
		fprintf(stderr, "ktbquery: %s client failed (%llu of %lu answered)\n", name,
			st.queries - q0, n);
		exit(1);
	}
	printf("BENCH query.%s_per_daemon_cpu_s=%.0f\n", name, n / (cpu_s() - c0));
	printf("BENCH query.%s_per_wall_s=%.0f\n", name, n / (now_s() - w0));
}

/* Load n socket filters (JITed: n [bpf] lines in /proc/kallsyms), then
 * read and parse /proc/kallsyms as a profiler's refresh does. */
static double reread(const char *key)
{
	double t0, best = 1e9;
	unsigned int lines = 0, bpf = 0;
	char line[1024];
	int rep;
	FILE *f;

	for (rep = 0; rep < 5; rep++) {
		t0 = now_s();
		f = fopen("/proc/kallsyms", "r");
		lines = bpf = 0;
		while (f && fgets(line, sizeof(line), f)) {
			unsigned long long a;
			char type, name[512];

			if (sscanf(line, "%llx %c %511s", &a, &type, name) == 3)
				lines++;
			bpf += strstr(line, "[bpf]") != NULL;
		}
		if (f)
			fclose(f);
		if (now_s() - t0 < best)
			best = now_s() - t0;
	}
	printf("BENCH query.kallsyms%s_lines=%u\n", key, lines);
	printf("BENCH query.kallsyms%s_bpf_lines=%u\n", key, bpf);
	printf("BENCH query.kallsyms%s_reread_ms=%.1f\n", key, best * 1e3);
	return best;
}

static void bench_kallsyms(unsigned int n)
{
	struct bpf_insn prog[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 }, /* exit */
	};
	struct rlimit rl = { n + 64, n + 64 };
	unsigned int i;
	int fd;

	reread("_before");
	setrlimit(RLIMIT_NOFILE, &rl);
	for (i = 0; i < n; i++) {
		fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ktbq", "GPL", prog, 2, NULL);
		if (fd < 0) {
			fprintf(stderr, "ktbquery: loading program %u: %s\n", i, strerror(errno));
			return;
		}
	}
	reread("");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "live", required_argument, NULL, 'l' },
		{ "dead", required_argument, NULL, 'd' },
		{ "lookups", required_argument, NULL, 'n' },
		{ "batch", required_argument, NULL, 'b' },
		{ "programs", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long live = 10000, dead = 1000000, n = 2000000, batch = 1000, progs = 0;
	char dir[] = "/tmp/ktbquery-XXXXXX", path[64], why[256];
	struct kt_serve_opts so = { .gid = (gid_t)-1, .queue = 4 << 20, .max_clients = 4 };
	struct kt_serve_stats st;
	struct kt_pipeline p;
	struct kt_server *s;
	struct kt_loop *l;
	double t0;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		unsigned long v = strtoul(optarg, NULL, 10);

		if (c == 'l')
			live = v;
		else if (c == 'd')
			dead = v;
		else if (c == 'n')
			n = v;
		else if (c == 'b')
			batch = v;
		else if (c == 'p')
			progs = v;
		else
			return 2;
	}
	if (!live || !batch || !mkdtemp(dir))
		return 2;
	signal(SIGPIPE, SIG_IGN);
	snprintf(path, sizeof(path), "%s/sock", dir);
	so.path = path;
	so.history_max = dead;
	so.history_age = ~0ULL;
	snprintf(why, sizeof(why), "out of memory");
	if (kt_loop_new(&l) || kt_pipeline_init(&p) ||
	    kt_server_open(&s, &so, &p, l, why, sizeof(why))) {
		fprintf(stderr, "ktbquery: %s\n", why);
		return 1;
	}
	t0 = now_s();
	fill(&p, live, dead);
	kt_server_tick(s);
	kt_server_get_stats(s, &st);
	printf("BENCH query.live=%zu\n", st.hist_live);
	printf("BENCH query.dead=%zu\n", st.hist_dead);
	printf("BENCH query.history_mb=%.1f\n", st.hist_bytes / 1048576.0);
	printf("BENCH query.fill_s=%.2f\n", now_s() - t0);
	bench_lookup(kt_server_history(s), live, n);
	bench_socket(s, l, path, KT_FMT_TEXT, live, n, batch);
	bench_socket(s, l, path, KT_FMT_RAW, live, n, batch);
	kt_server_shutdown(s, 0);
	kt_server_free(s);
	kt_pipeline_fini(&p);
	kt_loop_free(l);
	rmdir(dir);
	if (progs)
		bench_kallsyms(progs);
	return 0;
}
