// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A cgroup path (from /proc/PID/cgroup or the cgroup tree) to container and
 * pod, and its join onto a namespace root. */
#include "record/cgpath.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), out[KT_CGPATH_MAX];
	struct kt_cgpath_info info;

	if (!s)
		return 0;
	kt_cgpath_parse(s, &info);
	if (kt_cgpath_join("/kubepods.slice/pod.slice", s, out, sizeof(out)))
		kt_cgpath_parse(out, &info);
	free(s);
	return 0;
}
