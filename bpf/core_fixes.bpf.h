/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences the BPF side handles, one per entry, each naming the
 * kernel that changed and why the code below holds on both sides of it (bcc
 * libbpf-tools' core_fixes.bpf.h is the model).  The loader handles the ones
 * that need a different program (user/backend/hooks.c: the _legacy variants).
 */
#ifndef KT_CORE_FIXES_BPF_H
#define KT_CORE_FIXES_BPF_H

#include <bpf/bpf_core_read.h>

/*
 * One bit of a bitfield through a BTF-typed pointer, with a one-byte plain
 * load of the byte that holds it.
 *
 * 7.x (seen in 7.3.4's BTF): struct bpf_prog's flags became u32 bitfields
 * after `u16 pages` when the fsession series added call_session_cookie (a
 * 17th flag; bpf-next, Menglong Dong, "bpf: add kfunc bpf_fsession_cookie for
 * TRACING SESSION", 2025).  BPF_CORE_READ_BITFIELD() then loads the whole
 * 4-byte container at offset 0, which overlaps `pages`, and the verifier's
 * btf_struct_walk() refuses a load that runs past a member's end ("access
 * beyond the end of member pages (mend:2) ... off 0 size 4").  Up to 6.18 the
 * flags are u16 bitfields and the container is bytes 2..3.  The byte of the
 * bit is found from the same CO-RE relocations BPF_CORE_READ_BITFIELD()
 * uses, so it holds for either layout; the verifier accepts a load that
 * starts at the bitfield's first byte and covers its last.
 *
 * Little endian only (x86-64, arm64): there the bit's position in the
 * container is 64 - LSHIFT_U64 - BITFIELD_SIZE (libbpf's
 * bpf_core_calc_field_relo()).
 */
#define KT_CORE_READ_BIT(s, field)                                                              \
	({                                                                                      \
		unsigned int __bit = 64 - __CORE_RELO(s, field, LSHIFT_U64) - 1;                \
		const unsigned char *__p = (const void *)(s) +                                  \
					   __CORE_RELO(s, field, BYTE_OFFSET) + __bit / 8;     \
		asm volatile("" : "+r"(__p));                                                   \
		(*__p >> (__bit % 8)) & 1;                                                      \
	})

/*
 * Before 5.12 (commit 5ffa25502b5a "bpf: Add instructions for
 * atomic_[cmp]xchg" and its series), BPF_STX | BPF_ATOMIC only knows BPF_ADD
 * without BPF_FETCH: a __sync_fetch_and_add() whose result is used compiles
 * to atomic_fetch_add, which 5.10 refuses ("BPF_STX uses reserved fields").
 * kt_take() adds without fetching and then reads: of tasks that interleave on
 * one CPU, at most one sees 1 (the first to add sees 1 only if no other has
 * added yet, and every later one sees at least 2 until it subtracts).
 */
static __always_inline bool kt_take(u64 *busy)
{
	__sync_fetch_and_add(busy, 1);
	return *(volatile u64 *)busy == 1;
}

static __always_inline void kt_release(u64 *busy)
{
	__sync_fetch_and_add(busy, -1);
}

/*
 * bpf_loop() is 5.17+ (commit e6f2dd0f8067 "bpf: Add bpf_loop helper"), and
 * the callback's BPF_PSEUDO_FUNC ld_imm64 5.13+ (commit 69c087ba6225 "bpf:
 * Add bpf_for_each_map_elem() helper"): 5.10 refuses any program that merely
 * names a callback ("number of funcs in func_info doesn't match number of
 * subprogs"), reachable or not.  So the program hooks come twice: prog_add,
 * prog_del and ksym_del with bpf_loop(), and their _legacy twins with a
 * bounded loop of at most KT_LEGACY_SUBPROGS subprograms, which the
 * verifier walks through (5.3+).  The loader picks one by whether the
 * kernel's BTF has bpf_loop.  kt_legacy is a compile-time constant in each
 * __always_inline instantiation, so a _legacy program holds no bpf_loop.
 * KT_LEGACY_SUBPROGS is in ksymtap.h: the loader reports programs with more.
 */

#endif /* KT_CORE_FIXES_BPF_H */
