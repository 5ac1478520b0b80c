/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What code covered an address at a time (`ksymtap disasm`): a record
 * file's symbol history says which symbol held the address then, its
 * BPF_EVENT records which program was loaded there then (the kernel reuses
 * addresses: bpf_prog_pack, 5.18+), its archive what that program's image,
 * line info and BTF were.
 */
#ifndef KT_CODE_AT_H
#define KT_CODE_AT_H

#include <linux/types.h>
#include <stdbool.h>
#include "archive/archive.h"
#include "archive/bpil.h"
#include "archive/disasm.h"
#include "history/history.h"

struct kt_code_file {
	struct kt_history h;
	struct kt_archive a; /* each program's load and unload times set */
	char arch[65]; /* the recording's; this machine's if the file does not say */
};

/* path: a 'ksymtap record' file.  0, or -errno with why. */
int kt_code_file_load(struct kt_code_file *f, const char *path, char *why, size_t why_size);
void kt_code_file_fini(struct kt_code_file *f);

struct kt_code_hit {
	const struct kt_hsym *sym; /* what held the address; NULL: nothing did */
	const struct kt_bpil *prog; /* its program's code; NULL: none held */
	const struct kt_text *text; /* or, for other code, its bytes; NULL: none */
	struct kt_bpil_view v;
	__u32 func; /* which of the program's functions */
	/* A time the code was there: t, or with last its program's load. */
	__u64 when;
	bool last; /* nothing held addr at t: the last symbol that ever did */
};

/* Fills hit (sym and prog NULL when there is none); with last, a symbol
 * that held addr at another time than t when none held it at t.  -EINVAL
 * with why when the program's held info is corrupt. */
int kt_code_find(const struct kt_history *h, const struct kt_archive *a, __u64 addr, __u64 t,
		 bool last, struct kt_code_hit *hit, char *why, size_t why_size);

/* A source line as bpftool's linum dumps print it: "; TEXT [file:FILE
 * line_num:LINE line_col:COL]". */
struct kt_code_line {
	const char *file, *text;
	__u32 line, col;
};

struct kt_code_ops {
	/* The source lines whose code starts at the next instruction. */
	int (*line)(void *ctx, const struct kt_code_line *l);
	int (*insn)(void *ctx, const struct kt_insn *in);
};

/* The hit's function, instruction by instruction, each preceded by the
 * source lines that begin there.  A callback's non-zero return stops the
 * walk and is returned; -EOPNOTSUPP for an arch Capstone is not asked to
 * decode, -ENOMEM. */
int kt_code_walk(const struct kt_archive *a, const char *arch, const struct kt_code_hit *hit,
		 const struct kt_code_ops *ops, void *ctx);

#endif
