/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the native backend's fuzzer drives directly. */
#ifndef KT_NATIVE_H
#define KT_NATIVE_H

/* A cpulist like "0-3,5,7-8" (/sys/devices/system/cpu/online) into a mask
 * of max bytes, one per CPU. */
int kt_parse_cpulist(const char *s, unsigned char *mask, int max);

#endif
