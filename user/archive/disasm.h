/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Machine code to instructions, through Capstone (Debian's libcapstone-dev,
 * linked statically): x86-64 in AT&T syntax, as objdump, llvm-objdump and
 * perf annotate print it by default; arm64 as the Arm ARM writes it.  The
 * architecture is the recording's (perf.data's HEADER_ARCH), not this
 * machine's, so a file from an arm64 node reads the same on an x86 laptop.
 */
#ifndef KT_DISASM_H
#define KT_DISASM_H

#include <linux/types.h>
#include <stddef.h>

struct kt_insn {
	__u64 addr;
	__u16 size;
	unsigned char bytes[24];
	char mnemonic[32];
	char ops[160];
};

struct kt_disasm {
	size_t handle; /* Capstone's csh */
	void *insn; /* its cs_insn */
	unsigned int unit; /* the size of one undecodable unit: 1, or 4 on arm64 */
};

/* arch: a uname machine ("x86_64", "aarch64").  0, or -EOPNOTSUPP for an
 * architecture ksymtap does not decode, -ENOMEM. */
int kt_disasm_open(struct kt_disasm *d, const char *arch);
/*
 * The instruction at *code (*len bytes left, at kernel address *addr) into
 * out, and the three advanced past it.  Bytes that decode to nothing come
 * out as one ".byte" unit, so a dump always goes on to the end.  1, or 0 at
 * the end.
 */
int kt_disasm_next(struct kt_disasm *d, const unsigned char **code, size_t *len, __u64 *addr,
		   struct kt_insn *out);
void kt_disasm_close(struct kt_disasm *d);

#endif
