// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* /sys/devices/system/cpu/online ("0-3,8"), as the native backend reads it
 * at start and on every CPU hotplug uevent. */
#include "fuzz.h"
#include "backend/native.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	unsigned char mask[64];

	if (!s)
		return 0;
	kt_parse_cpulist(s, mask, (int)sizeof(mask)); /* one byte per CPU */
	free(s);
	return 0;
}
