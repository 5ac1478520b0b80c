/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Buffered record output to an fd in one format; write errors are sticky. */
#ifndef KT_OUTPUT_H
#define KT_OUTPUT_H

#include "encode/encode.h"
#include "sink/pipeline.h"

struct kt_output {
	int fd;
	enum kt_format fmt;
	const char *what; /* for messages: "stdout", a path */
	char *buf;
	size_t len;
	size_t cap;
	int err; /* first write error, -errno */
	unsigned long long records;
};

int kt_output_init(struct kt_output *o, int fd, enum kt_format fmt, const char *what);
/* Encode and buffer; flushes when the buffer fills.  -errno on write error. */
int kt_output_record(struct kt_output *o, const struct kt_record *r);
int kt_output_flush(struct kt_output *o);
void kt_output_fini(struct kt_output *o);

/* A kt_output as a pipeline sink. */
struct kt_output_sink {
	struct kt_sink sink;
	struct kt_output out;
};
int kt_output_sink_init(struct kt_output_sink *s, int fd, enum kt_format fmt, const char *what);

/* A pipeline whose one sink is stdout in fmt (stream, snapshot); 0 or
 * -ENOMEM. */
int kt_stdout_pipeline(struct kt_pipeline *p, struct kt_output_sink *out, enum kt_format fmt);

#endif
