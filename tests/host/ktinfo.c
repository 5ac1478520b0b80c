// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel's own account of a loaded BPF program, for the host tests:
 *   ktinfo ID  ->  "prog ID tag TAG" then "ksym ADDR LEN" per JITed function
 * from bpf_prog_info (jited_ksyms, jited_func_lens): the same values the
 * kernel puts in the program's PERF_RECORD_KSYMBOLs.  bpftool cannot show the
 * addresses without libbfd.
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
	__u32 len = sizeof(info), n, i;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: ktinfo PROG_ID\n");
		return 2;
	}
	fd = bpf_prog_get_fd_by_id(strtoul(argv[1], NULL, 0));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "ktinfo: prog %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	n = info.nr_jited_ksyms < MAX_FUNCS ? info.nr_jited_ksyms : MAX_FUNCS;
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = n;
	info.jited_ksyms = (uintptr_t)ksyms;
	info.nr_jited_func_lens = n;
	info.jited_func_lens = (uintptr_t)lens;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		fprintf(stderr, "ktinfo: prog %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("prog %u tag ", info.id);
	for (i = 0; i < sizeof(info.tag); i++)
		printf("%02x", info.tag[i]);
	printf("\n");
	for (i = 0; i < n; i++)
		printf("ksym %llx %u\n", (unsigned long long)ksyms[i], lens[i]);
	close(fd);
	return 0;
}
