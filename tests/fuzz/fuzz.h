/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* libFuzzer harnesses (clang -fsanitize=fuzzer,address,undefined): one per
 * parser of outside input, each with its seed corpus in corpus/<name>/. */
#ifndef KT_FUZZ_H
#define KT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data as a NUL-terminated string (malloc'd: ASan sees overreads). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = 0;
	}
	return s;
}

#endif
