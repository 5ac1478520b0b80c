// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A /proc/kallsyms line, as the snapshot and the hooks' set-up read them. */
#include "fuzz.h"
#include "record/kallsyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), name[KT_NAME_MAX], line[KT_NAME_MAX + 64];
	__u64 addr;
	int src;

	if (!s)
		return 0;
	src = kt_kallsyms_parse_dynamic(s, &addr, name, sizeof(name));
	if (src > 0)
		kt_kallsyms_format(line, sizeof(line), addr, name, src);
	free(s);
	return 0;
}
