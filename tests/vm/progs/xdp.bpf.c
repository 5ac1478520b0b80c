// SPDX-License-Identifier: GPL-2.0
/* XDP on lo goes through the bpf_dispatcher_xdp image. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("xdp")
int kt_xdp_pass(struct xdp_md *ctx)
{
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
