// SPDX-License-Identifier: GPL-2.0
/* fentry + fexit on one kernel function: one BPF trampoline. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 hits;

SEC("fentry/do_nanosleep")
int BPF_PROG(kt_fentry_probe)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

SEC("fexit/do_nanosleep")
int BPF_PROG(kt_fexit_probe)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
