/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BPF backend with per-source native fallback (user/backend/hybrid.c). */
#ifndef KT_HYBRID_H
#define KT_HYBRID_H

#include "backend/backend.h"

/* The BPF hooks, as a backend that can take native sources in later. */
int kt_hybrid_open_bpf(struct kt_backend **out, const struct kt_backend_opts *o, kt_emit_fn emit,
		       void *ctx, char *why, size_t why_size);
/* What the hooks watch, source by source. */
void kt_hybrid_report(struct kt_backend *b, struct kt_source_report *r);
/* The sources in mask (1 << enum kt_source) from native records from now on. */
int kt_hybrid_add_native(struct kt_backend *b, const struct kt_backend_opts *o, unsigned int mask,
			 char *why, size_t why_size);

#endif
