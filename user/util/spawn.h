/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The workload of `record -- CMD` and `compare -- CMD`. */
#ifndef KT_SPAWN_H
#define KT_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Run argv (PATH searched) with SIGPIPE and SIGCHLD at their defaults; with
 * stdout_to_stderr, CMD's stdout goes to stderr (stdout carries data).  The
 * exec result comes back through a close-on-exec pipe: 0 and *pid once CMD
 * runs, or -errno of the failed exec (nothing left to reap).
 */
int kt_spawn(char **argv, bool stdout_to_stderr, pid_t *pid);
/* A wait status as a shell reports it: the exit code, or 128 + signal. */
int kt_wait_status(int status);

/*
 * Work that must not leave its memory in the long-running process (libbpf's
 * parse of the kernel's BTF, several MB): child(fd, ctx) runs in a forked
 * child and sends its results over a socketpair of the given type
 * (SOCK_SEQPACKET to pass fds with SCM_RIGHTS, SOCK_STREAM for bulk data);
 * parent(fd, ctx) receives them; then the child is reaped.  Returns
 * parent()'s result, or -errno if no child could be made (the caller then
 * does the work itself).
 */
int kt_fork_call(int type, int (*child)(int fd, void *ctx), int (*parent)(int fd, void *ctx),
		 void *ctx);

#endif
