/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The few macros every layer uses: container_of, ARRAY_SIZE, and the one
 * growable array (git's ALLOC_GROW, perf's realloc-by-doubling, written once). */
#ifndef KT_BASE_H
#define KT_BASE_H

#include <stddef.h>

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Room for at least need elements of size bytes in *p, whose capacity is
 * *cap: the capacity doubles (from 16).  0, or -ENOMEM with *p and *cap as
 * they were (the caller's elements are still there to flush or free). */
int kt_grow(void **p, size_t *cap, size_t need, size_t size);

/* kt_grow() for an array p of any type (through a void * copy: no type
 * punning of p itself). */
#define KT_GROW(p, cap, need)                                                    \
	({                                                                       \
		void *__kt_p = (p);                                              \
		int __kt_err = kt_grow(&__kt_p, &(cap), (need), sizeof(*(p)));  \
		if (!__kt_err)                                                   \
			(p) = __kt_p;                                            \
		__kt_err;                                                        \
	})

#endif
