// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* serve: per-client queue and its overflow, the handshake, the socket file,
 * and a daemon in-process with one client that keeps up and one that stops. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "sink/pipeline.h"
#include "serve/serve.h"
#include "serve/serve_proto.h"
#include "serve/serve_queue.h"
#include "serve/serve_socket.h"
#include "util/loop.h"
#include "unit.h"

static void test_queue(void)
{
	struct kt_squeue q;
	unsigned long long lost;
	char rec[1000], big[4096], out[8192];
	int sv[2], i, pushed = 0;
	ssize_t n;

	memset(rec, 'x', sizeof(rec));
	memset(big, 'y', sizeof(big));
	if (unit_start("squeue_overflow_counts_then_resyncs_once_drained")) {
		kt_squeue_init(&q, 4096);
		for (i = 0; i < 4; i++)
			pushed += !kt_squeue_push(&q, rec, sizeof(rec));
		ASSERT_EQ(pushed, 4, "4 x 1000 bytes fit in 4096");
		ASSERT_EQ(kt_squeue_push(&q, rec, sizeof(rec)), -ENOBUFS, "the 5th overflows");
		ASSERT_TRUE(q.overflow, "in overflow");
		ASSERT_EQ(kt_squeue_push(&q, rec, 10), -ENOBUFS,
			  "small records are lost too while in overflow");
		ASSERT_EQ(q.lost, 2, "lost count");
		ASSERT_EQ(q.overflows, 1, "one episode");
		ASSERT_TRUE(!kt_squeue_resync_due(&q, &lost),
			    "no resync before the client read its queue");
		socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
		n = kt_squeue_send(&q, sv[0]);
		ASSERT_EQ(n, 4000, "sent all queued");
		ASSERT_TRUE(read(sv[1], out, sizeof(out)) == 4000, "peer got them");
		ASSERT_TRUE(kt_squeue_resync_due(&q, &lost), "resync once drained");
		ASSERT_EQ(lost, 2, "reported count");
		ASSERT_TRUE(!kt_squeue_resync_due(&q, &lost), "only once");
		ASSERT_EQ(kt_squeue_push(&q, rec, sizeof(rec)), 0, "queues again");
		ASSERT_EQ(q.lost_total, 2, "lifetime count kept");
		close(sv[0]);
		close(sv[1]);
		kt_squeue_fini(&q);
		unit_end();
	}

	if (unit_start("squeue_reserved_push_never_enters_overflow")) {
		/* 1000 of 4096 bytes in use. */
		kt_squeue_init(&q, 4096);
		kt_squeue_push(&q, rec, sizeof(rec));
		ASSERT_EQ(kt_squeue_push_reserved(&q, big, 3500), -ENOBUFS, "too big for the rest");
		ASSERT_TRUE(!q.overflow, "not in overflow");
		ASSERT_EQ(kt_squeue_push_reserved(&q, big, 3000), 0, "what fits goes");
		kt_squeue_fini(&q);
		unit_end();
	}

	if (unit_start("squeue_last_lost_record_behind_a_full_queue")) {
		kt_squeue_init(&q, 4096);
		for (i = 0; i < 5; i++)
			kt_squeue_push(&q, rec, sizeof(rec));
		ASSERT_TRUE(kt_squeue_end_overflow(&q, &lost), "in overflow, not drained");
		ASSERT_EQ(lost, 1, "the 5th");
		ASSERT_TRUE(!q.overflow, "out of overflow");
		ASSERT_TRUE(!kt_squeue_end_overflow(&q, &lost), "only once");
		ASSERT_EQ(kt_squeue_push_reserved(&q, rec, 100), -ENOBUFS,
			  "no room within the limit");
		ASSERT_EQ(kt_squeue_push_last(&q, rec, 100), 0, "the last record goes past it");
		ASSERT_EQ(q.len, 4100, "behind what was queued");
		kt_squeue_fini(&q);
		unit_end();
	}

	if (unit_start("squeue_send_full_socket_is_not_an_error")) {
		kt_squeue_init(&q, 4096);
		kt_squeue_push(&q, rec, sizeof(rec));
		socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
		fcntl(sv[0], F_SETFL, O_NONBLOCK);
		for (i = 0; i < 10000 && kt_squeue_send(&q, sv[0]) > 0; i++)
			kt_squeue_push_reserved(&q, rec, sizeof(rec));
		ASSERT_EQ(kt_squeue_send(&q, sv[0]), 0, "full socket: 0, not -EAGAIN");
		ASSERT_TRUE(!kt_squeue_empty(&q), "bytes wait");
		close(sv[1]);
		ASSERT_EQ(kt_squeue_send(&q, sv[0]), -EPIPE, "closed peer: -EPIPE");
		close(sv[0]);
		kt_squeue_fini(&q);
		unit_end();
	}
}

static void test_hello(void)
{
	struct kt_hello h, h2;
	char why[128], line[64];

	if (unit_start("hello_defaults_and_keys")) {
		ASSERT_EQ(kt_hello_parse("", &h, why, sizeof(why)), 0, "empty line");
		ASSERT_EQ(h.fmt, KT_FMT_JSON, "json by default");
		ASSERT_TRUE(h.mode == KT_MODE_STREAM, "stream by default");
		ASSERT_EQ(kt_hello_parse("format=raw", &h, why, sizeof(why)), 0, "format=raw");
		ASSERT_EQ(h.fmt, KT_FMT_RAW, "raw");
		ASSERT_EQ(kt_hello_parse("mode=snapshot  format=text\r", &h, why, sizeof(why)), 0,
			  "two keys, CRLF");
		ASSERT_EQ(h.fmt, KT_FMT_TEXT, "text");
		ASSERT_TRUE(h.mode == KT_MODE_SNAPSHOT, "snapshot");
		kt_hello_format(&h, line, sizeof(line));
		ASSERT_STREQ(line, "format=text mode=snapshot\n", "what tail sends");
		line[strlen(line) - 1] = 0;
		ASSERT_EQ(kt_hello_parse(line, &h2, why, sizeof(why)), 0, "round trip");
		ASSERT_EQ(h2.fmt, h.fmt, "same format");
		unit_end();
	}

	if (unit_start("hello_rejects_typos")) {
		ASSERT_EQ(kt_hello_parse("fromat=raw", &h, why, sizeof(why)), -EINVAL,
			  "unknown key");
		ASSERT_STREQ(why, "unknown key 'fromat'", "why");
		ASSERT_EQ(kt_hello_parse("format=xml", &h, why, sizeof(why)), -EINVAL,
			  "bad format");
		ASSERT_EQ(kt_hello_parse("raw", &h, why, sizeof(why)), -EINVAL, "not key=value");
		ASSERT_EQ(kt_hello_parse("mode=forever", &h, why, sizeof(why)), -EINVAL,
			  "bad mode");
		ASSERT_EQ(kt_hello_parse("format=raw\rmode=snapshot", &h, why, sizeof(why)),
			  -EINVAL, "a \\r inside the line is not dropped with what follows");
		unit_end();
	}
}

static void test_socket(void)
{
	char dir[] = "/tmp/kt-unit-XXXXXX", path[64];
	struct stat st;
	ino_t ino, ino2;
	int fd = -1, fd2;

	mkdtemp(dir);
	snprintf(path, sizeof(path), "%s/sock", dir);

	if (unit_start("socket_is_0600_and_live_one_is_not_stolen")) {
		fd = kt_listen_unix(path, 0, (gid_t)-1, &ino);
		ASSERT_TRUE(fd >= 0, "listens");
		ASSERT_TRUE(!stat(path, &st) && (st.st_mode & 0777) == 0600, "mode 0600");
		ASSERT_EQ(kt_listen_unix(path, 0, (gid_t)-1, &ino2), -EADDRINUSE,
			  "live: not stolen");
		ASSERT_TRUE(!stat(path, &st) && st.st_ino == ino, "file untouched");
		close(fd); /* a dead daemon: the file stays, nobody listens */
		unit_end();
	}

	if (unit_start("socket_stale_is_replaced_and_mode_widens")) {
		/* A dead daemon's socket: the file stays, nobody listens. */
		fd = kt_listen_unix(path, 0, (gid_t)-1, &ino);
		if (fd >= 0)
			close(fd);
		fd = kt_listen_unix(path, 0660, (gid_t)-1, &ino2);
		ASSERT_TRUE(fd >= 0, "replaced the stale file");
		ASSERT_TRUE(!stat(path, &st) && (st.st_mode & 0777) == 0660, "--socket-mode 0660");
		/* tmpfs may give the new file the old inode number: use one it is not. */
		kt_unlink_ours(path, ino2 + 1);
		ASSERT_TRUE(!access(path, F_OK), "not removed under someone else's inode");
		kt_unlink_ours(path, ino2);
		ASSERT_TRUE(access(path, F_OK), "removed ours");
		close(fd);
		unit_end();
	}

	if (unit_start("socket_never_replaces_other_files")) {
		fd2 = open(path, O_CREAT | O_WRONLY, 0644);
		close(fd2);
		ASSERT_EQ(kt_listen_unix(path, 0, (gid_t)-1, &ino), -EEXIST,
			  "a regular file stays");
		unlink(path);
		rmdir(dir);
		unit_end();
	}
}

/* ---- the daemon in-process, without a backend ---- */

/* What the sockets have, without waiting: a few rounds, as a client
 * accepted in one has its handshake read in the next. */
static void events(struct kt_loop *l)
{
	int i;

	for (i = 0; i < 4; i++)
		kt_loop_once(l, 0);
}

static void pump(struct kt_loop *l, struct kt_server *s, struct kt_pipeline *p)
{
	events(l);
	kt_pipeline_tick(p);
	kt_server_tick(s);
}

static void emit_prog(struct kt_pipeline *p, __u32 id, bool unload)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_KSYMBOL;
	r.addr = 0xffffffffc0000000ULL + id * 0x1000;
	r.len = 64;
	r.ksym_type = KT_KSYM_TYPE_BPF;
	r.flags = unload ? KT_KSYM_FLAG_UNREGISTER : 0;
	r.pid = r.tid = 4242;
	r.source = KT_SRC_BPF_PROG;
	snprintf(r.name, sizeof(r.name), "bpf_prog_%016x_p%u", id, id);
	kt_pipeline_emit(p, &r);
	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_BPF_EVENT;
	r.bpf_type = unload ? KT_BPF_EVENT_PROG_UNLOAD : KT_BPF_EVENT_PROG_LOAD;
	r.prog_id = id;
	r.pid = r.tid = 4242;
	r.source = KT_SRC_BPF_PROG;
	kt_pipeline_emit(p, &r);
}

static int count(const char *buf, const char *what)
{
	int n = 0;

	for (; (buf = strstr(buf, what)); buf++)
		n++;
	return n;
}

static ssize_t read_all(int fd, char *buf, size_t size)
{
	ssize_t n, len = 0;

	while ((n = recv(fd, buf + len, size - 1 - len, MSG_DONTWAIT)) > 0)
		len += n;
	buf[len] = 0;
	return len;
}

static void test_daemon(void)
{
	char dir[] = "/tmp/kt-unit-XXXXXX", path[64];
	struct kt_serve_opts o = { .gid = (gid_t)-1, .queue = 64 * 1024, .max_clients = 4 };
	static char buf[4 << 20];
	struct kt_serve_stats st;
	struct kt_pipeline p;
	struct kt_server *s;
	struct kt_loop *l;
	int fast = -1, slow = -1, late, i, rcv = 4096;
	char why[256];

	mkdtemp(dir);
	snprintf(path, sizeof(path), "%s/sock", dir);
	o.path = path;
	kt_pipeline_init(&p);
	if (kt_loop_new(&l))
		return;
	/* The fixture of every case below: a daemon with program 1 in its table
	 * before anyone connects (the slow-client case leaves it so too). */
	if (kt_server_open(&s, &o, &p, l, why, sizeof(why))) {
		unit_start("serve_fixture");
		unit_failf(__FILE__, __LINE__, "kt_server_open failed: %s", why);
		unit_end();
		return;
	}
	emit_prog(&p, 1, false);

	if (unit_start("serve_slow_client_overflows_alone_then_resyncs")) {
		fast = kt_connect_unix(path);
		slow = kt_connect_unix(path);
		setsockopt(slow, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
		send(fast, "format=json\n", 12, 0);
		send(slow, "format=json\n", 12, 0);
		pump(l, s, &p);
		read_all(fast, buf, sizeof(buf));
		ASSERT_TRUE(strstr(buf, "\"snapshot\":true") &&
				    strstr(buf, "\"kind\":\"snapshot_end\",") &&
				    strstr(buf, "\"records\":2,\"reason\":\"connect\""),
			    "fast: snapshot of prog 1 (ksymbol + bpf_event), then its end");
		/* The slow client reads nothing while 2000 programs come and go. */
		for (i = 2; i < 2002; i++) {
			emit_prog(&p, i, false);
			emit_prog(&p, i, true);
			pump(l, s, &p);
			if (i % 50 == 0)
				read_all(fast, buf, sizeof(buf));
		}
		read_all(fast, buf, sizeof(buf));
		kt_server_get_stats(s, &st);
		ASSERT_EQ(st.overflows, 1, "one overflow, the slow client's");
		ASSERT_TRUE(st.lost_records > 0, "records lost for it");
		ASSERT_EQ(count(buf, "\"kind\":\"lost\""), 0, "fast client: no lost marker");
		ASSERT_STRSTR(buf, "\"id\":2001,", "fast client: got the last record");
		/* Now it reads: what was queued, then the count, then the table. */
		for (i = 0; i < 200; i++) {
			ssize_t n = read_all(slow, buf, sizeof(buf));

			pump(l, s, &p);
			if (n && strstr(buf, "\"reason\":\"resync\""))
				break;
		}
		ASSERT_TRUE(strstr(buf, "\"kind\":\"lost\"") && strstr(buf, "\"origin\":\"serve\""),
			    "slow client: LOST record of origin serve");
		{
			char want[64];

			snprintf(want, sizeof(want), "\"lost\":%llu}", st.lost_records);
			ASSERT_STRSTR(buf, want, "with the count the daemon counted");
		}
		ASSERT_STRSTR(buf, "\"records\":2,\"reason\":\"resync\"",
			      "then the table (prog 1 only) anew");
		unit_end();
	}

	if (unit_start("serve_late_client_snapshot_only_mode")) {
		late = kt_connect_unix(path);
		send(late, "format=text mode=snapshot\n", 26, 0);
		for (i = 0; i < 10; i++)
			pump(l, s, &p);
		read_all(late, buf, sizeof(buf));
		ASSERT_EQ(count(buf, "PERF_RECORD_KSYMBOL addr ffffffffc0001000"), 1,
			  "prog 1's ksymbol");
		ASSERT_EQ(count(buf, "PERF_RECORD_BPF_EVENT type 1, flags 0, id 1\n"), 1,
			  "its load");
		ASSERT_EQ(count(buf, "\n"), 2, "nothing else (text has no markers)");
		ASSERT_EQ(recv(late, buf, 1, MSG_DONTWAIT), 0, "then EOF");
		close(late);
		unit_end();
	}

	/* The daemon busy past the handshake's deadline (a resync reading
	 * /proc/kallsyms) while the handshake waits in the socket: it counts. */
	if (unit_start("serve_handshake_read_when_deadline_passed_busy")) {
		late = kt_connect_unix(path);
		events(l);
		send(late, "format=text mode=snapshot\n", 26, 0);
		usleep((KT_HELLO_WAIT_MS + 100) * 1000);
		kt_server_tick(s);
		pump(l, s, &p);
		read_all(late, buf, sizeof(buf));
		ASSERT_EQ(count(buf, "PERF_RECORD_BPF_EVENT type 1, flags 0, id 1\n"), 1,
			  "text, as asked, not the defaults (JSON)");
		ASSERT_EQ(recv(late, buf, 1, MSG_DONTWAIT), 0, "then EOF: snapshot mode");
		close(late);
		unit_end();
	}

	if (unit_start("serve_bad_handshake_gets_one_line_and_eof")) {
		late = kt_connect_unix(path);
		send(late, "format=xml\n", 11, 0);
		pump(l, s, &p);
		read_all(late, buf, sizeof(buf));
		ASSERT_STREQ(buf, "ksymtap: error: format 'xml' is not json, raw or text\n",
			     "the line");
		close(late);
		kt_server_get_stats(s, &st);
		ASSERT_TRUE(st.disconnects[KT_DISC_HELLO] >= 1, "counted");
		unit_end();
	}

	if (unit_start("serve_shutdown_removes_socket")) {
		kt_server_shutdown(s, 100);
		ASSERT_TRUE(access(path, F_OK), "socket file gone");
		if (fast >= 0)
			ASSERT_EQ(recv(fast, buf, sizeof(buf), 0) >= 0, 1,
				  "fast client sees EOF or its last data");
		kt_server_get_stats(s, &st);
		ASSERT_EQ(st.connected, 0, "no client left");
		unit_end();
	}
	kt_server_shutdown(s, 0); /* again, if that case did not run: a no-op */
	kt_server_free(s);
	if (fast >= 0)
		close(fast);
	if (slow >= 0)
		close(slow);
	kt_pipeline_fini(&p);
	kt_loop_free(l);
	rmdir(dir);
}

int main(void)
{
	test_queue();
	test_hello();
	test_socket();
	test_daemon();
	return unit_exit();
}
