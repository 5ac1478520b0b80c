/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The daemon's own state, shared by the files of serve/ along its seams:
 * serve.c (open, tick, free), serve_shutdown.c (stop accepting, drain,
 * close), serve_fanout.c (the sink that hands each record to every client,
 * encoded once per format), serve_accept.c (accept and peers),
 * serve_client.c (a client's handshake and I/O), serve_conn.c (what they
 * all do to a client: close, free, queue the table or a LOST record).
 * Each calls only the files after it in this list.  Not for other layers:
 * they use serve/serve.h.
 */
#ifndef KT_SERVER_H
#define KT_SERVER_H

#include "encode/encode.h"
#include "history/history.h"
#include "serve/query.h"
#include "archive/archive.h"
#include "serve/serve.h"
#include "serve/serve_proto.h"
#include "serve/serve_queue.h"
#include "sink/pipeline.h"
#include "util/loop.h"

enum cstate {
	C_HELLO, /* waiting for the handshake */
	C_LIVE, /* snapshot queued, live records follow */
	C_DRAINING, /* mode=snapshot, kallsyms: close once the queue is sent */
	C_QUERY, /* mode=query: requests in, answers out */
	C_DEAD, /* closed, freed at the next tick */
};

struct client {
	struct kt_watch w; /* its fd, in the loop */
	struct kt_server *s;
	int fd;
	unsigned int id;
	enum cstate state;
	struct kt_hello hello;
	bool rd_closed, want_out;
	__u64 deadline; /* C_HELLO: defaults from then on */
	char in[KT_HELLO_MAX + 1]; /* up to KT_HELLO_MAX - 1 bytes, '\n', NUL */
	size_t inlen;
	struct kt_squeue q;
	/* mode=query: requests not answered yet; paused while the queue has
	 * no room for an answer (a client that does not read its answers). */
	char *qin;
	size_t qlen;
	bool qpaused;
	struct kt_query qs;
};

#define QIN_SIZE (64 * 1024)

struct kt_server {
	struct kt_sink sink; /* first: the pipeline calls us through it */
	struct kt_serve_opts o;
	struct kt_pipeline *p;
	struct kt_loop *l;
	struct kt_watch lw; /* the listening socket */
	int lfd;
	ino_t ino;
	__s64 clock_off;
	__s64 wall_off; /* CLOCK_REALTIME minus perf's clock */
	struct client **c;
	int nc;
	unsigned int next_id;
	struct kt_serve_stats st;
	struct kt_history hist;
	bool hist_warned;
	struct kt_archive code; /* the programs' code, as the history bounds it */
	struct kt_code_stage stage; /* the BPF side's copies at unload, for code */
	/* Code without a bpf_prog_info whose bytes are read a little after it
	 * registers (serve_fanout.c says why), oldest first. */
	struct text_due {
		__u64 addr, time, due; /* due: CLOCK_MONOTONIC ns */
		__u32 len;
	} * tdue;
	size_t ntdue, cap_tdue;
	/* One record, encoded once per format however many clients want it. */
	char enc[KT_FMT_MAX][KT_ENCODE_MAX];
	ssize_t enclen[KT_FMT_MAX];
};

/* A client's readiness as watched in the loop: KT_IN unless reading is
 * over or paused, KT_OUT while its queue has something to send. */
void set_events(struct kt_server *s, struct client *c);
/* Close c for why (counted); freed at the next tick. */
void drop(struct kt_server *s, struct client *c, enum kt_disc why, const char *detail);
/* Free the clients closed since the last time. */
void reap(struct kt_server *s);
__u64 now_perf(struct kt_server *s);
__s64 wall_offset(struct kt_server *s);
/* The whole table into c's queue (JSON: and its snapshot_end line). */
int queue_snapshot(struct kt_server *s, struct client *c, const char *reason);
/* The LOST record of origin serve for c (last: behind what is queued). */
int queue_lost(struct kt_server *s, struct client *c, unsigned long long lost, bool last);
/* Send what the socket takes; catch up or finish when the queue runs dry. */
void service_out(struct kt_server *s, struct client *c);
/* A client whose handshake did not come in time (KT_HELLO_WAIT_MS). */
void hello_deadline(struct kt_server *s, struct client *c);
/* mode=code: the record file of the code that held c's addr= at its at=,
 * queued for c. */
void queue_code(struct kt_server *s, struct client *c);
/* Read the bytes of the code whose time has come (all: every one). */
void read_texts_due(struct kt_server *s, bool all);
/* The fan-out sink's callbacks into s->sink. */
void fanout_init(struct kt_server *s);
/* The loop's callbacks: a client's fd, the listening socket. */
void on_client(struct kt_watch *w, unsigned int what);
void on_listen(struct kt_watch *w, unsigned int what);

#endif
