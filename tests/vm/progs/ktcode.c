// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's own account of a loaded BPF program, for the tests: ktcode ID
 * prints "prog ID tag TAG", then per JITed function in func[] order
 *   func ADDR LEN HEX
 * with its address and length from jited_ksyms and jited_func_lens (the
 * values the kernel puts in the program's PERF_RECORD_KSYMBOLs) and its
 * bytes from jited_prog_insns (which holds the functions one after the
 * other).  Debian's bpftool cannot dump JITed code or show the addresses (it
 * is built without libbfd), so this is the oracle.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#define MAX_FUNCS 256

int main(int argc, char **argv)
{
	__u64 ksyms[MAX_FUNCS] = {};
	__u32 lens[MAX_FUNCS] = {};
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), n, i, j, off = 0, size;
	unsigned char *image;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: ktcode PROG_ID\n");
		return 2;
	}
	fd = bpf_prog_get_fd_by_id(strtoul(argv[1], NULL, 0));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "ktcode: prog %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	n = info.nr_jited_ksyms < MAX_FUNCS ? info.nr_jited_ksyms : MAX_FUNCS;
	size = info.jited_prog_len;
	image = malloc(size ? size : 1);
	if (!image)
		return 1;
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = n;
	info.jited_ksyms = (uintptr_t)ksyms;
	info.nr_jited_func_lens = n;
	info.jited_func_lens = (uintptr_t)lens;
	info.jited_prog_len = size;
	info.jited_prog_insns = (uintptr_t)image;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "ktcode: prog %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("prog %u tag ", info.id);
	for (i = 0; i < sizeof(info.tag); i++)
		printf("%02x", info.tag[i]);
	printf("\n");
	for (i = 0; i < n; i++) {
		if (off + lens[i] > size) {
			fprintf(stderr, "ktcode: prog %s: functions longer than the image\n",
				argv[1]);
			return 1;
		}
		printf("func %llx %u ", (unsigned long long)ksyms[i], lens[i]);
		for (j = 0; j < lens[i]; j++)
			printf("%02x", image[off + j]);
		printf("\n");
		off += lens[i];
	}
	close(fd);
	free(image);
	return 0;
}
