// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "util/spawn.h"

int kt_spawn(char **argv, bool stdout_to_stderr, pid_t *pid)
{
	int p[2], child_err = 0;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	*pid = fork();
	if (*pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (!*pid) {
		/* kt_install_signals() ignores SIGPIPE; CMD must not inherit that. */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		close(p[0]);
		if (stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		child_err = errno;
		/* Nothing to do if this fails: the parent then sees CMD exit 127. */
		if (write(p[1], &child_err, sizeof(child_err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	do
		n = read(p[0], &child_err, sizeof(child_err));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == sizeof(child_err)) {
		while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
			;
		*pid = 0;
		return -child_err;
	}
	return 0;
}

int kt_wait_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int kt_fork_call(int type, int (*child)(int fd, void *ctx), int (*parent)(int fd, void *ctx),
		 void *ctx)
{
	int sv[2], status, err;
	pid_t pid;

	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (pid == 0) {
		close(sv[0]);
		_exit(child(sv[1], ctx) ? 1 : 0);
	}
	close(sv[1]);
	err = parent(sv[0], ctx);
	close(sv[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return err;
}
