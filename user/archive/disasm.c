// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* disasm.h: Capstone's iterator (cs_disasm_iter), one instruction at a time. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <capstone/capstone.h>
#include "archive/disasm.h"

int kt_disasm_open(struct kt_disasm *d, const char *arch)
{
	cs_arch a;
	cs_mode m;
	csh h;

	memset(d, 0, sizeof(*d));
	if (!strcmp(arch, "x86_64")) {
		a = CS_ARCH_X86;
		m = CS_MODE_64;
		d->unit = 1;
	} else if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64")) {
		a = CS_ARCH_ARM64;
		m = CS_MODE_ARM;
		d->unit = 4;
	} else {
		return -EOPNOTSUPP;
	}
	if (cs_open(a, m, &h) != CS_ERR_OK)
		return -ENOMEM;
	if (a == CS_ARCH_X86)
		cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	d->insn = cs_malloc(h);
	if (!d->insn) {
		cs_close(&h);
		return -ENOMEM;
	}
	d->handle = h;
	return 0;
}

/*
 * Capstone 4 prints MOVZ and MOVN as such; LLVM (llvm-objdump) and GNU
 * objdump print their MOV (wide immediate) alias with the value it moves,
 * as the Arm ARM prefers it: for MOVZ unless the immediate is 0 with a
 * shift, for MOVN the same and not for a 32-bit MOVN of #0xffff (LLVM's
 * AArch64InstPrinter, isMOVZMovAlias/isMOVNMovAlias).
 */
static void arm64_mov_alias(struct kt_insn *in)
{
	bool movn = !strcmp(in->mnemonic, "movn");
	unsigned long long imm, val;
	unsigned int shift = 0;
	char reg[8];
	int n, width;

	if (!movn && strcmp(in->mnemonic, "movz"))
		return;
	n = sscanf(in->ops, "%7[^,], #%llx, lsl #%u", reg, &imm, &shift);
	if (n < 2 || (reg[0] != 'x' && reg[0] != 'w'))
		return;
	width = reg[0] == 'x' ? 64 : 32;
	if (imm == 0 && shift)
		return;
	if (movn && width == 32 && !shift && imm == 0xffff)
		return;
	val = imm << shift;
	if (movn)
		val = ~val;
	if (width == 32)
		val &= 0xffffffffULL;
	snprintf(in->mnemonic, sizeof(in->mnemonic), "mov");
	/* Signed in the register's width, as LLVM prints it (in hex, as
	 * Capstone prints every other immediate). */
	if (val >> (width - 1) & 1)
		snprintf(in->ops, sizeof(in->ops), "%s, #-0x%llx", reg,
			 width == 64 ? -val : (1ULL << 32) - val);
	else
		snprintf(in->ops, sizeof(in->ops), "%s, #0x%llx", reg, val);
}

int kt_disasm_next(struct kt_disasm *d, const unsigned char **code, size_t *len, __u64 *addr,
		   struct kt_insn *out)
{
	cs_insn *in = d->insn;
	const unsigned char *start = *code;
	uint64_t at = *addr;
	size_t n;

	if (!*len)
		return 0;
	memset(out, 0, sizeof(*out));
	out->addr = *addr;
	if (cs_disasm_iter(d->handle, code, len, &at, in)) {
		*addr = at;
		out->size = in->size;
		snprintf(out->mnemonic, sizeof(out->mnemonic), "%s", in->mnemonic);
		snprintf(out->ops, sizeof(out->ops), "%s", in->op_str);
		if (d->unit == 4)
			arm64_mov_alias(out);
	} else {
		n = *len < d->unit ? *len : d->unit;
		out->size = n;
		snprintf(out->mnemonic, sizeof(out->mnemonic), ".byte");
		for (size_t i = 0; i < n; i++)
			snprintf(out->ops + strlen(out->ops), sizeof(out->ops) - strlen(out->ops),
				 "%s0x%02x", i ? ", " : "", start[i]);
		*code += n;
		*len -= n;
		*addr += n;
	}
	memcpy(out->bytes, start, out->size < sizeof(out->bytes) ? out->size : sizeof(out->bytes));
	return 1;
}

void kt_disasm_close(struct kt_disasm *d)
{
	csh h = d->handle;

	if (d->insn)
		cs_free(d->insn, 1);
	if (h)
		cs_close(&h);
	memset(d, 0, sizeof(*d));
}
