// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Test helper: split a stream of binary perf records (ksymtap -f raw) and
 * print, per KSYMBOL / BPF_EVENT record, "K|B <hex of header and body>" -- the
 * record without its 24-byte sample_id trailer -- so tests can compare it byte
 * for byte with the kernel's record in a perf.data file (perf report -D).
 * Exits 1 on a truncated or malformed stream.
 */
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>

int main(void)
{
	unsigned char buf[65536];
	struct perf_event_header h;
	size_t i;

	while (fread(&h, sizeof(h), 1, stdin) == 1) {
		if (h.size < sizeof(h) + 24 || h.size % 8) {
			fprintf(stderr, "ktrawdump: bad record size %u\n", h.size);
			return 1;
		}
		memcpy(buf, &h, sizeof(h));
		if (fread(buf + sizeof(h), h.size - sizeof(h), 1, stdin) != 1) {
			fprintf(stderr, "ktrawdump: truncated record\n");
			return 1;
		}
		if (h.type != PERF_RECORD_KSYMBOL && h.type != PERF_RECORD_BPF_EVENT)
			continue;
		printf("%c ", h.type == PERF_RECORD_KSYMBOL ? 'K' : 'B');
		for (i = 0; i < (size_t)h.size - 24; i++)
			printf("%02x", buf[i]);
		putchar('\n');
	}
	return ferror(stdin) ? 1 : 0;
}
