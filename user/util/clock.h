/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef KT_CLOCK_H
#define KT_CLOCK_H

#include <linux/types.h>

/*
 * Offset from CLOCK_MONOTONIC (bpf_ktime_get_ns()) to perf's clock
 * (local_clock(), what perf record timestamps use), so that our records sort
 * beside a `perf record` of the same run.  Measured through a PERF_RECORD_COMM
 * we trigger ourselves; accurate to a few microseconds.  -errno if
 * perf_event_open is not allowed (then callers use offset 0).
 */
int kt_perf_clock_offset(__s64 *offset);

__u64 kt_monotonic_ns(void);

/*
 * Wake-up times (CLOCK_MONOTONIC ns; 0: none) of the run loops: a loop
 * sleeps until its fds fire or the earliest time something asked for, and
 * with nothing asked for, until its fds fire.  Nothing wakes periodically.
 */
static inline __u64 kt_wake_min(__u64 a, __u64 b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* epoll's timeout to wake at wake: -1 for none, else ms rounded up. */
int kt_wake_timeout_ms(__u64 wake, __u64 now);

#endif
