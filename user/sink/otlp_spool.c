// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The OTLP exporter's spool (otlp_spool.h).  A file per request, named
 * ORDER-RECORDS.EXT (ORDER: 12 digits, one more than the highest the
 * directory held when it was opened; EXT: pb, json, pb.gz or json.gz), so
 * that a file says how to send it and how many records it holds without
 * being read.  Each is written beside its name and renamed into place
 * (kt_replace_file), so a crash leaves whole files and temporaries, which
 * the next open removes.  Order, not sequence numbers: a reboot starts the
 * sequence again, the spool's order goes on.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "util/base.h"
#include "util/fileio.h"
#include "util/log.h"
#include "sink/otlp_spool.h"

static const char *const exts[2][2] = {
	[KT_OTLP_PROTOBUF] = { "pb", "pb.gz" },
	[KT_OTLP_JSON] = { "json", "json.gz" },
};

static void file_name(const struct kt_spool_file *f, char *buf, size_t size)
{
	snprintf(buf, size, "%012llu-%u.%s", f->order, f->records, exts[f->proto][f->gzip]);
}

/* name as a spool file (0), or -EINVAL for anything else. */
static int parse_name(const char *name, struct kt_spool_file *f)
{
	char ext[16], again[64];
	int end = 0;

	if (sscanf(name, "%12llu-%u.%15s%n", &f->order, &f->records, ext, &end) != 3 || name[end])
		return -EINVAL;
	for (int p = 0; p < 2; p++) {
		for (int z = 0; z < 2; z++) {
			if (strcmp(ext, exts[p][z]))
				continue;
			f->proto = p;
			f->gzip = z;
			file_name(f, again, sizeof(again));
			return strcmp(again, name) ? -EINVAL : 0;
		}
	}
	return -EINVAL;
}

/* A file kt_replace_file() was writing when the last run ended: a spool
 * file's name and ".XXXXXX". */
static bool is_temporary(const char *name)
{
	size_t len = strlen(name);
	struct kt_spool_file f;
	char base[64];

	if (len < 8 || len - 7 >= sizeof(base) || name[len - 7] != '.')
		return false;
	memcpy(base, name, len - 7);
	base[len - 7] = '\0';
	return !parse_name(base, &f);
}

static int by_order(const void *a, const void *b)
{
	const struct kt_spool_file *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* What an earlier run left: its files, in order; temporaries removed;
 * anything else left alone (said once). */
static int scan(struct kt_spool *s)
{
	int fd = openat(s->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct kt_spool_file f;
	struct dirent *de;
	struct stat st;
	int err = 0;

	if (!d) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return err;
	}
	while (!err && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "lock"))
			continue;
		if (parse_name(de->d_name, &f) || fstatat(s->dirfd, de->d_name, &st, 0) ||
		    !S_ISREG(st.st_mode)) {
			if (is_temporary(de->d_name))
				unlinkat(s->dirfd, de->d_name, 0);
			else
				kt_warn("otlp: spool %s: '%s' is not a spool file; left alone",
					s->dir, de->d_name);
			continue;
		}
		f.bytes = st.st_size;
		err = KT_GROW(s->f, s->cap, s->n + 1);
		if (err)
			break;
		s->f[s->n++] = f;
		s->bytes += f.bytes;
		s->records += f.records;
		if (f.order >= s->next_order)
			s->next_order = f.order + 1;
	}
	closedir(d);
	if (s->n)
		qsort(s->f, s->n, sizeof(*s->f), by_order);
	return err;
}

int kt_spool_open(struct kt_spool *s, const char *dir, size_t bound, char *why, size_t why_size)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->dirfd = s->lockfd = -1;
	s->bound = bound;
	s->next_order = 1;
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	/* It holds kernel addresses: root's (or the service user's) only. */
	if (mkdir(dir, 0700) && errno != EEXIST)
		return err = -errno,
		       snprintf(why, why_size, "--otlp-spool: %s: %s", dir, strerror(-err)), err;
	s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0)
		return err = -errno,
		       snprintf(why, why_size, "--otlp-spool: %s: %s", dir, strerror(-err)), err;
	s->lockfd = openat(s->dirfd, "lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->lockfd < 0 || flock(s->lockfd, LOCK_EX | LOCK_NB)) {
		err = errno == EWOULDBLOCK ? -EBUSY : -errno;
		snprintf(why, why_size, "--otlp-spool: %s: %s", dir,
			 err == -EBUSY ? "another ksymtap uses this spool" : strerror(-err));
		kt_spool_close(s);
		return err;
	}
	err = scan(s);
	if (err) {
		snprintf(why, why_size, "--otlp-spool: %s: reading it: %s", dir, strerror(-err));
		kt_spool_close(s);
	}
	return err;
}

void kt_spool_close(struct kt_spool *s)
{
	if (s->lockfd >= 0)
		close(s->lockfd); /* the lock goes with it */
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->f);
	s->f = NULL;
	s->dirfd = s->lockfd = -1;
}

const struct kt_spool_file *kt_spool_head(const struct kt_spool *s)
{
	return kt_spool_empty(s) ? NULL : &s->f[s->head];
}

int kt_spool_put(struct kt_spool *s, const void *body, size_t len, unsigned int records,
		 enum kt_otlp_protocol proto, bool gzip)
{
	struct kt_spool_file f = { s->next_order, records, len, proto, gzip };
	char name[64], path[600];
	int err;

	if (s->bytes + len > s->bound)
		return -ENOSPC;
	/* The array's used part moves down once half of it is spent. */
	if (s->head && s->head >= s->n / 2) {
		memmove(s->f, s->f + s->head, (s->n - s->head) * sizeof(*s->f));
		s->n -= s->head;
		s->head = 0;
	}
	err = KT_GROW(s->f, s->cap, s->n + 1);
	if (err)
		return err;
	file_name(&f, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", s->dir, name);
	err = kt_replace_file(path, body, len, 0600);
	if (err)
		return err;
	s->f[s->n++] = f;
	s->next_order++;
	s->bytes += len;
	s->records += records;
	return 0;
}

int kt_spool_read_head(struct kt_spool *s, char **body, size_t *len)
{
	const struct kt_spool_file *f = kt_spool_head(s);
	char name[64];
	int fd, err;

	if (!f)
		return -ENOENT;
	file_name(f, name, sizeof(name));
	fd = openat(s->dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*len = f->bytes;
	*body = malloc(f->bytes ? f->bytes : 1);
	err = *body ? kt_read_all(fd, *body, f->bytes) : -ENOMEM;
	close(fd);
	if (err) {
		free(*body);
		*body = NULL;
	}
	return err;
}

void kt_spool_pop(struct kt_spool *s)
{
	const struct kt_spool_file *f = kt_spool_head(s);
	char name[64];

	if (!f)
		return;
	file_name(f, name, sizeof(name));
	if (unlinkat(s->dirfd, name, 0) && errno != ENOENT)
		kt_warn("otlp: spool %s: removing %s: %m", s->dir, name);
	s->bytes -= f->bytes;
	s->records -= f->records;
	s->head++;
}
