// SPDX-License-Identifier: GPL-2.0
/*
 * CPU burnt on every read(2) of a task named "dd", in a subprogram of a
 * program on fentry/vfs_read: samples land in the subprogram, the main image
 * and the BPF trampoline (issue 13's frames).  burns.bpf.c builds it as a
 * socket filter instead, for arm64 before 6.4 (no fentry; a kprobe's
 * program runs with interrupts masked there, so no sample lands in it):
 * ktload -R runs it with BPF_PROG_TEST_RUN.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 sink;

static __noinline __u64 kt_burn_sub(__u64 x)
{
	int i;

	for (i = 0; i < 3000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static __always_inline __attribute__((unused)) bool is_dd(void)
{
	char c[4];

	bpf_get_current_comm(c, sizeof(c));
	return c[0] == 'd' && c[1] == 'd' && !c[2];
}

#ifdef KT_BURN_SOCKET
SEC("socket")
int kt_burns_main(struct __sk_buff *skb)
{
	return kt_burn_sub(skb->len) & 1;
}
#else
SEC("fentry/vfs_read")
int BPF_PROG(kt_burn_main)
{
	if (is_dd())
		sink += kt_burn_sub(sink);
	return 0;
}
#endif

char LICENSE[] SEC("license") = "GPL";
