/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The serve daemon's clients: a pipeline sink that fans every record out to
 * per-client bounded queues, in each client's format, after that client's
 * snapshot, and keeps the symbols' history that query clients ask about
 * (docs/serve.md).  All of it runs in the caller's epoll loop; no
 * call blocks on a client.
 */
#ifndef KT_SERVE_H
#define KT_SERVE_H

#include <linux/types.h>
#include <stdint.h>
#include <sys/types.h>
#include "history/history.h"
#include "sink/pipeline.h"

struct kt_serve_opts {
	const char *path;
	mode_t mode; /* 0: leave 0600 */
	gid_t gid; /* (gid_t)-1: leave ours */
	size_t queue; /* per-client queue limit, bytes */
	int max_clients;
	size_t history_max; /* dead symbols kept for queries */
	__u64 history_age; /* ns a dead symbol is kept for queries */
	bool no_code; /* --no-code: no code archive */
	size_t code_max; /* --code-size: bytes of code kept at most (live code aside) */
};

/* Why clients went away (metrics' reason label). */
enum kt_disc {
	KT_DISC_PEER = 0, /* closed or reset by the client */
	KT_DISC_DONE, /* mode=snapshot: sent, then closed */
	KT_DISC_HELLO, /* bad handshake */
	KT_DISC_TOO_BIG, /* the snapshot alone exceeds --client-queue */
	KT_DISC_ERROR, /* other socket errors */
	KT_DISC_SHUTDOWN, /* daemon exit */
	KT_DISC_MAX,
};
extern const char *const kt_disc_names[KT_DISC_MAX];

#define KT_SERVE_UIDS 16
#define KT_UID_OTHER (~0U)

struct kt_serve_stats {
	unsigned long long accepted, rejected; /* rejected: over --max-clients */
	unsigned long long connected;
	unsigned long long overflows; /* queue overflow episodes */
	unsigned long long lost_records; /* records not delivered to some client */
	unsigned long long snapshots; /* snapshots sent (connects and resyncs) */
	unsigned long long disconnects[KT_DISC_MAX];
	/* Connections accepted by the peer's uid (SO_PEERCRED); uids past the
	 * table's size are counted under KT_UID_OTHER. */
	struct kt_uid_count {
		unsigned int uid;
		unsigned long long n;
	} by_uid[KT_SERVE_UIDS];
	unsigned int nuids;
	/* The history queries are answered from (history.h). */
	size_t hist_live, hist_dead, hist_bytes;
	unsigned long long hist_evicted;
	unsigned long long queries, query_errors;
	/* The programs' code kept for mode=code (archive/archive.h). */
	size_t code_progs, code_texts, code_bytes;
	unsigned long long code_gone, code_failed, code_evicted, code_answers;
};

struct kt_server;

struct kt_loop;

/* Create the socket (0600 unless widened, never stealing a live one), watch
 * it and its clients in l (user/util/loop.h), and add the fan-out sink to
 * p.  -errno and why on failure. */
int kt_server_open(struct kt_server **out, const struct kt_serve_opts *o, struct kt_pipeline *p,
		   struct kt_loop *l, char *why, size_t why_size);
/* Where the backend stages the BPF side's copies of programs' code for the
 * daemon's archive; NULL with --no-code. */
struct kt_code_stage *kt_server_code_stage(struct kt_server *s);
/* After each round of the loop: handshake deadlines, freeing closed clients. */
void kt_server_tick(struct kt_server *s);
/* When kt_server_tick() has work though nothing else happens
 * (CLOCK_MONOTONIC ns), 0 if none: a handshake's deadline, the oldest dead
 * symbol's --history-age. */
__u64 kt_server_wake_ns(const struct kt_server *s);
/* SIGTERM: no new clients; the socket file goes. */
void kt_server_stop_accepting(struct kt_server *s);
/* Send what is queued for up to timeout_ms, then close every client. */
void kt_server_shutdown(struct kt_server *s, int timeout_ms);
void kt_server_free(struct kt_server *s);
void kt_server_get_stats(const struct kt_server *s, struct kt_serve_stats *st);
/* The history queries are answered from. */
const struct kt_history *kt_server_history(const struct kt_server *s);

#endif
