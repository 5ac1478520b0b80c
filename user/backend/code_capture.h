/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BPF side's copies of programs' code at their unload (KT_RECORD_CODE
 * records, bpf/code_copy.bpf.h), put back together in the reader thread:
 * each complete copy becomes a perf_bpil blob and its BTF, staged for the
 * archive (archive/stage.h) when the program's unregister passes.
 */
#ifndef KT_CODE_CAPTURE_H
#define KT_CODE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include "archive/stage.h"

struct kt_code_asm;

/* NULL on -ENOMEM. */
struct kt_code_asm *kt_code_asm_new(struct kt_code_stage *stage);
/* Is this ring record one of the copies' (it then takes it)? */
bool kt_code_asm_feed(struct kt_code_asm *c, const void *data, size_t size);
/* The unregister KSYMBOL of a program's function at addr passes: if a
 * whole copy of a program whose first function was there waits, stage it
 * and return its number for the record (kt_record.code_seq); else 0. */
__u64 kt_code_asm_take(struct kt_code_asm *c, __u64 addr);
void kt_code_asm_free(struct kt_code_asm *c);

#endif
