// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One record from the kernel's perf ring (the native backend's decoder),
 * then its encodings, as a client would receive them. */
#include "encode/encode.h"
#include "fuzz.h"
#include "record/native_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[KT_ENCODE_MAX];
	void *copy = malloc(size ? size : 1);
	struct kt_record r;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	memset(&r, 0, sizeof(r));
	if (kt_native_decode(&r, copy, size) == 1) {
		kt_encode(KT_FMT_TEXT, &r, out, sizeof(out));
		kt_encode(KT_FMT_JSON, &r, out, sizeof(out));
		kt_encode(KT_FMT_RAW, &r, out, sizeof(out));
	}
	free(copy);
	return 0;
}
