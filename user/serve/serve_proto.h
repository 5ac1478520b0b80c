/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The serve handshake (docs/serve.md): a client may send one line of
 * space-separated key=value words, e.g. "format=raw mode=snapshot\n" or
 * "format=text mode=query\n".
 * Without one, it gets the defaults once it shuts down its sending side or
 * after KT_HELLO_WAIT_MS.
 */
#ifndef KT_SERVE_PROTO_H
#define KT_SERVE_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include "encode/encode.h"
#include "history/history.h"

#define KT_HELLO_MAX 256
#define KT_HELLO_WAIT_MS 500

enum kt_hello_mode {
	KT_MODE_STREAM = 0, /* the table, then live records (the default) */
	KT_MODE_SNAPSHOT, /* the table, then EOF */
	KT_MODE_QUERY, /* requests in, answers out (query.h) */
	KT_MODE_KALLSYMS, /* the symbols alive at at=, as /proc/kallsyms, then EOF */
	KT_MODE_CODE, /* the code that held addr= at at=, as a record file, then EOF */
};

struct kt_hello {
	enum kt_format fmt; /* format=json (default) | raw | text */
	enum kt_hello_mode mode;
	__u64 at; /* at=TIME: KT_HIST_NOW unless given */
	__u64 addr; /* addr=HEX: mode=code's address */
	bool has_addr;
};

void kt_hello_default(struct kt_hello *h);
/* One line, without its newline: 0, or -EINVAL with why[] saying what. */
int kt_hello_parse(const char *line, struct kt_hello *h, char *why, size_t why_size);
const char *kt_hello_mode_name(enum kt_hello_mode m);
/* The line a client sends for h (with its newline); returns its length. */
int kt_hello_format(const struct kt_hello *h, char *buf, size_t size);

/* A client's connection to the daemon at path with h's line sent: the fd, or
 * -errno and why. */
int kt_hello_connect(const char *path, const struct kt_hello *h, char *why, size_t why_size);

#endif
