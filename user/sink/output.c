// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/fileio.h"
#include "sink/output.h"

#define OUT_CAP (256 * 1024)

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

static int sink_error(struct kt_sink *s, struct kt_output *o, int err)
{
	if (o->err)
		return kt_sink_fail(s, err, "writing to %s: %s", o->what, strerror(-err));
	return kt_sink_fail(s, err, "encoding a record for %s: %s", o->what, strerror(-err));
}

static int sink_record(struct kt_sink *s, const struct kt_record *r)
{
	struct kt_output *o = &((struct kt_output_sink *)s)->out;
	int err = kt_output_record(o, r);

	return err ? sink_error(s, o, err) : 0;
}

static int sink_flush(struct kt_sink *s)
{
	struct kt_output *o = &((struct kt_output_sink *)s)->out;
	int err = kt_output_flush(o);

	return err ? sink_error(s, o, err) : 0;
}

int kt_output_sink_init(struct kt_output_sink *s, int fd, enum kt_format fmt, const char *what)
{
	memset(&s->sink, 0, sizeof(s->sink));
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
	return -ENOMEM;
}
