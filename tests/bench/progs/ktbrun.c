// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Start-up timer: runs CMD with stdout to a file (/dev/null by default) and
 * stderr to a pipe, and times it with CLOCK_MONOTONIC from just before fork(2)
 * to the first stderr line starting with PATTERN (-r), or else to its exit.
 * With -r, it then reads the child's VmHWM/VmRSS from /proc, sends SIGINT,
 * and waits.  Prints one line:
 *   ready_ns R exit_ns E hwm_kb H rss_kb S maxrss_kb M status X
 * (hwm_kb/rss_kb at the ready line, 0 without -r; maxrss_kb from wait4(2));
 * exits 1 if the pattern never came, the timeout (-t SEC, default 120) hit,
 * or CMD failed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long status_kb(pid_t pid, const char *key)
{
	char path[64], l[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(l, sizeof(l), f))
		if (!strncmp(l, key, klen) && l[klen] == ':')
			v = atol(l + klen + 1);
	fclose(f);
	return v;
}

static pid_t child;

static void on_alarm(int sig)
{
	(void)sig;
	if (child > 0)
		kill(child, SIGKILL);
}

int main(int argc, char **argv)
{
	const char *pattern = NULL, *out = "/dev/null";
	unsigned long long t0, t_ready = 0, t_exit;
	char err[65536];
	size_t elen = 0, plen = 0, lstart = 0, i;
	long hwm = 0, rss = 0;
	struct rusage ru;
	int opt, timeout = 120, p[2], fd, status = 0, found = 0;
	ssize_t n;

	while ((opt = getopt(argc, argv, "+r:t:o:")) != -1) {
		switch (opt) {
		case 'r':
			pattern = optarg;
			break;
		case 't':
			timeout = atoi(optarg);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: ktbrun [-r PATTERN] [-t SEC] [-o FILE] -- CMD...\n");
			return 2;
		}
	}
	if (optind >= argc)
		return 2;
	if (pattern)
		plen = strlen(pattern);
	if (pipe(p))
		return 1;
	signal(SIGALRM, on_alarm);
	t0 = now_ns();
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(p[1], 2);
		close(p[0]);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	close(p[1]);
	alarm(timeout);
	while ((n = read(p[0], err + elen, sizeof(err) - 1 - elen)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = elen; i < elen + (size_t)n; i++) {
			if (err[i] != '\n')
				continue;
			if (pattern && !found && i - lstart >= plen &&
			    !memcmp(err + lstart, pattern, plen)) {
				t_ready = now_ns();
				found = 1;
				hwm = status_kb(child, "VmHWM");
				rss = status_kb(child, "VmRSS");
				kill(child, SIGINT);
			}
			lstart = i + 1;
		}
		elen += n;
		if (elen == sizeof(err) - 1) { /* keep draining, forget the text */
			elen = 0;
			lstart = 0;
		}
	}
	wait4(child, &status, 0, &ru);
	t_exit = now_ns();
	alarm(0);
	if (!pattern)
		t_ready = t_exit;
	printf("ready_ns %llu exit_ns %llu hwm_kb %ld rss_kb %ld maxrss_kb %ld status %d\n",
	       found || !pattern ? t_ready - t0 : 0, t_exit - t0, hwm, rss, ru.ru_maxrss, status);
	if ((pattern && !found) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		err[elen] = 0;
		fprintf(stderr, "ktbrun: %s: %s%s", argv[optind],
			pattern && !found ? "no ready line; stderr:\n" : "failed; stderr:\n", err);
		return 1;
	}
	return 0;
}
