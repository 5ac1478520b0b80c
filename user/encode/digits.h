/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Numbers as text without printf, for the encoders (encode_text.c,
 * encode_json.c): glibc's printf machinery was most of the reader's cost
 * per record (BENCHMARKS.md).  Each writes at o, which has room, and
 * returns the end.
 */
#ifndef KT_DIGITS_H
#define KT_DIGITS_H

#include <string.h>

static const char pairs[] = "00010203040506070809101112131415161718192021222324"
			    "25262728293031323334353637383940414243444546474849"
			    "50515253545556575859606162636465666768697071727374"
			    "75767778798081828384858687888990919293949596979899";

/* Digits of v, at the end of tmp[24], two at a time; constant divisors
 * become multiplications. */
static inline __attribute__((always_inline)) char *dec(char tmp[24], unsigned long long v)
{
	char *q = tmp + 24;

	while (v >= 100) {
		q -= 2;
		memcpy(q, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, pairs + 2 * v, 2);
	} else {
		*--q = '0' + v;
	}
	return q;
}

static inline __attribute__((always_inline)) char *copy_short(char *o, const char *q, size_t n)
{
	while (n--)
		*o++ = *q++;
	return o;
}

/* "%llu" */
static inline __attribute__((always_inline)) char *put_u(char *o, unsigned long long v)
{
	char tmp[24], *q = dec(tmp, v);

	return copy_short(o, q, tmp + 24 - q);
}

/* "%llx": as many nibbles as v has, no loop over leading zeros; a byte (two
 * digits) a step, then the odd top nibble. */
static inline __attribute__((always_inline)) char *put_x(char *o, unsigned long long v)
{
	static const char hex[] = "0123456789abcdef";
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1, i = n;

	for (; i >= 2; i -= 2, v >>= 8) {
		o[i - 1] = hex[v & 15];
		o[i - 2] = hex[(v >> 4) & 15];
	}
	if (i)
		o[0] = hex[v & 15];
	return o + n;
}

/* n bytes as 2n lowercase hex digits (a program's tag, an OTLP id), no NUL. */
static inline char *put_hex_bytes(char *o, const unsigned char *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (; n; n--, p++) {
		*o++ = hex[*p >> 4];
		*o++ = hex[*p & 15];
	}
	return o;
}

#endif
