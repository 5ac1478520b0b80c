// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "util/base.h"

int kt_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (size && c > SIZE_MAX / size)
		return -ENOMEM;
	n = realloc(*p, c * size);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = c;
	return 0;
}
