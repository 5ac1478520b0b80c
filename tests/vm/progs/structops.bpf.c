// SPDX-License-Identifier: GPL-2.0
/* A minimal TCP congestion control as struct_ops: its trampolines get their
 * own ksyms since 6.10 ("bpf__tcp_congestion_ops_<member>"), none before. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("struct_ops/kt_ssthresh")
__u32 BPF_PROG(kt_ssthresh, struct sock *sk)
{
	return 2;
}

SEC("struct_ops/kt_undo_cwnd")
__u32 BPF_PROG(kt_undo_cwnd, struct sock *sk)
{
	return 2;
}

SEC("struct_ops/kt_cong_avoid")
void BPF_PROG(kt_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
}

SEC(".struct_ops")
struct tcp_congestion_ops kt_cc = {
	.ssthresh = (void *)kt_ssthresh,
	.undo_cwnd = (void *)kt_undo_cwnd,
	.cong_avoid = (void *)kt_cong_avoid,
	.name = "kt_cc",
};

char LICENSE[] SEC("license") = "GPL";
