// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A file of OTLP/JSON lines (a Collector's file exporter's) through the
 * reader behind `resolve -i FILE` (history/otlp_in.c) into a history, with
 * no node chosen and with one. */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"
#include "history/resolve.h"

static int add(void *ctx, struct kt_record *r)
{
	return kt_history_add(ctx, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kt_otlp_select any = { NULL, NULL }, one = { "node-a", NULL };
	struct kt_history h;
	char path[64], why[512];
	int fd;

	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		kt_history_init(&h);
		if (kt_otlp_file_is(path))
			kt_otlp_file_read(path, &any, add, &h, why, sizeof(why));
		kt_history_fini(&h);
		kt_history_init(&h);
		kt_otlp_file_read(path, &one, add, &h, why, sizeof(why));
		kt_history_find(&h, 0xffffffffc0001000ULL, h.end);
		kt_history_fini(&h);
	}
	close(fd);
	return 0;
}
