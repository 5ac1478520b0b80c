/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Whole reads and writes on fds, and files replaced atomically. */
#ifndef KT_FILEIO_H
#define KT_FILEIO_H

#include <stddef.h>
#include <sys/types.h>

/* write(2) all of it, retrying on EINTR and short writes: 0 or -errno. */
int kt_write_all(int fd, const void *data, size_t len);
/* read(2) exactly len bytes: 0, -errno, or -EPROTO at end of file first. */
int kt_read_all(int fd, void *data, size_t len);
/* A small file (procfs, sysfs, debugfs) into buf, NUL-terminated: the bytes
 * read, or -errno. */
ssize_t kt_read_small(const char *path, char *buf, size_t size);
/* A whole file of any size (/sys/kernel/btf/vmlinux: 5-8 MiB) into a
 * malloc()ed *out of *size bytes, hint the size to start with.  0 or -errno. */
int kt_read_file(const char *path, size_t hint, char **out, size_t *size);
/* The same at offset off (pread(2)). */
int kt_pread_all(int fd, void *data, size_t len, off_t off);
/* Everything from in until EOF, written to out: 0 or -errno. */
int kt_copy_fd(int in, int out);
/* Write data to a temporary file beside path (same file system), give it
 * mode, and rename(2) it over path, so that a reader sees the old file or
 * the new one, never half of one.  The temporary name ends in ".XXXXXX",
 * which node exporter's textfile collector (*.prom) skips.  0 or -errno;
 * on error path is left as it was. */
int kt_replace_file(const char *path, const void *data, size_t len, mode_t mode);

#endif
