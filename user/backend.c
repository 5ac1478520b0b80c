// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <string.h>
#include "backend.h"
#include "log.h"

int kt_backend_valid_name(const char *which)
{
	return !strcmp(which, "bpf") || !strcmp(which, "native") || !strcmp(which, "auto");
}

int kt_backend_open(const char *which, const struct kt_backend_opts *o, kt_emit_fn emit, void *ctx,
		    struct kt_backend **out)
{
	char why[256] = "", why2[256] = "";
	int err;

	if (!strcmp(which, "native")) {
		err = kt_native_backend.open(out, o, emit, ctx, why, sizeof(why));
		if (err)
			kt_err("native backend: %s", why);
		return err;
	}
	err = kt_bpf_backend.open(out, o, emit, ctx, why, sizeof(why));
	if (!err || !strcmp(which, "bpf")) {
		if (err)
			kt_err("%s", why);
		return err;
	}
	kt_info("bpf backend unavailable: %s; falling back to native perf records", why);
	err = kt_native_backend.open(out, o, emit, ctx, why2, sizeof(why2));
	if (err)
		kt_err("native backend: %s", why2);
	return err;
}
