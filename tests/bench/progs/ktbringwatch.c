// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the reader was doing while its ring filled (issue 34): samples a
 * running ksymtap's BPF ring buffer and its threads, and prints one line per
 * interval.
 *
 *   ktbringwatch -p PID [-i INTERVAL_MS] [-s SAMPLE_US] [-w FILE]
 *
 * The ring is the newest BPF_MAP_TYPE_RINGBUF map named "events" (ksymtap's);
 * its consumer and producer positions are read from read-only mappings of
 * the ring's first two pages (kernel/bpf/ringbuf.c: consumer page, then
 * producer page), every SAMPLE_US (default 500).  Every INTERVAL_MS (default
 * 100), one line:
 *   t_ms T fill_max_kb F fill_end_kb E produced_kb P consumed_kb C
 *   cpu_ms U wait_ms W state S
 * fill is producer - consumer (bytes waiting); cpu_ms and wait_ms are the
 * time PID's threads ran and waited runnable for a CPU in the interval
 * (/proc/PID/task/ * /schedstat); state is the states of those threads at the
 * interval's end (/proc/PID/task/ * /stat: R running, S sleeping, D ...).
 * Stops when PID exits or FILE exists.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/mman.h>
#include <sys/syscall.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The newest ring buffer map named "events": its fd, or -1. */
static int find_ring(unsigned int *size)
{
	union bpf_attr a;
	struct bpf_map_info info;
	unsigned int id = 0, best = 0;
	int fd, best_fd = -1;

	for (;;) {
		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(BPF_MAP_GET_NEXT_ID, &a))
			break;
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.map_id = id;
		fd = sys_bpf(BPF_MAP_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = fd;
		a.info.info_len = sizeof(info);
		a.info.info = (unsigned long)&info;
		if (!sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) && info.type == BPF_MAP_TYPE_RINGBUF &&
		    !strcmp(info.name, "events") && id > best) {
			if (best_fd >= 0)
				close(best_fd);
			best = id;
			best_fd = fd;
			*size = info.max_entries;
			continue;
		}
		close(fd);
	}
	return best_fd;
}

/* Sum of run and wait ns of pid's threads; their states in st. */
static void threads(int pid, unsigned long long *run, unsigned long long *wait, char *st,
		    size_t stsize)
{
	char path[320], buf[512], *p;
	struct dirent *d;
	unsigned long long r, w;
	size_t n = 0;
	DIR *dir;
	FILE *f;

	*run = *wait = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", pid, d->d_name);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%llu %llu", &r, &w) == 2) {
				*run += r;
				*wait += w;
			}
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid, d->d_name);
		f = fopen(path, "r");
		if (f) {
			if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[1] &&
			    n + 1 < stsize)
				st[n++] = p[2];
			fclose(f);
		}
	}
	closedir(dir);
	st[n] = 0;
}

int main(int argc, char **argv)
{
	unsigned long long t0, next, now, run0, wait0, run, wait, prod0, cons0;
	long interval_ms = 100, sample_us = 500, pg = sysconf(_SC_PAGESIZE);
	volatile unsigned long *cons, *prod;
	unsigned long fill, fmax = 0;
	const char *stop = NULL;
	unsigned int size = 0;
	char path[64], st[64];
	int opt, pid = 0, fd;

	while ((opt = getopt(argc, argv, "p:i:s:w:")) != -1) {
		switch (opt) {
		case 'p':
			pid = atoi(optarg);
			break;
		case 'i':
			interval_ms = atol(optarg);
			break;
		case 's':
			sample_us = atol(optarg);
			break;
		case 'w':
			stop = optarg;
			break;
		default:
			fprintf(stderr, "usage: ktbringwatch -p PID [-i MS] [-s US] [-w FILE]\n");
			return 2;
		}
	}
	if (pid <= 0 || interval_ms <= 0 || sample_us <= 0) {
		fprintf(stderr, "ktbringwatch: need -p PID\n");
		return 2;
	}
	fd = find_ring(&size);
	if (fd < 0) {
		fprintf(stderr, "ktbringwatch: no ring buffer map named events\n");
		return 1;
	}
	cons = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0);
	prod = mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, pg);
	if (cons == MAP_FAILED || prod == MAP_FAILED) {
		fprintf(stderr, "ktbringwatch: mmap: %s\n", strerror(errno));
		return 1;
	}
	printf("# ring %u bytes, pid %d, interval %ld ms, sample %ld us\n", size, pid, interval_ms,
	       sample_us);
	snprintf(path, sizeof(path), "/proc/%d", pid);
	threads(pid, &run0, &wait0, st, sizeof(st));
	prod0 = *prod;
	cons0 = *cons;
	t0 = now_ns();
	next = t0 + interval_ms * 1000000ULL;
	while (access(path, F_OK) == 0 && !(stop && access(stop, F_OK) == 0)) {
		fill = *prod - *cons;
		if (fill > fmax)
			fmax = fill;
		now = now_ns();
		if (now >= next) {
			threads(pid, &run, &wait, st, sizeof(st));
			printf("t_ms %llu fill_max_kb %lu fill_end_kb %lu produced_kb %llu "
			       "consumed_kb %llu cpu_ms %.1f wait_ms %.1f state %s\n",
			       (now - t0) / 1000000, fmax >> 10, fill >> 10, (*prod - prod0) >> 10,
			       (*cons - cons0) >> 10, (run - run0) / 1e6, (wait - wait0) / 1e6, st);
			fflush(stdout);
			prod0 = *prod;
			cons0 = *cons;
			run0 = run;
			wait0 = wait;
			fmax = 0;
			next += interval_ms * 1000000ULL;
		}
		usleep(sample_us);
	}
	return 0;
}
