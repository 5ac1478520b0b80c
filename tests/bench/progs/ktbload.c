// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Benchmark load generator: the smallest program the kernel JITs (a socket
 * filter "r0 = 0; exit", one function, so 2 KSYMBOL + 2 BPF_EVENT records per
 * load and unload), loaded with the raw bpf(2) syscall and closed again.
 *
 *   ktbload cycle [-n N] [-W WARMUP] [-g GAP_US] [-k] [-N NAME]
 *       WARMUP untimed cycles, then N timed load+close cycles, each timed with
 *       clock_gettime(CLOCK_MONOTONIC).  -k keeps one more program loaded
 *       throughout, so the JIT's shared code pack (bpf_prog_pack, 6.0+) never
 *       empties and is not freed and re-allocated between cycles, as on a
 *       machine where some program is always loaded.  Prints one line:
 *         cycles N failed F total_ns T mean_ns M p50_ns P p90_ns Q
 *   ktbload burst [-n TOTAL] [-j THREADS] [-N NAME]
 *       TOTAL load+close cycles as fast as THREADS threads go.  Prints:
 *         loaded N failed F threads J elapsed_ns T
 *   ktbload hold [-n N] -w FILE [-N NAME]
 *       Load N programs, print "holding N", keep them until FILE exists.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/resource.h>
#include <sys/syscall.h>

static const char *prog_name = "ktb_prog";

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int load_prog(void)
{
	/* r0 = 0; exit */
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (unsigned long)"GPL";
	snprintf(attr.prog_name, sizeof(attr.prog_name), "%s", prog_name);
	do {
		fd = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	} while (fd < 0 && errno == EAGAIN);
	return fd;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static int do_cycle(long n, long warmup, long gap_us, int keep)
{
	unsigned long long *dt, t0, t1, start, total;
	long i, failed = 0;
	int fd, keeper = -1;

	dt = calloc(n, sizeof(*dt));
	if (!dt)
		return 1;
	if (keep && (keeper = load_prog()) < 0) {
		fprintf(stderr, "ktbload: BPF_PROG_LOAD: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < warmup; i++) {
		fd = load_prog();
		if (fd < 0) {
			fprintf(stderr, "ktbload: BPF_PROG_LOAD: %s\n", strerror(errno));
			return 1;
		}
		close(fd);
	}
	start = now_ns();
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		fd = load_prog();
		if (fd >= 0)
			close(fd);
		else
			failed++;
		t1 = now_ns();
		dt[i] = t1 - t0;
		if (gap_us)
			usleep(gap_us);
	}
	total = now_ns() - start;
	qsort(dt, n, sizeof(*dt), cmp_ull);
	printf("cycles %ld failed %ld total_ns %llu mean_ns %llu p50_ns %llu p90_ns %llu\n", n,
	       failed, total, gap_us ? 0 : total / n, dt[n / 2], dt[n * 9 / 10]);
	free(dt);
	if (keeper >= 0)
		close(keeper);
	return failed ? 1 : 0;
}

static long burst_left, burst_loaded, burst_failed;

static void *burst_thread(void *arg)
{
	int fd;

	(void)arg;
	while (__atomic_sub_fetch(&burst_left, 1, __ATOMIC_RELAXED) >= 0) {
		fd = load_prog();
		if (fd < 0) {
			__atomic_add_fetch(&burst_failed, 1, __ATOMIC_RELAXED);
			continue;
		}
		close(fd);
		__atomic_add_fetch(&burst_loaded, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int do_burst(long n, int threads)
{
	pthread_t tid[64];
	unsigned long long t0;
	int i;

	if (threads < 1 || threads > 64)
		return 2;
	burst_left = n;
	t0 = now_ns();
	for (i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, burst_thread, NULL))
			return 1;
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	printf("loaded %ld failed %ld threads %d elapsed_ns %llu\n", burst_loaded, burst_failed,
	       threads, now_ns() - t0);
	return burst_failed ? 1 : 0;
}

static int do_hold(long n, const char *wait_file)
{
	struct rlimit rl = { .rlim_cur = n + 64, .rlim_max = n + 64 };
	int *fds = calloc(n, sizeof(*fds));
	long i;

	if (!fds)
		return 1;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		fprintf(stderr, "ktbload: setrlimit(NOFILE, %ld): %s\n", n + 64, strerror(errno));
	for (i = 0; i < n; i++) {
		fds[i] = load_prog();
		if (fds[i] < 0) {
			fprintf(stderr, "ktbload: program %ld: BPF_PROG_LOAD: %s\n", i,
				strerror(errno));
			return 1;
		}
	}
	printf("holding %ld\n", n);
	fflush(stdout);
	while (access(wait_file, F_OK))
		usleep(20 * 1000);
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: ktbload cycle [-n N] [-W WARMUP] [-g GAP_US] [-k] [-N NAME]\n"
			"       ktbload burst [-n TOTAL] [-j THREADS] [-N NAME]\n"
			"       ktbload hold [-n N] -w FILE [-N NAME]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *mode, *wait_file = NULL;
	long n = 2000, warmup = 200, gap_us = 0;
	int opt, threads = 4, keep = 0;

	if (argc < 2)
		return usage();
	/* Before 5.11 BPF memory counts against RLIMIT_MEMLOCK (memcg
	 * accounting came with commit 3ac1f01b43b6): 5.10 refuses the load
	 * with EPERM at the default 64 KiB. */
	setrlimit(RLIMIT_MEMLOCK, &(struct rlimit){ RLIM_INFINITY, RLIM_INFINITY });
	mode = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "n:w:W:g:j:kN:")) != -1) {
		switch (opt) {
		case 'n':
			n = atol(optarg);
			break;
		case 'w':
			wait_file = optarg;
			break;
		case 'W':
			warmup = atol(optarg);
			break;
		case 'g':
			gap_us = atol(optarg);
			break;
		case 'j':
			threads = atoi(optarg);
			break;
		case 'k':
			keep = 1;
			break;
		case 'N':
			prog_name = optarg;
			break;
		default:
			return usage();
		}
	}
	if (n < 1)
		return usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "cycle"))
		return do_cycle(n, warmup, gap_us, keep);
	if (!strcmp(mode, "burst"))
		return do_burst(n, threads);
	if (!strcmp(mode, "hold") && wait_file)
		return do_hold(n, wait_file);
	return usage();
}
