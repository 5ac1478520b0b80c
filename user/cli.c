// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "clock.h"
#include "hooks.h"
#include "log.h"
#include "snapshot.h"

volatile sig_atomic_t kt_stop;

const char kt_common_help[] =
	"  -b, --backend bpf|native|auto\n"
	"                       bpf: ksymtap's fentry/fexit programs; native: the\n"
	"                       kernel's own perf records; auto (default): bpf, else\n"
	"                       native, saying why on stderr\n"
	"  -f, --format text|json|raw\n"
	"                       text (default): perf script --show-bpf-events lines;\n"
	"                       json: one object per line; raw: binary perf records\n"
	"  -d, --duration SEC   stop after SEC seconds (default: SIGINT/SIGTERM)\n"
	"      --ringbuf-size SIZE\n"
	"                       BPF ring buffer size, a power of two (default 1M)\n"
	"      --native-pages N data pages per CPU of the native rings (default 64)\n"
	"      --wakeup-ms MS   bpf: wake the reader at most every MS ms (default 10),\n"
	"                       or when a quarter of the ring is waiting; 0 wakes\n"
	"                       it for every record (lowest latency, most cost on\n"
	"                       the program-load path)\n"
	"      --disable-hook NAME\n"
	"                       do not attach hook NAME (program or kernel function\n"
	"                       name, see -v); repeatable\n"
	"  -v, --verbose        every hook and why any is off; libbpf's messages\n"
	"  -h, --help           this text\n";

const char kt_live_help[] =
	"      --no-snapshot    do not list what exists at start-up; only what is\n"
	"                       registered and unregistered from then on\n"
	"      --kallsyms FILE  keep FILE as a kallsyms-format list of the live\n"
	"                       dynamic symbols (perf report --kallsyms FILE),\n"
	"                       replaced atomically on a change, at most every\n"
	"                       100 ms\n"
	"      --cgroup-root DIR\n"
	"                       the host's cgroup2 mount, for JSON's cgroup paths\n"
	"                       (default /sys/fs/cgroup; in a container, where the\n"
	"                       host's tree is mounted)\n";

void kt_print_common_help(const char *omit)
{
	const char *p = kt_common_help, *nl;
	bool skip = false;

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		/* An option starts "  -x," or "      --long"; its text follows. */
		if (!strncmp(p, "  -", 3) || !strncmp(p, "      --", 8))
			skip = omit && !strncmp(p + 2, omit, strlen(omit));
		if (!skip)
			fwrite(p, 1, nl + 1 - p, stdout);
	}
}

void kt_common_init(struct kt_common *c)
{
	memset(c, 0, sizeof(*c));
	c->backend = "auto";
	/* 1M: ~8,000 records (~2,000 program loads and unloads) of headroom;
	 * no losses in a 20,000-program burst (BENCHMARKS.md).  The ring is
	 * mapped twice into the reader (wrap-around), all of it resident, so its
	 * size counts double in ksymtap's RSS. */
	c->bo.ringbuf_size = 1 << 20;
	c->bo.native_pages = 64;
	c->bo.wakeup_ms = 10;
	c->bo.walker = true;
	c->fmt = KT_FMT_TEXT;
}

int kt_parse_size(const char *s, unsigned long long *out)
{
	unsigned long long v, mul = 1;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		mul = 1ULL << 10;
	else if (*end == 'm' || *end == 'M')
		mul = 1ULL << 20;
	else if (*end == 'g' || *end == 'G')
		mul = 1ULL << 30;
	else if (*end)
		return -EINVAL;
	if (*end && end[1])
		return -EINVAL;
	if (v > (~0ULL) / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

static bool pow2(unsigned long long v)
{
	return v && !(v & (v - 1));
}

int kt_common_opt(struct kt_common *c, int opt, const char *arg)
{
	unsigned long long v;
	char *end;
	int h;

	switch (opt) {
	case 'b':
		if (!kt_backend_valid_name(arg)) {
			kt_err("--backend: '%s' is not bpf, native or auto", arg);
			return -1;
		}
		c->backend = arg;
		return 1;
	case 'f':
		if (kt_format_parse(arg, &c->fmt)) {
			kt_err("--format: '%s' is not text, json or raw", arg);
			return -1;
		}
		return 1;
	case 'd':
		errno = 0;
		c->duration = strtod(arg, &end);
		if (errno || end == arg || *end || c->duration <= 0) {
			kt_err("--duration: '%s' is not a positive number of seconds", arg);
			return -1;
		}
		return 1;
	case OPT_RINGBUF_SIZE: {
		long pg = sysconf(_SC_PAGESIZE);

		if (kt_parse_size(arg, &v) || !pow2(v) || v < (unsigned long long)pg ||
		    v > (1ULL << 31)) {
			kt_err("--ringbuf-size: '%s' is not a power of two between %ld and 2G", arg,
			       pg);
			return -1;
		}
		c->bo.ringbuf_size = v;
		return 1;
	}
	case OPT_WAKEUP_MS:
		errno = 0;
		v = strtoull(arg, &end, 10);
		if (errno || end == arg || *end || v > 1000) {
			kt_err("--wakeup-ms: '%s' is not a number of milliseconds up to 1000", arg);
			return -1;
		}
		c->bo.wakeup_ms = v;
		return 1;
	case OPT_NATIVE_PAGES:
		if (kt_parse_size(arg, &v) || !pow2(v) || v > 65536) {
			kt_err("--native-pages: '%s' is not a power of two up to 65536", arg);
			return -1;
		}
		c->bo.native_pages = v;
		return 1;
	case OPT_DISABLE_HOOK:
		h = kt_hook_lookup(arg);
		if (h < 0) {
			kt_err("--disable-hook: no hook named '%s' (see ksymtap -v)", arg);
			return -1;
		}
		c->bo.disabled |= 1UL << h;
		return 1;
	case OPT_NO_SNAPSHOT:
		c->no_snapshot = true;
		c->bo.walker = false;
		return 1;
	case OPT_CGROUP_ROOT:
		if (!arg[0]) {
			kt_err("--cgroup-root: empty directory name");
			return -1;
		}
		c->cgroup_root = arg;
		return 1;
	case OPT_KALLSYMS:
		if (!arg[0]) {
			kt_err("--kallsyms: empty file name");
			return -1;
		}
		c->kallsyms = arg;
		return 1;
	case 'v':
		kt_verbose++;
		return 1;
	}
	return 0;
}

struct adopt_ctx {
	struct kt_pipeline *p;
	struct kt_backend *b;
};

static int emit_and_adopt(void *ctx, struct kt_record *r)
{
	struct adopt_ctx *a = ctx;
	int err;

	err = a->b->ops->adopt(a->b, r);
	if (err)
		kt_warn("snapshot: %s at %llx: the backend will not see it go: %s", r->name,
			(unsigned long long)r->addr, strerror(-err));
	return kt_pipeline_emit(a->p, r);
}

int kt_emit_snapshot(struct kt_pipeline *p, struct kt_backend *b)
{
	struct adopt_ctx a = { .p = p, .b = b };
	struct kt_walker wk = { .prog_fd = -1, .map_fd = -1 };
	struct kt_snapshot_stats st;
	char why[256] = "";
	int err;

	if (b && b->ops->walker)
		b->ops->walker(b, &wk);
	if (b && b->ops->adopt)
		err = kt_snapshot(&wk, emit_and_adopt, &a, &st, why, sizeof(why));
	else
		err = kt_snapshot(&wk, kt_pipeline_emit, p, &st, why, sizeof(why));
	if (err && why[0])
		kt_err("snapshot: %s", why);
	return err;
}

int kt_live_start(struct kt_common *c, struct kt_pipeline *p, struct kt_backend *b,
		  struct kt_kallsyms_file *kf)
{
	return kt_live_start_ready(c, p, b, kf, "");
}

int kt_live_start_ready(struct kt_common *c, struct kt_pipeline *p, struct kt_backend *b,
			struct kt_kallsyms_file *kf, const char *ready_extra)
{
	char sources[128];
	int err;

	if (c->cgroup_root && kt_pipeline_cgroup_root(p, c->cgroup_root))
		kt_warn("--cgroup-root %s is not a usable cgroup2 mount; cgroup paths are unknown",
			c->cgroup_root);
	if (c->kallsyms) {
		kt_kallsyms_file_init(kf, c->kallsyms, p->tab);
		err = kt_pipeline_add_sink(p, &kf->sink);
		if (err) {
			kt_err("--kallsyms: %s", strerror(-err));
			return err;
		}
	}
	/* After the hooks are live, so that whatever the enumeration misses is
	 * in flight in the backend and whatever both see is deduplicated by
	 * the table (docs/snapshot.md). */
	if (!c->no_snapshot) {
		kt_trace("snapshot: start");
		err = kt_emit_snapshot(p, b);
		kt_trace("snapshot: done");
		if (err == -EPERM)
			kt_info("--no-snapshot starts without it");
		if (err)
			return err;
	}
	err = kt_pipeline_flush(p);
	if (err)
		return err;
	b->ops->describe(b, sources, sizeof(sources));
	kt_info("ready: backend %s; sources: %s%s", b->ops->name, sources, ready_extra);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	kt_stop = 1;
}

void kt_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the poll loop must wake up to drain and exit. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int kt_run(struct kt_backend *b, double duration, int (*tick)(void *ctx), void *ctx,
	   volatile int *done)
{
	__u64 end = duration > 0 ? kt_monotonic_ns() + (__u64)(duration * 1e9) : 0;
	int n, err = 0, timeout;

	while (!kt_stop && !(done && *done)) {
		timeout = b->poll_ms ? (int)b->poll_ms : 100;
		if (end) {
			__u64 now = kt_monotonic_ns();

			if (now >= end)
				break;
			if ((end - now) / 1000000 < (__u64)timeout)
				timeout = (end - now) / 1000000 + 1;
		}
		n = b->ops->poll(b, timeout);
		if (n < 0)
			return n;
		if (tick && (err = tick(ctx)))
			return err;
	}
	/* Drain: whatever the kernel already produced is ours to deliver. */
	do {
		n = b->ops->poll(b, 0);
		if (n < 0)
			return n;
		if (tick && (err = tick(ctx)))
			return err;
	} while (n > 0);
	return 0;
}
