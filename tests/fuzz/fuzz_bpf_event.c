// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One event from the BPF hooks' ring buffer (struct kt_event), its
 * BPF_EVENT twin, and their encodings. */
#include "record/bpf_event.h"
#include "encode/encode.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[KT_ENCODE_MAX];
	void *copy = malloc(size ? size : 1);
	struct kt_record r;
	int f;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (!kt_record_from_event(&r, copy, size)) {
		for (f = KT_FMT_TEXT; f <= KT_FMT_RAW; f++)
			kt_encode(f, &r, out, sizeof(out));
		if (!kt_record_bpf_event_of(&r, copy, size))
			for (f = KT_FMT_TEXT; f <= KT_FMT_RAW; f++)
				kt_encode(f, &r, out, sizeof(out));
	}
	free(copy);
	return 0;
}
