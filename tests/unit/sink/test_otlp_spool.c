// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The OTLP exporter's spool (user/sink/otlp_spool.h): requests kept in
 * order, across a close and an open, bounded, one process at a time, and
 * what a crash leaves behind. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "sink/otlp_spool.h"
#include "unit.h"

static char dir[64];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/kt-spool-XXXXXX");
	if (!mkdtemp(dir))
		unit_failf(__FILE__, __LINE__, "mkdtemp: %m");
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		unit_failf(__FILE__, __LINE__, "%s failed", cmd);
}

/* The head's body as a string. */
static bool head_is(struct kt_spool *s, const char *want, unsigned int records)
{
	char *body = NULL;
	size_t len = 0;
	bool ok;

	ok = ASSERT_EQ(kt_spool_read_head(s, &body, &len), 0, "read the head") &&
	     ASSERT_EQ(len, strlen(want), "its length") &&
	     ASSERT_MEMEQ(body, want, len, "its bytes") &&
	     ASSERT_EQ(kt_spool_head(s)->records, records, "its records");
	free(body);
	return ok;
}

static void test_order_and_restart(void)
{
	struct kt_spool s;
	char why[256], sub[128];

	if (!unit_start("order_and_restart"))
		return;
	make_dir();
	snprintf(sub, sizeof(sub), "%s/spool", dir);
	ASSERT_EQ(kt_spool_open(&s, sub, 1 << 20, why, sizeof(why)), 0, "open makes the directory");
	ASSERT_TRUE(kt_spool_empty(&s), "a new spool is empty");
	ASSERT_EQ(kt_spool_put(&s, "first", 5, 3, KT_OTLP_PROTOBUF, false), 0, "put 1");
	ASSERT_EQ(kt_spool_put(&s, "second", 6, 2, KT_OTLP_JSON, true), 0, "put 2");
	ASSERT_EQ(kt_spool_put(&s, "third", 5, 1, KT_OTLP_PROTOBUF, true), 0, "put 3");
	ASSERT_EQ(s.records, 6, "records");
	ASSERT_EQ(s.bytes, 16, "bytes");
	head_is(&s, "first", 3);
	kt_spool_pop(&s);
	kt_spool_close(&s);

	/* A crash mid-write leaves a temporary; a stranger's file stays. */
	snprintf(why, sizeof(why), "%s/000000000009-1.pb.AbCdEf", sub);
	close(open(why, O_CREAT | O_WRONLY, 0600));
	snprintf(why, sizeof(why), "%s/notes.txt", sub);
	close(open(why, O_CREAT | O_WRONLY, 0600));

	ASSERT_EQ(kt_spool_open(&s, sub, 1 << 20, why, sizeof(why)), 0, "open again");
	ASSERT_EQ(s.records, 3, "records after the restart");
	ASSERT_EQ(s.bytes, 11, "bytes after the restart");
	if (head_is(&s, "second", 2)) {
		ASSERT_EQ(kt_spool_head(&s)->proto, KT_OTLP_JSON, "its protocol");
		ASSERT_TRUE(kt_spool_head(&s)->gzip, "its gzip");
	}
	ASSERT_EQ(kt_spool_put(&s, "fourth", 6, 5, KT_OTLP_PROTOBUF, false), 0, "put after");
	kt_spool_pop(&s);
	head_is(&s, "third", 1);
	kt_spool_pop(&s);
	head_is(&s, "fourth", 5);
	kt_spool_pop(&s);
	ASSERT_TRUE(kt_spool_empty(&s), "empty at the end");
	ASSERT_EQ(s.bytes, 0, "no bytes at the end");
	snprintf(why, sizeof(why), "%s/000000000009-1.pb.AbCdEf", sub);
	ASSERT_TRUE(access(why, F_OK) != 0, "the temporary is gone");
	snprintf(why, sizeof(why), "%s/notes.txt", sub);
	ASSERT_TRUE(access(why, F_OK) == 0, "the stranger's file is left");
	kt_spool_close(&s);
	remove_dir();
	unit_end();
}

static void test_bound(void)
{
	struct kt_spool s;
	char why[256], big[4096] = { 0 };

	if (!unit_start("bound"))
		return;
	make_dir();
	ASSERT_EQ(kt_spool_open(&s, dir, 10000, why, sizeof(why)), 0, "open");
	ASSERT_EQ(kt_spool_put(&s, big, sizeof(big), 1, KT_OTLP_PROTOBUF, false), 0, "1");
	ASSERT_EQ(kt_spool_put(&s, big, sizeof(big), 1, KT_OTLP_PROTOBUF, false), 0, "2");
	ASSERT_EQ(kt_spool_put(&s, big, sizeof(big), 1, KT_OTLP_PROTOBUF, false), -ENOSPC,
		  "the third does not fit");
	kt_spool_pop(&s);
	ASSERT_EQ(kt_spool_put(&s, big, sizeof(big), 1, KT_OTLP_PROTOBUF, false), 0,
		  "it fits once one is sent");
	kt_spool_close(&s);
	remove_dir();
	unit_end();
}

static void test_one_owner(void)
{
	struct kt_spool s, t;
	char why[256] = "";
	int status = -1;
	pid_t pid;

	if (!unit_start("one_owner"))
		return;
	make_dir();
	ASSERT_EQ(kt_spool_open(&s, dir, 1 << 20, why, sizeof(why)), 0, "open");
	/* flock() is per open file: another process is refused. */
	pid = fork();
	if (pid == 0)
		_exit(kt_spool_open(&t, dir, 1 << 20, why, sizeof(why)) == -EBUSY ? 0 : 1);
	waitpid(pid, &status, 0);
	ASSERT_EQ(status, 0, "another process gets -EBUSY");
	kt_spool_close(&s);
	ASSERT_EQ(kt_spool_open(&t, dir, 1 << 20, why, sizeof(why)), 0, "free again after close");
	kt_spool_close(&t);
	ASSERT_EQ(kt_spool_open(&t, "/proc/nonexistent/x", 1 << 20, why, sizeof(why)), -ENOENT,
		  "a directory that cannot be made");
	ASSERT_STRSTR(why, "--otlp-spool: /proc/nonexistent/x: ", "the error names the option");
	remove_dir();
	unit_end();
}

int main(void)
{
	test_order_and_restart();
	test_bound();
	test_one_owner();
	return unit_exit();
}
