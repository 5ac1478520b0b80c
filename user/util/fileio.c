// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/base.h"
#include "util/fileio.h"

int kt_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* read(2), or pread(2) at off unless off is -1. */
static int read_at(int fd, void *data, size_t len, off_t off)
{
	char *p = data;
	ssize_t n;

	while (len) {
		n = off < 0 ? read(fd, p, len) : pread(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPROTO;
		p += n;
		len -= n;
		if (off >= 0)
			off += n;
	}
	return 0;
}

int kt_read_all(int fd, void *data, size_t len)
{
	return read_at(fd, data, len, -1);
}

int kt_pread_all(int fd, void *data, size_t len, off_t off)
{
	return read_at(fd, data, len, off);
}

int kt_replace_file(const char *path, const void *data, size_t len, mode_t mode)
{
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 8);
	int fd, err = 0;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, plen + 8, "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	/* mkstemp() makes 0600. */
	if (fchmod(fd, mode))
		err = -errno;
	if (!err)
		err = kt_write_all(fd, data, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

ssize_t kt_read_small(const char *path, char *buf, size_t size)
{
	ssize_t n, got = 0;
	int fd, err;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)got < size - 1) {
		n = read(fd, buf + got, size - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			if (err) {
				close(fd);
				return err;
			}
			break;
		}
		got += n;
	}
	buf[got] = 0;
	close(fd);
	return got;
}

int kt_read_file(const char *path, size_t hint, char **out, size_t *size)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	ssize_t r = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (KT_GROW(buf, cap, n < hint ? hint : n + 1)) {
			err = -ENOMEM;
			break;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			err = -errno;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	*size = n;
	return 0;
}

int kt_copy_fd(int in, int out)
{
	char buf[65536];
	ssize_t n;
	int err;

	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		err = kt_write_all(out, buf, n);
		if (err)
			return err;
	}
}
