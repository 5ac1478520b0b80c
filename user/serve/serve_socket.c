// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "serve/serve_socket.h"

static int fill_addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path))
		return -ENAMETOOLONG;
	strcpy(a->sun_path, path);
	return 0;
}

int kt_connect_unix(const char *path)
{
	struct sockaddr_un a;
	int fd, err;

	err = fill_addr(&a, path);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* What is at path: 0 nothing (or a stale socket, now removed), else -errno. */
static int clear_stale(const char *path)
{
	struct stat st;
	int fd;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = kt_connect_unix(path);
	if (fd >= 0) {
		close(fd);
		return -EADDRINUSE;
	}
	if (fd != -ECONNREFUSED)
		return fd;
	/* ECONNREFUSED: nobody listens; the daemon that made it is gone. */
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

int kt_listen_unix(const char *path, mode_t mode, gid_t gid, ino_t *ino)
{
	struct sockaddr_un a;
	struct stat st;
	mode_t old;
	int fd, err;

	err = fill_addr(&a, path);
	if (err)
		return err;
	err = clear_stale(path);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/* bind() makes the file with the umask: never readable by others,
	 * not even for the moment before chmod(). */
	old = umask(0177);
	err = bind(fd, (struct sockaddr *)&a, sizeof(a)) ? -errno : 0;
	umask(old);
	if (err)
		goto fail;
	if ((mode && chmod(path, mode)) || (gid != (gid_t)-1 && chown(path, -1, gid)) ||
	    lstat(path, &st)) {
		err = -errno;
		unlink(path);
		goto fail;
	}
	if (listen(fd, 64)) {
		err = -errno;
		unlink(path);
		goto fail;
	}
	*ino = st.st_ino;
	return fd;
fail:
	close(fd);
	return err;
}

void kt_unlink_ours(const char *path, ino_t ino)
{
	struct stat st;

	/* A successor may already listen on the path: its file is not ours. */
	if (!lstat(path, &st) && S_ISSOCK(st.st_mode) && st.st_ino == ino)
		unlink(path);
}
