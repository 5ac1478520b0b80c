/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading back what ksymtap exported as OTLP logs (docs/otlp.md), as an
 * OpenTelemetry Collector's file exporter writes it: one
 * ExportLogsServiceRequest in OTLP/JSON per line, of any number of nodes.
 * One node's records (one boot of one host: perf's clock starts again at
 * each boot), rebuilt from their attributes, in the order ksymtap made
 * them (ksymtap.seq), each once.
 */
#ifndef KT_OTLP_IN_H
#define KT_OTLP_IN_H

#include <stdbool.h>
#include <stddef.h>
#include "record/record.h"

/* Which node: host.name and ksymtap.boot.id; NULL: any.  A file of one
 * node needs neither. */
struct kt_otlp_select {
	const char *host, *boot;
};

/* Does the file at path look like OTLP/JSON (its first byte is '{')? */
bool kt_otlp_file_is(const char *path);

/*
 * The selected node's records, to fn in ksymtap's order.  -errno with why
 * naming the problem: a line that is not OTLP/JSON, no node or more than one
 * that match (they are listed, with how to choose).
 */
int kt_otlp_file_read(const char *path, const struct kt_otlp_select *sel, kt_emit_fn fn, void *ctx,
		      char *why, size_t why_size);

#endif
