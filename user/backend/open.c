// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The choice between the backends (-b bpf, native, auto) and auto's fallback. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "backend/hybrid.h"
#include "backend/open.h"
#include "backend/pump.h"
#include "util/log.h"
#include "record/record.h"

int kt_backend_valid_name(const char *which)
{
	return !strcmp(which, "bpf") || !strcmp(which, "native") || !strcmp(which, "auto");
}

/* "name (why); name (why)" of the sources in mask. */
static void list_sources(const struct kt_source_report *r, unsigned int mask, char *buf,
			 size_t size)
{
	size_t n = 0;
	unsigned int s;

	buf[0] = 0;
	for (s = 1; s < KT_SRC_MAX && n < size; s++)
		if (mask & (1U << s))
			n += snprintf(buf + n, size - n, "%s%s (%s)", n ? "; " : "",
				      kt_source_name(s), r->why[s]);
}

/* The hooks work, some sources do not: for auto, native records for those. */
static void fill_in(const char *which, const struct kt_backend_opts *o, struct kt_backend *b)
{
	struct kt_source_report r;
	char list[768], why[256] = "";
	unsigned int s, off = 0, absent = 0;

	kt_hybrid_report(b, &r);
	for (s = 1; s < KT_SRC_MAX; s++) {
		off |= (r.state[s] == KT_SS_OFF) << s;
		absent |= (r.state[s] == KT_SS_ABSENT) << s;
	}
	if (absent) {
		list_sources(&r, absent, list, sizeof(list));
		kt_debug("absent on this kernel: %s", list);
	}
	if (!off)
		return;
	list_sources(&r, off, list, sizeof(list));
	if (!strcmp(which, "bpf")) {
		kt_warn("missing: %s; -b auto takes them from native records", list);
		return;
	}
	if (kt_hybrid_add_native(b, o, off, why, sizeof(why))) {
		kt_warn("missing: %s; native records unavailable too: %s", list, why);
		return;
	}
	kt_warn("from native records: %s%s; -v shows the kernel's reasons", list,
		(off & (1U << KT_SRC_BPF_IMAGE)) ? " (struct_ops images have none)" : "");
}

static int open_inner(const char *which, const struct kt_backend_opts *o, kt_emit_fn emit,
		      void *ctx, struct kt_backend **out, char *why, size_t why_size)
{
	char bwhy[256] = "", nwhy[256] = "";
	int err;

	if (!strcmp(which, "native")) {
		err = kt_native_backend.open(out, o, emit, ctx, nwhy, sizeof(nwhy));
		if (err)
			snprintf(why, why_size, "native backend: %s", nwhy);
		return err;
	}
	err = kt_hybrid_open_bpf(out, o, emit, ctx, bwhy, sizeof(bwhy));
	if (!err) {
		fill_in(which, o, *out);
		return 0;
	}
	if (!strcmp(which, "bpf")) {
		snprintf(why, why_size, "%s", bwhy[0] ? bwhy : strerror(-err));
		return err;
	}
	/* auto: a diagnostic, not an error; the run goes on. */
	kt_info("bpf backend unavailable: %s; falling back to native perf records", bwhy);
	err = kt_native_backend.open(out, o, emit, ctx, nwhy, sizeof(nwhy));
	if (err)
		snprintf(why, why_size, "native backend: %s", nwhy);
	return err;
}

/* which's backend (open_inner()) or ops' alone, behind the reader thread. */
static int open_pumped(const char *which, const struct kt_backend_ops *ops,
		       const struct kt_backend_opts *o, kt_emit_fn emit, void *ctx,
		       struct kt_backend **out, char *why, size_t why_size)
{
	struct kt_backend *in;
	struct kt_pump *p;
	int err;

	err = kt_pump_new(&p, o->queue_size ? o->queue_size : KT_QUEUE_SIZE_DEFAULT, emit, ctx);
	if (err) {
		snprintf(why, why_size, "the reader's queue: %s", strerror(-err));
		return err;
	}
	if (ops)
		err = ops->open(&in, o, kt_pump_emit, p, why, why_size);
	else
		err = open_inner(which, o, kt_pump_emit, p, &in, why, why_size);
	if (err) {
		kt_pump_free(p);
		return err;
	}
	*out = kt_pump_wrap(p, in);
	return 0;
}

int kt_backend_open(const char *which, const struct kt_backend_opts *o, kt_emit_fn emit, void *ctx,
		    struct kt_backend **out, char *why, size_t why_size)
{
	return open_pumped(which, NULL, o, emit, ctx, out, why, why_size);
}

int kt_backend_open_one(const struct kt_backend_ops *ops, const struct kt_backend_opts *o,
			kt_emit_fn emit, void *ctx, struct kt_backend **out, char *why,
			size_t why_size)
{
	return open_pumped(NULL, ops, o, emit, ctx, out, why, why_size);
}
