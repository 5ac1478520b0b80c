// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Soak helper: read a stream of binary perf records (ksymtap tail -f raw) on
 * stdin and count them without keeping them: KSYMBOL and BPF_EVENT records
 * live (a sample_id trailer with a time) and from a table (an all-zero
 * trailer, as perf's synthesized records), LOST records and the sum of what
 * they say was lost, split by whose loss it was: serve's own (this client's
 * queue overflowed) is followed by the table again (docs/serve.md), or is
 * the last record of all (the daemon stopped while this client was in
 * overflow), the daemon's (ring buffer, skipped hooks) by live records (its
 * own, or its resync's).  At EOF (or SIGTERM) prints one line:
 *   live N snapshot N lost_records N lost_serve N lost_other N bad N
 * bad: a malformed or truncated stream (exit 1).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

static unsigned long long live, snap, lost_recs, lost_serve, lost_other, pending;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = sig;
}

int main(void)
{
	static unsigned char buf[1 << 16];
	struct perf_event_header h;
	int bad = 0;

	signal(SIGTERM, on_term);
	while (!stop && fread(&h, sizeof(h), 1, stdin) == 1) {
		if (h.size < sizeof(h) + 24 || h.size % 8) {
			bad = 1;
			break;
		}
		if (fread(buf, h.size - sizeof(h), 1, stdin) != 1) {
			bad = 1;
			break;
		}
		if (h.type == PERF_RECORD_LOST) {
			unsigned long long n;

			memcpy(&n, buf + 8, 8);
			lost_recs++;
			lost_other += pending;
			pending = n;
		} else if (h.type == PERF_RECORD_KSYMBOL || h.type == PERF_RECORD_BPF_EVENT) {
			static const unsigned char zero[24];
			/* The trailer's last 24 bytes: pid/tid, time, cpu. */
			bool table = !memcmp(buf + h.size - sizeof(h) - 24, zero, 24);

			if (table)
				snap++;
			else
				live++;
			if (table)
				lost_serve += pending;
			else
				lost_other += pending;
			pending = 0;
		}
	}
	/* Last of all: serve's, for a client in overflow at the stop. */
	if (!stop)
		lost_serve += pending;
	else
		lost_other += pending;
	printf("live %llu snapshot %llu lost_records %llu lost_serve %llu lost_other %llu bad %d\n",
	       live, snap, lost_recs, lost_serve, lost_other, bad);
	return bad;
}
