// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "kallsyms.h"

#define KT_MAX_RANGES 8

int kt_kallsyms_func_ranges(const char *path, const char *const *names, int n,
			    struct kt_range *ranges)
{
	unsigned long long addr, next[KT_MAX_RANGES];
	char line[1024], sym[512], type;
	bool nonzero = false;
	int i, found = 0;
	FILE *f;

	if (n > KT_MAX_RANGES)
		return -E2BIG;
	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f)
		return -errno;
	for (i = 0; i < n; i++) {
		ranges[i].start = ranges[i].end = 0;
		next[i] = ~0ULL;
	}
	/* First the addresses, then for each the lowest address above it:
	 * kallsyms is sorted within the core kernel only.  The core kernel
	 * comes first (kernel/kallsyms.c update_iter(): then modules, ftrace,
	 * [bpf], kprobes), and core text is covered by core symbols, so both
	 * passes stop at the first "[module]" line.  That matters: the kernel
	 * finds the i-th [bpf] symbol by walking the list from its head
	 * (bpf_get_kallsym()), so reading past it costs O(programs^2): with
	 * 5,000 programs alive, start-up in the 6.1 test VM went from 7.1 s to
	 * 2.5 s (BENCHMARKS.md). */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s", &addr, &type, sym) != 3)
			continue;
		nonzero |= addr != 0;
		if (strchr(line, '['))
			break;
		if (type != 't' && type != 'T')
			continue;
		for (i = 0; i < n; i++)
			if (!ranges[i].start && !strcmp(sym, names[i])) {
				ranges[i].start = addr;
				found++;
			}
	}
	if (!nonzero) {
		fclose(f);
		return -EACCES;
	}
	if (found) {
		rewind(f);
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%llx %c %511s", &addr, &type, sym) != 3)
				continue;
			if (strchr(line, '['))
				break;
			for (i = 0; i < n; i++)
				if (ranges[i].start && addr > ranges[i].start && addr < next[i])
					next[i] = addr;
		}
	}
	fclose(f);
	for (i = 0; i < n; i++)
		if (ranges[i].start)
			ranges[i].end = next[i] == ~0ULL ? ranges[i].start + 1 : next[i];
	return found;
}
