/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One generation of a symbol: what the history keeps (history/history.h)
 * and what an answer says (encode/encode_answer.h). */
#ifndef KT_HSYM_H
#define KT_HSYM_H

#include <linux/types.h>

#define KT_HIST_ALIVE (~0ULL)
/* A lookup time later than every death: "now", whatever the clock says. */
#define KT_HIST_NOW (~0ULL - 1)

struct kt_hsym {
	__u64 birth; /* perf's clock; 0: existed when the recording started */
	__u64 death; /* KT_HIST_ALIVE: still there */
	__u64 addr;
	__u32 len;
	unsigned char source; /* enum kt_source */
	unsigned char ksym_type; /* PERF_RECORD_KSYMBOL_TYPE_* */
	char *name;
};

#endif
