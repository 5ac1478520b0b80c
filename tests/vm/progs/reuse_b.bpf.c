// SPDX-License-Identifier: GPL-2.0
/* Two socket filters alike but for their names (reuse_a, reuse_b): the same
 * JIT size, so the later one can take the earlier one's freed address. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("socket")
int kt_reuse_b(struct __sk_buff *skb)
{
	return skb->len * 7 + 3;
}

char LICENSE[] SEC("license") = "GPL";
