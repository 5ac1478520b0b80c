/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The daemon's listening Unix socket: created private, never stolen. */
#ifndef KT_SERVE_SOCKET_H
#define KT_SERVE_SOCKET_H

#include <sys/types.h>

/*
 * Listen on PATH.  A socket file nobody answers on (a dead daemon's) is
 * replaced; one that accepts a connection is live: -EADDRINUSE.  Anything
 * that is not a socket is left alone: -EEXIST.  The file is made mode 0600
 * and then given mode (if not 0) and group gid (if not -1).  Returns the
 * listening fd (non-blocking) and the file's inode, or -errno.
 */
int kt_listen_unix(const char *path, mode_t mode, gid_t gid, ino_t *ino);
/* Remove PATH if it is still the socket we made (inode ino). */
void kt_unlink_ours(const char *path, ino_t ino);
/* Connect to PATH (blocking): fd or -errno. */
int kt_connect_unix(const char *path);

#endif
