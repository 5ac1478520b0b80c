// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Loads one socket filter with the raw bpf(2) syscall (no libbpf, no BTF),
 * prints what the kernel says of it in bpf_prog_info, holds until a file
 * exists (-w FILE) or for -t MS, then closes it.  Output, one line:
 *   id ID tag TAG addr ADDR len LEN name NAME
 * -r N loads and closes it N times first (a burst), printing nothing for those.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/resource.h>
#include <sys/syscall.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

int main(int argc, char **argv)
{
	/* r0 = skb->len; return r0 */
	struct bpf_insn insns[] = {
		{ .code = BPF_LDX | BPF_W | BPF_MEM, .dst_reg = 0, .src_reg = 1, .off = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	const char *wait_file = NULL, *name = "kt_host";
	union bpf_attr attr;
	struct bpf_prog_info info;
	__u64 ksyms[1] = {};
	__u32 lens[1] = {};
	int fd, opt, hold_ms = 0, i, rounds = 0;

	while ((opt = getopt(argc, argv, "w:t:n:r:")) != -1) {
		switch (opt) {
		case 'w':
			wait_file = optarg;
			break;
		case 't':
			hold_ms = atoi(optarg);
			break;
		case 'n':
			name = optarg;
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: ktprog [-n NAME] [-r N] [-w FILE | -t MS]\n");
			return 2;
		}
	}
	/* Before 5.11 BPF memory counts against RLIMIT_MEMLOCK (memcg
	 * accounting came with commit 3ac1f01b43b6); libbpf raises it itself. */
	setrlimit(RLIMIT_MEMLOCK, &(struct rlimit){ RLIM_INFINITY, RLIM_INFINITY });
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	snprintf(attr.prog_name, sizeof(attr.prog_name), "%s", name);
	for (i = 0; i < rounds; i++) {
		fd = sys_bpf(BPF_PROG_LOAD, &attr);
		if (fd < 0) {
			fprintf(stderr, "ktprog: BPF_PROG_LOAD: %s\n", strerror(errno));
			return 1;
		}
		close(fd);
	}
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		fprintf(stderr, "ktprog: BPF_PROG_LOAD: %s\n", strerror(errno));
		return 1;
	}
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = 1;
	info.jited_ksyms = (unsigned long)ksyms;
	info.nr_jited_func_lens = 1;
	info.jited_func_lens = (unsigned long)lens;
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (unsigned long)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr)) {
		fprintf(stderr, "ktprog: BPF_OBJ_GET_INFO_BY_FD: %s\n", strerror(errno));
		return 1;
	}
	printf("id %u tag ", info.id);
	for (i = 0; i < 8; i++)
		printf("%02x", info.tag[i]);
	printf(" addr %llx len %u name %s\n", (unsigned long long)ksyms[0], lens[0], info.name);
	fflush(stdout);
	if (hold_ms)
		usleep(hold_ms * 1000);
	while (wait_file && access(wait_file, F_OK))
		usleep(20 * 1000);
	close(fd);
	return 0;
}
