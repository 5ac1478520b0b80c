// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The options every command shares, their help and their parsing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "backend/open.h"
#include "run/cli.h"
#include "backend/hooks.h"
#include "backend/pump.h"
#include "sink/otlp_config.h"
#include "util/log.h"

void kt_common_init(struct kt_common *c)
{
	memset(c, 0, sizeof(*c));
	c->backend = "auto";
	c->bo.ringbuf_size = kt_backend_default_ringbuf();
	c->bo.queue_size = KT_QUEUE_SIZE_DEFAULT;
	c->bo.native_pages = kt_backend_default_native_pages();
	c->bo.wakeup_ms = 0;
	c->bo.walker = true;
	c->bo.debug_empty = getenv("KSYMTAP_DEBUG_EMPTY") != NULL;
	c->bo.debug_ktime = getenv("KSYMTAP_DEBUG_KTIME") != NULL;
	c->bo.debug_no_backup = getenv("KSYMTAP_DEBUG_NO_BACKUP") != NULL;
	c->fmt = KT_FMT_TEXT;
	c->otlp_spool_size = KT_OTLP_SPOOL_SIZE_DEFAULT;
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

/* The backend's tuning: ring sizes, wakeups, hooks left out. */
static int backend_opt(struct kt_backend_opts *bo, int opt, const char *arg)
{
	unsigned long long v;
	long pg = sysconf(_SC_PAGESIZE);
	char *end;
	int h;

	switch (opt) {
	case OPT_RINGBUF_SIZE:
		if (kt_parse_size(arg, &v) || !pow2(v) || v < (unsigned long long)pg ||
		    v > (1ULL << 31)) {
			kt_err("--ringbuf-size: '%s' is not a power of two between %ld and 2G", arg,
			       pg);
			return -1;
		}
		bo->ringbuf_size = v;
		return 1;
	case OPT_QUEUE_SIZE:
		if (kt_parse_size(arg, &v) || v < 65536 || v > (1ULL << 32)) {
			kt_err("--queue-size: '%s' is not a size between 64K and 4G", arg);
			return -1;
		}
		bo->queue_size = v;
		return 1;
	case OPT_WAKEUP_MS:
		errno = 0;
		v = strtoull(arg, &end, 10);
		if (errno || end == arg || *end || v > 1000) {
			kt_err("--wakeup-ms: '%s' is not a number of milliseconds up to 1000", arg);
			return -1;
		}
		bo->wakeup_ms = v;
		return 1;
	case OPT_NATIVE_PAGES:
		if (kt_parse_size(arg, &v) || !pow2(v) || v > 65536) {
			kt_err("--native-pages: '%s' is not a power of two up to 65536", arg);
			return -1;
		}
		bo->native_pages = v;
		return 1;
	case OPT_DISABLE_HOOK:
		h = kt_hook_lookup(arg);
		if (h < 0) {
			kt_err("--disable-hook: no hook named '%s' (see ksymtap -v)", arg);
			return -1;
		}
		bo->disabled |= 1UL << h;
		return 1;
	}
	return 0;
}

/* The OTLP export's options (the OTEL_* variables are read at start). */
static int otlp_opt(struct kt_common *c, int opt, const char *arg)
{
	switch (opt) {
	case OPT_OTLP_ENDPOINT:
		c->otlp_endpoint = arg;
		return 1;
	case OPT_OTLP_SPOOL:
		if (!arg[0] || strlen(arg) >= 400) {
			kt_err("--otlp-spool: '%s' is not a usable directory name", arg);
			return -1;
		}
		c->otlp_spool = arg;
		return 1;
	case OPT_OTLP_SPOOL_SIZE:
		if (kt_parse_size(arg, &c->otlp_spool_size) || c->otlp_spool_size < (1 << 20)) {
			kt_err("--otlp-spool-size: '%s' is not a size of 1M or more", arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

/* One switch case per shared option, as bpftool and perf parse theirs. */
int kt_common_opt(struct kt_common *c, int opt, const char *arg)
{
	char *end;

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
	return otlp_opt(c, opt, arg) ?: backend_opt(&c->bo, opt, arg);
}
