/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The resync: after a reported loss (a full ring buffer, hook runs the
 * kernel skipped, a native PERF_RECORD_LOST) the table may keep symbols whose
 * unregister was lost and lack ones whose register was; and with it the
 * --kallsyms file, serve's tables and its query history.  Enumerate again as
 * at start-up and pass on the difference as records of origin "resync":
 * registers of what the table lacks, unregisters of what the kernel no
 * longer has, from the sources the enumeration listed whole.
 */
#ifndef KT_RESYNC_H
#define KT_RESYNC_H

#include "backend/backend.h"
#include "sink/pipeline.h"

/* Arm p's resync (struct kt_resync) with the backend b that feeds p. */
void kt_resync_init(struct kt_pipeline *p, struct kt_backend *b);

#endif
