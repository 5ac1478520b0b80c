// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Latency reader: reads ksymtap's JSON lines on stdin (a pipe), stamps each
 * line with CLOCK_MONOTONIC right after the read(2) that completed it, and
 * subtracts the record's "time".  Run ksymtap with KSYMTAP_DEBUG_KTIME=1 so
 * that "time" is the BPF program's raw bpf_ktime_get_ns(), which is
 * CLOCK_MONOTONIC: both ends then read the same clock, no offset is involved.
 * The figure is kernel event -> line readable by a consumer, so it includes
 * ksymtap's write(2) and the pipe wake-up: an upper bound on "record written".
 *
 *   ksymtap -f json | ktbstamp [-m SUBSTRING] [-o COPY]
 *
 * Only lines containing SUBSTRING count (all, without -m); snapshot records
 * (enumerated, not seen being born) and lost records never do.  At EOF, one
 * line: records N lost L negative K min_ns A p50_ns B p99_ns C max_ns D mean_ns E
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long long *lat;
static size_t nlat, caplat;
static unsigned long long lost;
static const char *match;
static FILE *copy;

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void line(char *l, size_t len, unsigned long long arrival)
{
	const char *p;
	long long *n;

	if (copy)
		fwrite(l, 1, len + 1, copy);
	l[len] = 0;
	if (strstr(l, "\"kind\":\"lost\"")) {
		p = strstr(l, "\"lost\":");
		if (p)
			lost += strtoull(p + 7, NULL, 10);
		return;
	}
	if (strstr(l, "\"snapshot\":true") || (match && !strstr(l, match)))
		return;
	p = strstr(l, "\"time\":");
	if (!p)
		return;
	if (nlat == caplat) {
		caplat = caplat ? caplat * 2 : 4096;
		n = realloc(lat, caplat * sizeof(*lat));
		if (!n) {
			perror("ktbstamp");
			exit(1);
		}
		lat = n;
	}
	lat[nlat++] = (long long)(arrival - strtoull(p + 7, NULL, 10));
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	size_t have = 0, i, start;
	unsigned long long t;
	long long sum = 0;
	size_t neg = 0;
	ssize_t n;
	int opt;

	while ((opt = getopt(argc, argv, "m:o:")) != -1) {
		switch (opt) {
		case 'm':
			match = optarg;
			break;
		case 'o':
			copy = fopen(optarg, "w");
			if (!copy) {
				perror(optarg);
				return 1;
			}
			break;
		default:
			fprintf(stderr, "usage: ktbstamp [-m SUBSTRING] [-o COPY] <json-lines\n");
			return 2;
		}
	}
	for (;;) {
		n = read(0, buf + have, sizeof(buf) - have - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		t = now_ns();
		start = 0;
		for (i = have; i < have + (size_t)n; i++) {
			if (buf[i] != '\n')
				continue;
			line(buf + start, i - start, t);
			start = i + 1;
		}
		have += n;
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have == sizeof(buf) - 1)
			have = 0; /* a line longer than the buffer: not ksymtap's */
	}
	if (copy)
		fclose(copy);
	if (!nlat) {
		printf("records 0 lost %llu\n", lost);
		return 1;
	}
	qsort(lat, nlat, sizeof(*lat), cmp_ll);
	for (i = 0; i < nlat; i++) {
		sum += lat[i];
		neg += lat[i] < 0;
	}
	printf("records %zu lost %llu negative %zu min_ns %lld p50_ns %lld p99_ns %lld max_ns %lld "
	       "mean_ns %lld\n",
	       nlat, lost, neg, lat[0], lat[nlat / 2], lat[(nlat * 99) / 100], lat[nlat - 1],
	       sum / (long long)nlat);
	return 0;
}
