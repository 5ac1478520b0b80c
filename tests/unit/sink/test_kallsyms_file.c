// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --kallsyms FILE: the text, its order, and the atomic replacement. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sink/kallsyms_file.h"
#include "unit.h"

static void apply(struct kt_symtab *t, __u64 addr, const char *name, unsigned char source,
		  __u16 flags)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_KSYMBOL;
	r.addr = addr;
	r.len = 64;
	r.ksym_type = source == KT_SRC_FTRACE || source == KT_SRC_KPROBE ? KT_KSYM_TYPE_OOL :
									   KT_KSYM_TYPE_BPF;
	r.source = source;
	r.flags = flags;
	r.tid = 1;
	snprintf(r.name, sizeof(r.name), "%s", name);
	kt_symtab_apply(t, &r);
}

static char *slurp(const char *path)
{
	static char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* /proc/kallsyms's order after the modules: ftrace's, bpf, kprobes. */
static const char expect1[] = "ffffffffc0005000 t ftrace_trampoline\t[__builtin__ftrace]\n"
			      "ffffffffc0001000 t bpf_prog_aa_main\t[bpf]\n"
			      "ffffffffc0002000 t bpf_prog_bb_sub\t[bpf]\n"
			      "ffffffffc0467000 t bpf_trampoline_6442505800\t[bpf]\n"
			      "ffffffffc0003000 t kprobe_insn_page\t[__builtin__kprobes]\n"
			      "ffffffffc0004000 t kprobe_optinsn_page\t[__builtin__kprobes]\n";

int main(void)
{
	struct kt_kallsyms_file kf;
	struct kt_symtab *t = kt_symtab_new();
	char dir[] = "/tmp/kt_unit_kf.XXXXXX", path[64], *buf, *s;
	struct stat st1, st2;
	size_t len;
	int fd;

	/* The fixture of every case: six symbols, registered in an order unlike
	 * the file's, and a directory for the files. */
	apply(t, 0xffffffffc0004000ULL, "kprobe_optinsn_page", KT_SRC_KPROBE, 0);
	apply(t, 0xffffffffc0467000ULL, "bpf_trampoline_6442505800", KT_SRC_BPF_IMAGE, 0);
	apply(t, 0xffffffffc0005000ULL, "ftrace_trampoline", KT_SRC_FTRACE, 0);
	apply(t, 0xffffffffc0002000ULL, "bpf_prog_bb_sub", KT_SRC_BPF_PROG, 0);
	apply(t, 0xffffffffc0003000ULL, "kprobe_insn_page", KT_SRC_KPROBE, 0);
	apply(t, 0xffffffffc0001000ULL, "bpf_prog_aa_main", KT_SRC_BPF_PROG, 0);
	if (!mkdtemp(dir)) {
		unit_start("kallsyms_file_fixture");
		unit_failf(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		unit_end();
		return unit_exit();
	}
	snprintf(path, sizeof(path), "%s/ksyms", dir);

	if (unit_start("kallsyms_render_groups_and_order")) {
		ASSERT_EQ(kt_kallsyms_render(t, &buf, &len), 0, "render");
		ASSERT_STREQ(buf, expect1, "ftrace, then [bpf] by address, then kprobes");
		ASSERT_EQ(len, strlen(expect1), "length");
		free(buf);
		unit_end();
	}

	if (unit_start("kallsyms_file_written_at_flush")) {
		kt_kallsyms_file_init(&kf, path, t);
		ASSERT_EQ(kf.sink.flush(&kf.sink), 0, "first flush");
		ASSERT_STREQ(slurp(path), expect1, "file contents");
		stat(path, &st1);
		ASSERT_EQ(st1.st_mode & 0777, 0644, "readable by everyone, like /proc/kallsyms");
		ASSERT_EQ(kf.sink.flush(&kf.sink), 0, "flush without change");
		ASSERT_EQ(kf.rewrites, 1, "no rewrite when the generation did not change");
		unlink(path);
		unit_end();
	}

	if (unit_start("kallsyms_file_replaced_atomically")) {
		kt_kallsyms_file_init(&kf, path, t);
		ASSERT_EQ(kf.sink.flush(&kf.sink), 0, "first flush");
		stat(path, &st1);
		fd = open(path, O_RDONLY);
		apply(t, 0xffffffffc0001000ULL, "bpf_prog_aa_main", KT_SRC_BPF_PROG,
		      KT_KSYM_FLAG_UNREGISTER);
		ASSERT_EQ(kf.sink.flush(&kf.sink), 0, "flush after a change");
		ASSERT_EQ(kf.rewrites, 2, "rewritten");
		s = slurp(path);
		ASSERT_TRUE(s && !strstr(s, "bpf_prog_aa_main"), "unregistered symbol gone");
		ASSERT_TRUE(s && strstr(s, "bpf_prog_bb_sub"), "the others stay");
		stat(path, &st2);
		ASSERT_TRUE(st1.st_ino != st2.st_ino, "a new file renamed over the old one");
		{
			char old[4096];
			ssize_t n = read(fd, old, sizeof(old) - 1);

			old[n > 0 ? n : 0] = 0;
			ASSERT_STREQ(old, expect1, "a reader of the old file still sees it whole");
		}
		close(fd);
		ASSERT_EQ(count_entries(dir), 1, "no temporary file left beside it");
		unlink(path);
		/* The fixture as it was. */
		apply(t, 0xffffffffc0001000ULL, "bpf_prog_aa_main", KT_SRC_BPF_PROG, 0);
		unit_end();
	}

	if (unit_start("kallsyms_file_empty_table")) {
		{
			struct kt_symtab *e = kt_symtab_new();
			struct kt_kallsyms_file kfe;
			char p2[80];

			snprintf(p2, sizeof(p2), "%s/empty", dir);
			kt_kallsyms_file_init(&kfe, p2, e);
			ASSERT_EQ(kt_kallsyms_file_sync(&kfe), 0, "sync");
			ASSERT_STREQ(slurp(p2), "", "an empty file exists from the first flush");
			unlink(p2);
			kt_symtab_free(e);
		}
		unit_end();
	}

	if (unit_start("kallsyms_file_error_is_sticky")) {
		{
			struct kt_kallsyms_file kfb;

			kt_kallsyms_file_init(&kfb, "/nonexistent-dir/ksyms", t);
			ASSERT_EQ(kt_kallsyms_file_sync(&kfb), -ENOENT, "missing directory");
			ASSERT_EQ(kt_kallsyms_file_sync(&kfb), -ENOENT, "stays failed");
			ASSERT_EQ(kfb.err, -ENOENT, "recorded");
			ASSERT_STREQ(kfb.sink.why,
				     "--kallsyms /nonexistent-dir/ksyms: No such file or directory",
				     "one line for the command to print");
		}
		unit_end();
	}

	unlink(path);
	rmdir(dir);
	kt_symtab_free(t);
	return unit_exit();
}
