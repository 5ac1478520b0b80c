// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's bytes at an address, for the tests of code that has no
 * bpf_prog_info (BPF trampolines, ftrace trampolines, kprobe pages): ktkcore
 * ADDR LEN prints LEN bytes at kernel address ADDR (hex) as read from
 * /proc/kcore's PT_LOAD segments, in hex on one line.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long long addr, len, i;
	unsigned char *buf;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd, n;

	if (argc != 3) {
		fprintf(stderr, "usage: ktkcore ADDR LEN\n");
		return 2;
	}
	addr = strtoull(argv[1], NULL, 16);
	len = strtoull(argv[2], NULL, 0);
	buf = malloc(len ? len : 1);
	fd = open("/proc/kcore", O_RDONLY);
	if (!buf || fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh)) {
		fprintf(stderr, "ktkcore: /proc/kcore: %s\n", strerror(errno));
		return 1;
	}
	for (n = 0; n < eh.e_phnum; n++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + n * sizeof(ph)) != sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr + len > ph.p_vaddr + ph.p_memsz)
			continue;
		if (pread(fd, buf, len, ph.p_offset + (addr - ph.p_vaddr)) != (ssize_t)len)
			break;
		for (i = 0; i < len; i++)
			printf("%02x", buf[i]);
		printf("\n");
		return 0;
	}
	fprintf(stderr, "ktkcore: %llx+%llu: not in /proc/kcore\n", addr, len);
	return 1;
}
