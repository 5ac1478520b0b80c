// SPDX-License-Identifier: GPL-2.0
/* A socket filter with ten subprograms: eleven JITed images, more than the
 * snapshot asks bpf_prog_info for in its first call (user/snapshot/snapshot_prog.c).
 * All called from the main program: the verifier allows 8 frames deep. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define SUB(n)                                                   \
	static __noinline int kt_many_##n(struct __sk_buff *skb) \
	{                                                        \
		return skb->len * n;                             \
	}

SUB(1)
SUB(2)
SUB(3)
SUB(4)
SUB(5)
SUB(6)
SUB(7)
SUB(8)
SUB(9)
SUB(10)

SEC("socket")
int kt_many_main(struct __sk_buff *skb)
{
	return kt_many_1(skb) + kt_many_2(skb) + kt_many_3(skb) + kt_many_4(skb) + kt_many_5(skb) +
	       kt_many_6(skb) + kt_many_7(skb) + kt_many_8(skb) + kt_many_9(skb) + kt_many_10(skb);
}

char LICENSE[] SEC("license") = "GPL";
