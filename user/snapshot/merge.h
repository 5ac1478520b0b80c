/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The start-up snapshot beside the live records that came before its
 * enumeration ended (docs/snapshot.md, "Races with the live stream").  The
 * snapshot goes out first, then those live records: so it must describe the
 * kernel as it was when the backend attached, not when it was enumerated.
 * A symbol (address and name) or program (id) whose first live record is its
 * register was born after the attach: that record says so, and the
 * snapshot's copy is left out.  Otherwise an older symbol born and gone
 * before the enumeration, at the address and with the name of one the
 * enumeration saw (the same program loaded again), would have its
 * unregister applied to the newer one (snapshot_start on 7.3, 2026-12-05).
 */
#ifndef KT_SNAPSHOT_MERGE_H
#define KT_SNAPSHOT_MERGE_H

#include <stdbool.h>
#include "record/recbuf.h"

/* The snapshot records that stand, then every live record, through emit;
 * *left: how many snapshot records were left out.  0, -ENOMEM, or emit's
 * error. */
int kt_snapshot_emit_merged(const struct kt_recbuf *snap, const struct kt_recbuf *live,
			    kt_emit_fn emit, void *ctx, size_t *left);

#endif
