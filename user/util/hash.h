/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one hash of the user side's tables (symbols, programs, cgroups). */
#ifndef KT_HASH_H
#define KT_HASH_H

#include <stddef.h>
#include <linux/types.h>

/* A bucket for key v among n (a power of two): MurmurHash3's 64-bit
 * finalizer, which spreads addresses and ids that differ in few bits. */
static inline size_t kt_hash64(__u64 v, size_t n)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	return v & (n - 1);
}

#endif
