// SPDX-License-Identifier: GPL-2.0
/* A socket filter with two subprograms: three JITed images, three KSYMBOLs. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

static __noinline int kt_sub_one(struct __sk_buff *skb)
{
	return skb->len + 1;
}

static __noinline int kt_sub_two(struct __sk_buff *skb)
{
	return skb->len * 3 + kt_sub_one(skb);
}

SEC("socket")
int kt_sock_main(struct __sk_buff *skb)
{
	return kt_sub_one(skb) + kt_sub_two(skb);
}

char LICENSE[] SEC("license") = "GPL";
