// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A perf.data, file or pipe format, through the reader behind `ksymtap
 * inject` (header, attrs, records, times, features) and the engine's parser
 * of IN's KSYMBOL and BPF_EVENT records. */
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"
#include "history/inject.h"
#include "history/perf_in.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kt_pi_section sec[8];
	struct kt_perf_in in;
	struct kt_inject ij;
	char why[256];
	int fd, bits[8];
	__u64 t;

	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET)) {
		close(fd);
		return 0;
	}
	kt_inject_init(&ij, false);
	if (!kt_perf_in_open(&in, fd, "fuzz", KT_PI_ANY, why, sizeof(why))) {
		while (kt_perf_in_next(&in, why, sizeof(why)) > 0) {
			if (!kt_perf_in_time(&in, in.rec, &t))
				t = 0;
			kt_inject_add_in(&ij, in.rec, t, in.rec_off);
			kt_perf_in_tracking_attr(&in);
		}
		kt_perf_in_features(&in, sec, bits, 8, why, sizeof(why));
	}
	kt_inject_in_done(&ij);
	kt_inject_fini(&ij);
	kt_perf_in_close(&in);
	close(fd);
	return 0;
}
