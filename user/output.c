// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "output.h"

#define OUT_CAP (256 * 1024)

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

int kt_output_init(struct kt_output *o, int fd, enum kt_format fmt, const char *what)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->fmt = fmt;
	o->what = what;
	o->cap = OUT_CAP;
	o->buf = malloc(o->cap);
	return o->buf ? 0 : -ENOMEM;
}

int kt_output_flush(struct kt_output *o)
{
	int err;

	if (o->err)
		return o->err;
	if (!o->len)
		return 0;
	err = kt_write_all(o->fd, o->buf, o->len);
	o->len = 0;
	if (err)
		o->err = err;
	return err;
}

int kt_output_write(struct kt_output *o, const void *data, size_t len)
{
	int err;

	if (o->err)
		return o->err;
	if (o->len + len > o->cap) {
		err = kt_output_flush(o);
		if (err)
			return err;
	}
	if (len > o->cap)
		return o->err = kt_write_all(o->fd, data, len);
	memcpy(o->buf + o->len, data, len);
	o->len += len;
	return 0;
}

int kt_output_record(struct kt_output *o, const struct kt_record *r)
{
	ssize_t n;
	int err;

	if (o->err)
		return o->err;
	if (o->cap - o->len < KT_ENCODE_MAX) {
		err = kt_output_flush(o);
		if (err)
			return err;
	}
	n = kt_encode(o->fmt, r, o->buf + o->len, o->cap - o->len);
	if (n < 0)
		return (int)n;
	o->len += n;
	o->records++;
	return 0;
}

void kt_output_fini(struct kt_output *o)
{
	free(o->buf);
	o->buf = NULL;
}

static int sink_record(struct kt_sink *s, const struct kt_record *r)
{
	return kt_output_record(&((struct kt_output_sink *)s)->out, r);
}

static int sink_flush(struct kt_sink *s)
{
	return kt_output_flush(&((struct kt_output_sink *)s)->out);
}

int kt_output_sink_init(struct kt_output_sink *s, int fd, enum kt_format fmt, const char *what)
{
	s->sink.name = what;
	s->sink.record = sink_record;
	s->sink.flush = sink_flush;
	return kt_output_init(&s->out, fd, fmt, what);
}

int kt_stdout_pipeline(struct kt_pipeline *p, struct kt_output_sink *out, enum kt_format fmt)
{
	if (kt_pipeline_init(p))
		goto nomem;
	/* Only JSON shows attribution: text and raw skip its lookup per record. */
	if (fmt != KT_FMT_JSON) {
		kt_attrib_free(p->attrib);
		p->attrib = NULL;
	}
	if (kt_output_sink_init(out, STDOUT_FILENO, fmt, "stdout")) {
		kt_pipeline_fini(p);
		goto nomem;
	}
	if (kt_pipeline_add_sink(p, &out->sink)) {
		kt_output_fini(&out->out);
		kt_pipeline_fini(p);
		goto nomem;
	}
	return 0;
nomem:
	kt_err("out of memory");
	return -ENOMEM;
}
