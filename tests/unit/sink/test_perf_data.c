// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data writer: file and pipe layouts against perf's structs
 * (tools/perf/util/header.h, ../shared/PERF-DATA-FACTS.md), time order through
 * the reorder queue, and what is left after an output error: whole records
 * only, with a header that covers exactly them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "record/native_decode.h"
#include "sink/perf_data.h"
#include "unit.h"

#define MAGIC 0x32454c4946524550ULL

static __u64 fake_now;

static __u64 fake_clock(void)
{
	return fake_now;
}

static struct kt_record ksym(const char *name, __u64 time, __u32 tid)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_KSYMBOL;
	r.time = time;
	r.pid = tid;
	r.tid = tid;
	r.cpu = 1;
	strcpy(r.comm, "bpftool");
	r.addr = 0xffffffffc0001000ULL + time;
	r.len = 291;
	r.ksym_type = KT_KSYM_TYPE_BPF;
	snprintf(r.name, sizeof(r.name), "%s", name);
	return r;
}

static struct kt_record bpfev(__u64 time, __u32 id)
{
	struct kt_record r = ksym("", time, 161);

	r.type = KT_RECORD_BPF_EVENT;
	r.bpf_type = KT_BPF_EVENT_PROG_LOAD;
	r.prog_id = id;
	return r;
}

/* A temporary file, unlinked at once; returns its fd. */
static int tmpfile_fd(void)
{
	char path[] = "/tmp/kt_unit_pd.XXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

static size_t slurp(int fd, unsigned char *buf, size_t cap)
{
	ssize_t n = pread(fd, buf, cap, 0);

	return n > 0 ? (size_t)n : 0;
}

static __u64 u64at(const unsigned char *p, size_t off)
{
	__u64 v;

	memcpy(&v, p + off, 8);
	return v;
}

static int open_test(struct kt_perf_data *pd, int fd, bool pipe)
{
	int err = kt_perf_data_open(pd, fd, pipe, "test");

	pd->now = fake_clock;
	return err;
}

static void check_attr(const unsigned char *p)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	memcpy(&a, p, KT_PD_ATTR_SIZE);
	ASSERT_EQ(a.type, PERF_TYPE_SOFTWARE, "attr.type");
	ASSERT_EQ(a.size, 128, "attr.size (perf 6.1 takes at most 128)");
	ASSERT_EQ(a.config, PERF_COUNT_SW_DUMMY, "attr.config");
	ASSERT_EQ(a.sample_type, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		  "attr.sample_type");
	ASSERT_EQ(a.sample_id_all, 1, "attr.sample_id_all");
	ASSERT_EQ(a.ksymbol, 1, "attr.ksymbol");
	ASSERT_EQ(a.bpf_event, 1, "attr.bpf_event");
}

/* Walk records in [off, end): count them, check each size, return the types. */
static int walk(const unsigned char *p, size_t off, size_t end, __u32 *types, int max)
{
	struct perf_event_header h;
	int n = 0;

	while (off < end) {
		memcpy(&h, p + off, sizeof(h));
		if (!ASSERT_TRUE(h.size >= 8 && h.size % 8 == 0 && off + h.size <= end,
				 "record size sane and within data"))
			return -1;
		if (n < max)
			types[n] = h.type;
		n++;
		off += h.size;
	}
	return n;
}

/* The feature table at end: {offset, size} of the hostname, the kernel
 * release and the machine, each a perf string (u32 len, NUL-padded to it),
 * one after the other up to the file's end, as uname(2) gives them. */
static void check_features(const unsigned char *p, size_t n, size_t end)
{
	struct utsname u;
	__u32 len;

	uname(&u);
	if (!ASSERT_TRUE(end + 48 <= n, "room for the feature table"))
		return;
	ASSERT_EQ(u64at(p, end), end + 48, "hostname right after the table");
	ASSERT_EQ(u64at(p, end + 16), u64at(p, end) + u64at(p, end + 8),
		  "osrelease right after the hostname");
	ASSERT_EQ(u64at(p, end + 32), u64at(p, end + 16) + u64at(p, end + 24),
		  "arch right after the osrelease");
	ASSERT_EQ(u64at(p, end + 32) + u64at(p, end + 40), n, "the features end the file");
	memcpy(&len, p + end + 48, 4);
	ASSERT_EQ(len % 64, 0, "perf string length: a multiple of 64");
	ASSERT_STREQ((const char *)p + end + 52, u.nodename, "hostname");
	ASSERT_STREQ((const char *)p + u64at(p, end + 16) + 4, u.release, "osrelease");
	ASSERT_STREQ((const char *)p + u64at(p, end + 32) + 4, u.machine, "arch");
}

static void test_file_layout(void)
{
	static unsigned char buf[1 << 16];
	struct kt_record k = ksym("bpf_prog_144b218421930bf7_wl_sock_main", 1000, 161);
	struct kt_record b = bpfev(1001, 5), d;
	struct kt_perf_data pd;
	__u32 types[8];
	size_t n;
	int fd, nrec;

	if (unit_start("file_layout_header_ids_attr_data")) {
		fd = tmpfile_fd();
		if (!ASSERT_TRUE(fd >= 0, "tmpfile") ||
		    !ASSERT_EQ(open_test(&pd, fd, false), 0, "open"))
			goto out;
		ASSERT_EQ(kt_perf_data_record(&pd, &k), 0, "record ksymbol");
		ASSERT_EQ(kt_perf_data_record(&pd, &b), 0, "record bpf_event");
		ASSERT_EQ(kt_perf_data_close(&pd), 0, "close");
		n = slurp(fd, buf, sizeof(buf));

		ASSERT_EQ(u64at(buf, 0), MAGIC, "magic PERFILE2");
		ASSERT_EQ(u64at(buf, 8), 104, "header.size");
		ASSERT_EQ(u64at(buf, 16), 128 + 16, "header.attr_size = attr.size + ids section");
		ASSERT_EQ(u64at(buf, 24), 112, "attrs.offset (after the ids)");
		ASSERT_EQ(u64at(buf, 32), 144, "attrs.size: one attr");
		ASSERT_EQ(u64at(buf, 40), 256, "data.offset");
		ASSERT_EQ(u64at(buf, 56) | u64at(buf, 64), 0, "event_types empty");
		ASSERT_EQ(u64at(buf, 72), 1ULL << 3 | 1ULL << 4 | 1ULL << 6,
			  "feature bits: HEADER_HOSTNAME, HEADER_OSRELEASE, HEADER_ARCH");
		ASSERT_EQ(u64at(buf, 80) | u64at(buf, 88) | u64at(buf, 96), 0, "no other feature");
		/* The features follow the data: their table, then the strings. */
		check_features(buf, n, 256 + u64at(buf, 48));
		n = 256 + u64at(buf, 48);
		ASSERT_EQ(u64at(buf, 104), KT_PD_ID, "ids[0]");
		check_attr(buf + 112);
		ASSERT_EQ(u64at(buf, 112 + 128), 104, "attr's ids.offset");
		ASSERT_EQ(u64at(buf, 112 + 136), 8, "attr's ids.size: one id");

		nrec = walk(buf, 256, n, types, 8);
		ASSERT_EQ(nrec, 3, "records: COMM, KSYMBOL, BPF_EVENT");
		ASSERT_EQ(types[0], PERF_RECORD_COMM, "COMM names the task first");
		ASSERT_EQ(types[1], PERF_RECORD_KSYMBOL, "then the KSYMBOL");
		ASSERT_EQ(types[2], PERF_RECORD_BPF_EVENT, "then the BPF_EVENT");
		/* COMM {pid, tid, "bpftool"} with the record's own trailer. */
		ASSERT_STREQ((char *)buf + 256 + 16, "bpftool", "COMM comm");
		ASSERT_EQ(pd.records, 2, "symbol records counted");
		/* The KSYMBOL decodes back to what went in (native decoder, same layout). */
		{
			size_t off = 256 + buf[256 + 6];
			size_t sz = buf[off + 6] | buf[off + 7] << 8;

			ASSERT_EQ(kt_native_decode(&d, buf + off, sz), 1, "decode");
			ASSERT_STREQ(d.name, k.name, "name");
			ASSERT_EQ(d.addr, k.addr, "addr");
			ASSERT_EQ(d.time, 1000, "time");
			ASSERT_EQ(d.tid, 161, "tid");
			ASSERT_EQ(d.cpu, 1, "cpu");
		}
out:
		if (fd >= 0)
			close(fd);
		unit_end();
	}
}

static void test_pipe_layout(void)
{
	static unsigned char buf[1 << 16];
	struct kt_record k = ksym("bpf_prog_1_x", 1000, 161);
	struct perf_event_header h;
	struct kt_perf_data pd;
	__u32 types[8];
	size_t n;
	int fd, nrec;

	if (unit_start("pipe_layout_header_attr_record")) {
		fd = tmpfile_fd();
		if (!ASSERT_TRUE(fd >= 0, "tmpfile") ||
		    !ASSERT_EQ(open_test(&pd, fd, true), 0, "open"))
			goto out;
		ASSERT_EQ(kt_perf_data_record(&pd, &k), 0, "record");
		ASSERT_EQ(kt_perf_data_close(&pd), 0, "close");
		n = slurp(fd, buf, sizeof(buf));

		ASSERT_EQ(u64at(buf, 0), MAGIC, "magic");
		ASSERT_EQ(u64at(buf, 8), 16, "pipe header size");
		memcpy(&h, buf + 16, sizeof(h));
		ASSERT_EQ(h.type, KT_PERF_RECORD_HEADER_ATTR, "first record: HEADER_ATTR (64)");
		ASSERT_EQ(h.size, 8 + 128 + 8, "HEADER_ATTR = header + attr + one id");
		ASSERT_EQ(h.misc, 0, "misc");
		check_attr(buf + 24);
		ASSERT_EQ(u64at(buf, 24 + 128), KT_PD_ID, "its id");
		nrec = walk(buf, 16, n, types, 8);
		ASSERT_EQ(nrec, 5, "HEADER_ATTR, COMM, KSYMBOL, 2 x FINISHED_ROUND");
		ASSERT_EQ(types[1], PERF_RECORD_COMM, "COMM");
		ASSERT_EQ(types[2], PERF_RECORD_KSYMBOL, "KSYMBOL");
		ASSERT_EQ(types[3], KT_PERF_RECORD_FINISHED_ROUND, "round marker");
		ASSERT_EQ(types[4], KT_PERF_RECORD_FINISHED_ROUND,
			  "second round marker flushes perf");
out:
		if (fd >= 0)
			close(fd);
		unit_end();
	}
}

/* Times of the KSYMBOL/BPF_EVENT records in a file-mode buffer, in order. */
static int record_times(const unsigned char *buf, size_t n, __u64 *times, int max)
{
	size_t off = u64at(buf, 40), end = off + u64at(buf, 48);
	struct perf_event_header h;
	int k = 0;

	(void)n;
	while (off < end && k < max) {
		memcpy(&h, buf + off, sizeof(h));
		if (h.size < 32)
			break;
		if (h.type == PERF_RECORD_KSYMBOL || h.type == PERF_RECORD_BPF_EVENT)
			times[k++] = u64at(buf, off + h.size - 16);
		off += h.size;
	}
	return k;
}

static void test_time_order(void)
{
	static unsigned char buf[1 << 16];
	static const __u64 in[] = { 5000, 3000, 4000, 3000, 9000 };
	struct kt_perf_data pd;
	struct kt_record r;
	__u64 times[16];
	size_t i;
	int fd, k;

	if (unit_start("reorder_window_time_order_snapshot_first")) {
		fd = tmpfile_fd();
		if (!ASSERT_TRUE(fd >= 0, "tmpfile") ||
		    !ASSERT_EQ(open_test(&pd, fd, false), 0, "open"))
			goto out;
		fake_now = 1000000000ULL;
		for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
			r = ksym("bpf_prog_x", in[i], 0);
			r.addr = i; /* tells the two records at 3000 apart */
			kt_perf_data_record(&pd, &r);
		}
		/* A snapshot record arrives last but is stamped 0, like perf's synthesized ones. */
		r = ksym("bpf_prog_snap", 77, 0);
		r.rflags = KT_RF_SNAPSHOT;
		kt_perf_data_record(&pd, &r);

		/* Inside the window nothing leaves: a late record could still sort first. */
		fake_now += KT_PD_WINDOW_NS - 1;
		ASSERT_EQ(kt_perf_data_flush(&pd, false), 0, "flush inside the window");
		ASSERT_EQ(pd.data_size, 0, "nothing written yet");
		fake_now += 1;
		ASSERT_EQ(kt_perf_data_flush(&pd, false), 0, "flush after the window");
		ASSERT_EQ(pd.q.n, 0, "all left");

		/* A record older than what already left is written, and counted late. */
		r = ksym("bpf_prog_late", 100, 0);
		kt_perf_data_record(&pd, &r);
		ASSERT_EQ(kt_perf_data_flush(&pd, true), 0, "flush all");
		ASSERT_EQ(pd.q.late, 1, "counted late");
		ASSERT_EQ(kt_perf_data_close(&pd), 0, "close");
		k = record_times(buf, slurp(fd, buf, sizeof(buf)), times, 16);
		ASSERT_EQ(k, 7, "records");
		ASSERT_EQ(times[0], 0, "snapshot (time 0) first");
		ASSERT_EQ(times[1], 3000, "then by time");
		ASSERT_EQ(times[2], 3000, "equal times");
		ASSERT_EQ(times[3], 4000, "4000");
		ASSERT_EQ(times[4], 5000, "5000");
		ASSERT_EQ(times[5], 9000, "9000");
		ASSERT_EQ(times[6], 100, "the late one after");
		/* Ties keep arrival order: addr 1 (second pushed) before addr 3. */
		{
			size_t off = 256, seen = 0;
			struct perf_event_header h;
			__u64 addrs[8];

			while (off < 256 + pd.data_size && seen < 8) {
				memcpy(&h, buf + off, sizeof(h));
				if (h.type == PERF_RECORD_KSYMBOL)
					addrs[seen++] = u64at(buf, off + 8);
				off += h.size;
			}
			ASSERT_EQ(addrs[1], 1, "first of the tie");
			ASSERT_EQ(addrs[2], 3, "second of the tie");
		}
out:
		if (fd >= 0)
			close(fd);
		unit_end();
	}
}

static void test_reorder_late_count(void)
{
	struct kt_reorder q;
	const struct kt_reorder_ent *e;
	int x = 0;

	if (unit_start("reorder_counts_late_records_not_snapshots")) {
		kt_reorder_init(&q, 10, 100);
		kt_reorder_push(&q, 50, 0, &x, sizeof(x));
		ASSERT_TRUE(kt_reorder_peek(&q, 9, false) == NULL, "held inside the window");
		e = kt_reorder_peek(&q, 10, false);
		ASSERT_TRUE(e && e->time == 50, "leaves after the window");
		kt_reorder_pop(&q);
		kt_reorder_push(&q, 40, 20, &x, sizeof(x));
		kt_reorder_push(&q, 0, 20, &x, sizeof(x));
		while ((e = kt_reorder_peek(&q, 20, true)))
			kt_reorder_pop(&q);
		ASSERT_EQ(q.late, 1, "40 after 50 is late; 0 (snapshot) is not");
		/* The bound lets the oldest out early. */
		q.max = 2;
		kt_reorder_push(&q, 60, 30, &x, sizeof(x));
		kt_reorder_push(&q, 61, 30, &x, sizeof(x));
		ASSERT_TRUE(kt_reorder_peek(&q, 30, false) == NULL, "at the bound: held");
		kt_reorder_push(&q, 62, 30, &x, sizeof(x));
		e = kt_reorder_peek(&q, 30, false);
		ASSERT_TRUE(e && e->time == 60, "over the bound: oldest leaves");
		kt_reorder_fini(&q);
		unit_end();
	}
}

static void test_comm_once_per_task(void)
{
	static unsigned char buf[1 << 16];
	struct kt_perf_data pd;
	struct kt_record r;
	__u32 types[256];
	int fd, n, i, comms = 0;

	if (unit_start("comm_once_per_task_and_on_change")) {
		fd = tmpfile_fd();
		if (!ASSERT_TRUE(fd >= 0, "tmpfile") ||
		    !ASSERT_EQ(open_test(&pd, fd, false), 0, "open"))
			goto out;
		for (i = 0; i < 3; i++) {
			r = ksym("bpf_prog_a", 10 + i, 200);
			kt_perf_data_record(&pd, &r);
		}
		r = ksym("bpf_prog_b", 20, 200);
		strcpy(r.comm, "renamed");
		kt_perf_data_record(&pd, &r);
		r = ksym("bpf_prog_c", 21, 0);
		r.rflags = KT_RF_SNAPSHOT;
		kt_perf_data_record(&pd, &r);
		r = ksym("bpf_prog_d", 22, 300);
		r.rflags = KT_RF_NO_TASK;
		kt_perf_data_record(&pd, &r);
		/* Enough tasks to make the table grow. */
		for (i = 0; i < 100; i++) {
			r = ksym("bpf_prog_e", 100 + i, 1000 + i);
			kt_perf_data_record(&pd, &r);
		}
		ASSERT_EQ(kt_perf_data_close(&pd), 0, "close");
		n = slurp(fd, buf, sizeof(buf));
		n = walk(buf, 256, 256 + u64at(buf, 48), types, 256);
		for (i = 0; i < 256 && i < n; i++)
			comms += types[i] == PERF_RECORD_COMM;
		ASSERT_EQ(n, 6 + 2 + 100 * 2, "records");
		/* First sight and rename of 200; none for snapshot and task-less ones. */
		ASSERT_EQ(comms, 2 + 100, "COMM records");
out:
		if (fd >= 0)
			close(fd);
		unit_end();
	}
}

/*
 * A full disk without root: RLIMIT_FSIZE makes the write that crosses the limit
 * short and the next one fail with EFBIG, exactly the partial-write pattern of
 * ENOSPC.  Whatever the limit, the file must end at a record boundary and its
 * header must say so.
 */
static void test_full_disk_whole_records(void)
{
	static unsigned char buf[1 << 20];
	struct rlimit old, lim;
	struct kt_perf_data pd;
	struct kt_record r;
	int fd, i, err = 0, limit, bad = 0, nrec;
	__u32 types[1];
	size_t n;

	if (unit_start("full_disk_leaves_whole_records_and_a_true_header")) {
		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &old);
		for (limit = 300; limit < 2000 && !bad; limit += 13) {
			fd = tmpfile_fd();
			if (!ASSERT_TRUE(fd >= 0, "tmpfile"))
				break;
			lim = old;
			lim.rlim_cur = limit;
			setrlimit(RLIMIT_FSIZE, &lim);
			err = open_test(&pd, fd, false);
			for (i = 0; !err && i < 100; i++) {
				r = ksym("bpf_prog_0123456789abcdef_some_name", 1000 + i, 161);
				err = kt_perf_data_record(&pd, &r);
				if (!err)
					err = kt_perf_data_flush(&pd, true);
			}
			if (!err) {
				err = kt_perf_data_close(&pd);
			} else {
				/* Sticky: nothing more is written, close says it again. */
				if (!ASSERT_EQ(kt_perf_data_record(&pd, &r), err, "sticky error"))
					bad++;
				if (!ASSERT_EQ(kt_perf_data_close(&pd), err, "close returns it"))
					bad++;
			}
			setrlimit(RLIMIT_FSIZE, &old);
			if (!ASSERT_EQ(err, -EFBIG, "the write error comes back"))
				bad++;
			n = slurp(fd, buf, sizeof(buf));
			if (!ASSERT_EQ(u64at(buf, 48), n - 256,
				       "data.size == whole records on disk"))
				bad++;
			nrec = walk(buf, 256, n, types, 1);
			if (!ASSERT_TRUE(nrec >= 0, "records parse to the end"))
				bad++;
			close(fd);
		}
		signal(SIGXFSZ, SIG_DFL);
		unit_end();
	}
}

static void test_closed_pipe(void)
{
	struct kt_perf_data pd;
	struct kt_record r = ksym("bpf_prog_x", 1000, 161);
	int p[2];

	if (unit_start("closed_pipe_is_epipe_and_sticky")) {
		signal(SIGPIPE, SIG_IGN);
		if (!ASSERT_EQ(pipe(p), 0, "pipe"))
			goto out;
		if (!ASSERT_EQ(open_test(&pd, p[1], true), 0, "open while the reader is there"))
			goto close;
		close(p[0]);
		p[0] = -1;
		ASSERT_EQ(kt_perf_data_record(&pd, &r), 0, "queued");
		ASSERT_EQ(kt_perf_data_flush(&pd, true), -EPIPE, "flush: EPIPE");
		ASSERT_EQ(kt_perf_data_record(&pd, &r), -EPIPE, "then sticky");
		ASSERT_EQ(kt_perf_data_close(&pd), -EPIPE, "close returns it");
close:
		if (p[0] >= 0)
			close(p[0]);
		close(p[1]);
out:
		signal(SIGPIPE, SIG_DFL);
		unit_end();
	}
}

static void test_unwritable_output_fails_at_open(void)
{
	struct kt_perf_data pd;
	int fd = open("/dev/null", O_RDONLY);

	if (unit_start("unwritable_output_fails_at_open")) {
		ASSERT_EQ(kt_perf_data_open(&pd, fd, false, "ro"), -EBADF, "preamble write fails");
		close(fd);
		unit_end();
	}
}

int main(void)
{
	test_file_layout();
	test_pipe_layout();
	test_time_order();
	test_reorder_late_count();
	test_comm_once_per_task();
	test_full_disk_whole_records();
	test_closed_pipe();
	test_unwritable_output_fails_at_open();
	return unit_exit();
}
