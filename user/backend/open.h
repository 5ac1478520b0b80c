/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The choice between the backends (user/backend/open.c). */
#ifndef KT_BACKEND_OPEN_H
#define KT_BACKEND_OPEN_H

#include "backend/backend.h"

/*
 * Open "bpf", "native" or "auto".  auto: the BPF hooks, each source they
 * cannot watch from the kernel's native records (one warning line says which
 * and why), or all of it from native records if no hook works (one line says
 * why).  bpf: the hooks alone, a source they cannot watch named on stderr as
 * missing.  The result is one backend whatever its parts (user/backend/hybrid.c),
 * behind the reader thread (user/backend/pump.h), which the caller starts
 * once the start-up snapshot is in.  -errno and why on failure.
 */
int kt_backend_open(const char *which, const struct kt_backend_opts *o, kt_emit_fn emit, void *ctx,
		    struct kt_backend **out, char *why, size_t why_size);
int kt_backend_valid_name(const char *which);
/* One backend alone (compare's two sides), behind its reader thread too. */
int kt_backend_open_one(const struct kt_backend_ops *ops, const struct kt_backend_opts *o,
			kt_emit_fn emit, void *ctx, struct kt_backend **out, char *why,
			size_t why_size);

#endif
