// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A perf.data's HEADER_BPF_PROG_INFO body (the code archive), each program
 * read back as disasm reads it: the view, every function, every line, the
 * image decoded as x86-64 and as arm64. */
#include "archive/archive.h"
#include "archive/bpil.h"
#include "archive/disasm.h"
#include "fuzz.h"

static void walk(const struct kt_bpil *p)
{
	struct kt_bpil_view v;
	struct bpf_line_info li;
	const unsigned char *code;
	struct kt_disasm d;
	struct kt_insn in;
	__u64 addr, jaddr;
	__u32 i, len, off, ilen;
	size_t left;
	char why[128];

	if (kt_bpil_view(p->blob, p->size, &v, why, sizeof(why)))
		return;
	code = kt_bpil_jited(&v, &ilen);
	for (i = 0; i < v.nfuncs; i++)
		kt_bpil_func(&v, i, &addr, &len, &off);
	for (i = 0; i < v.nlinfo; i++)
		kt_bpil_linfo(&v, i, &li, &jaddr);
	for (i = 0; i < 2; i++) {
		const unsigned char *c = code;

		if (kt_disasm_open(&d, i ? "aarch64" : "x86_64"))
			return;
		left = ilen;
		addr = 0;
		while (kt_disasm_next(&d, &c, &left, &addr, &in))
			;
		kt_disasm_close(&d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kt_archive a = { 0 };
	struct kt_hnode *pos;
	char why[256];
	size_t b;

	if (!kt_archive_read_prog_info(&a, data, size, why, sizeof(why)))
		kt_htab_for_each(&a.progs, b, pos) walk(container_of(pos, struct kt_bpil, node));
	kt_archive_read_btf(&a, data, size, why, sizeof(why));
	kt_archive_free(&a);
	return 0;
}
