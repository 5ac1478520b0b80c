// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ksymtap disasm: the code that covered an address at a time, from the
 * archive of a record file (issue 32). */
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include "cmd/builtin.h"
#include "cmd/options.h"
#include "encode/encode_answer.h"
#include "encode/json_writer.h"
#include "history/code_at.h"
#include "history/resolve.h"
#include "run/cli.h"
#include "run/cmd_opts.h"
#include "serve/serve_proto.h"
#include "util/fileio.h"
#include "util/log.h"

static const char disasm_help[] =
	"Usage: ksymtap disasm (-i FILE | -s SOCKET) [-t|--at TIME] [-f text|json] ADDR...\n"
	"\n"
	"Print the machine code that covered each kernel address ADDR at TIME, from\n"
	"the code 'ksymtap record' kept in FILE, or a running 'ksymtap serve' daemon\n"
	"keeps (-s, as long as its history keeps the program): the whole function\n"
	"of the BPF program that held ADDR then, each instruction with its address,\n"
	"offset and bytes, the one holding ADDR marked '=>', and before the\n"
	"instructions of each BPF source line that line, as 'bpftool prog dump\n"
	"jited linum' prints it ('; TEXT [file:F line_num:N line_col:C]', from the\n"
	"program's line info and BTF).  The program may be long gone: its\n"
	"bpf_prog_info was read the moment it was loaded.  An address reused by\n"
	"later programs is answered with the program that held it at TIME.\n"
	"\n"
	"The code is decoded for the architecture the file was recorded on (x86-64\n"
	"in AT&T syntax, as objdump prints it; arm64), whatever this machine is.\n"
	"TIME is as resolve takes it: nanoseconds on perf's clock, seconds\n"
	"(12.345678), or now (the end of FILE, the daemon's present).  Without --at:\n"
	"what held ADDR at the end of FILE (now, for a daemon), or else the last\n"
	"code that ever did (the header says when it lived).  Calls and jumps into\n"
	"dynamic code are named as they were then.\n"
	"\n"
	"What is held: BPF programs and their subprograms whose load the recording\n"
	"saw and could still read (record says how many it missed); and in a record\n"
	"file, the bytes of BPF trampolines, dispatchers, struct_ops images, ftrace\n"
	"trampolines and kprobe pages as they were when they registered (from\n"
	"/proc/kcore), without source lines; a daemon keeps the same.\n"
	"\n"
	"Options:\n";

static const char disasm_more[] =
	"\n"
	"Exit status: 0 every address disassembled, 1 an address with no symbol or no\n"
	"code held at TIME, or that is not an address (one line each on stderr; the\n"
	"others are still printed), a FILE that cannot be read or a daemon that does\n"
	"not answer, 2 usage.\n"
	"\n"
	"Examples:\n"
	"  ksymtap disasm -i ksym.data ffffffffc0001234\n"
	"  ksymtap disasm -i ksym.data --at 812.345678 0xffffffffc0001234\n"
	"  ksymtap disasm -s /run/ksymtap.sock ffffffffc0001234\n"
	"  ksymtap disasm -i ksym.data -f json ffffffffc0001234 | jq '.insns[].mnemonic'\n";

struct disasm_opts {
	const char *in, *sock, *at;
	bool json;
};

static int disasm_opt(void *ctx, int opt, const char *arg)
{
	struct disasm_opts *o = ctx;

	switch (opt) {
	case 'i':
	case OPT_FROM:
		o->in = arg;
		return 1;
	case 's':
		o->sock = arg;
		return 1;
	case 't':
		o->at = arg;
		return 1;
	case 'f':
		if (strcmp(arg, "text") && strcmp(arg, "json")) {
			kt_err("--format '%s': disasm writes text or json", arg);
			return -1;
		}
		o->json = !strcmp(arg, "json");
		return 1;
	}
	return 0;
}

/* One address's listing, in text or JSON. */
struct out {
	struct kt_jw w;
	bool json, obj_open, in_lines;
	__u64 addr, start, t;
	const struct kt_code_file *f;
};

/* A branch or call to dynamic code: its name at the time, as objdump's
 * <sym> ("" if the operand is not a bare address or nothing held it). */
static void target_name(const struct out *o, const struct kt_insn *in, char *buf, size_t size)
{
	const char *p = in->ops + (in->ops[0] == '#');
	const struct kt_hsym *s;
	__u64 a;

	buf[0] = 0;
	if (strncmp(p, "0x", 2) || kt_parse_addr(p, strlen(p), &a))
		return;
	s = kt_history_find(&o->f->h, a, o->t);
	if (s)
		kt_answer_text(buf, size, s, a);
}

static void hex_bytes(char *buf, const struct kt_insn *in, const char *sep)
{
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < in->size && i < sizeof(in->bytes); i++)
		n += sprintf(buf + n, "%s%02x", i ? sep : "", in->bytes[i]);
}

static int text_line(void *ctx, const struct kt_code_line *l)
{
	printf("; %s [file:%s line_num:%u line_col:%u]\n", l->text, l->file, l->line, l->col);
	return 0;
}

static int text_insn(void *ctx, const struct kt_insn *in)
{
	struct out *o = ctx;
	char bytes[3 * sizeof(in->bytes) + 1], target[KT_NAME_MAX + 64];
	bool here = o->addr >= in->addr && o->addr < in->addr + in->size;

	hex_bytes(bytes, in, " ");
	target_name(o, in, target, sizeof(target));
	printf("%s%llx <+%llu>:\t%-20s\t%s%s%s%s%s%s\n", here ? "=> " : "   ",
	       (unsigned long long)in->addr, (unsigned long long)(in->addr - o->start), bytes,
	       in->mnemonic, in->ops[0] ? "\t" : "", in->ops, target[0] ? " <" : "", target,
	       target[0] ? ">" : "");
	return 0;
}

static int json_line(void *ctx, const struct kt_code_line *l)
{
	struct out *o = ctx;

	if (!o->obj_open)
		kt_jw_obj_begin(&o->w);
	o->obj_open = true;
	if (!o->in_lines) {
		kt_jw_key(&o->w, "lines");
		kt_jw_arr_begin(&o->w);
		o->in_lines = true;
	}
	kt_jw_obj_begin(&o->w);
	KT_JW_FIELD(kt_jw_str, &o->w, "file", l->file);
	KT_JW_FIELD(kt_jw_u64, &o->w, "line", l->line);
	KT_JW_FIELD(kt_jw_u64, &o->w, "col", l->col);
	KT_JW_FIELD(kt_jw_str, &o->w, "src", l->text);
	kt_jw_obj_end(&o->w);
	return 0;
}

static int json_insn(void *ctx, const struct kt_insn *in)
{
	struct out *o = ctx;
	char bytes[2 * sizeof(in->bytes) + 1], target[KT_NAME_MAX + 64];

	/* The lines gathered so far begin at this instruction. */
	if (!o->obj_open)
		kt_jw_obj_begin(&o->w);
	if (o->in_lines)
		kt_jw_arr_end(&o->w);
	o->obj_open = o->in_lines = false;
	hex_bytes(bytes, in, "");
	KT_JW_FIELD(kt_jw_hex, &o->w, "addr", in->addr);
	KT_JW_FIELD(kt_jw_str, &o->w, "bytes", bytes);
	KT_JW_FIELD(kt_jw_str, &o->w, "mnemonic", in->mnemonic);
	KT_JW_FIELD(kt_jw_str, &o->w, "operands", in->ops);
	target_name(o, in, target, sizeof(target));
	if (target[0])
		KT_JW_FIELD(kt_jw_str, &o->w, "target", target);
	KT_JW_FIELD(kt_jw_bool, &o->w, "at", o->addr >= in->addr && o->addr < in->addr + in->size);
	kt_jw_obj_end(&o->w);
	return 0;
}

static const struct kt_code_ops text_ops = { .line = text_line, .insn = text_insn };
static const struct kt_code_ops json_ops = { .line = json_line, .insn = json_insn };

/* Why there is no listing for a symbol, or NULL when there is one. */
static const char *no_code(const struct kt_code_hit *hit)
{
	if (!hit->sym)
		return "no symbol held it";
	if (hit->sym->source == KT_SRC_BPF_PROG && !hit->prog)
		return "the recording holds no code for it (gone before it could be read, "
		       "or recorded with -o - or --no-code)";
	if (hit->sym->source != KT_SRC_BPF_PROG && !hit->text)
		return "the recording holds no bytes for it (/proc/kcore could not be read, "
		       "or recorded with -o - or --no-code, or before ksymtap kept them)";
	return NULL;
}

static void json_head(struct out *o, const struct kt_code_file *f, const struct kt_code_hit *h,
		      const char *sym, __u64 t)
{
	char tag[2 * BPF_TAG_SIZE + 1];
	int i;

	for (i = 0; i < BPF_TAG_SIZE; i++)
		sprintf(tag + 2 * i, "%02x", h->v.info.tag[i]);
	kt_jw_obj_begin(&o->w);
	KT_JW_FIELD(kt_jw_hex, &o->w, "addr", o->addr);
	kt_jw_key(&o->w, "time");
	if (t == KT_HIST_NOW)
		kt_jw_str(&o->w, "now");
	else
		kt_jw_u64(&o->w, t);
	KT_JW_FIELD(kt_jw_str, &o->w, "symbol", h->sym->name);
	KT_JW_FIELD(kt_jw_str, &o->w, "where", sym);
	KT_JW_FIELD(kt_jw_hex, &o->w, "start", h->sym->addr);
	KT_JW_FIELD(kt_jw_u64, &o->w, "len", h->sym->len);
	KT_JW_FIELD(kt_jw_u64, &o->w, "birth", h->sym->birth);
	kt_jw_key(&o->w, "death");
	if (h->sym->death == KT_HIST_ALIVE)
		kt_jw_null(&o->w);
	else
		kt_jw_u64(&o->w, h->sym->death);
	KT_JW_FIELD(kt_jw_str, &o->w, "source", kt_source_name(h->sym->source));
	if (h->prog) {
		KT_JW_FIELD(kt_jw_u64, &o->w, "prog_id", h->prog->id);
		KT_JW_FIELD(kt_jw_str, &o->w, "prog_tag", tag);
		KT_JW_FIELD(kt_jw_str, &o->w, "prog_name", h->v.info.name);
		KT_JW_FIELD(kt_jw_u64, &o->w, "btf_id", h->v.info.btf_id);
	} else {
		/* When its bytes were read: as it registered. */
		KT_JW_FIELD(kt_jw_u64, &o->w, "bytes_time", h->text->time);
	}
	KT_JW_FIELD(kt_jw_str, &o->w, "arch", f->arch);
	kt_jw_key(&o->w, "insns");
	kt_jw_arr_begin(&o->w);
}

/* ", from B to D" as perf script prints times, "alive" for no death. */
static void print_life(const struct kt_hsym *s)
{
	printf(", %s%llu.%06llu to ", s->birth ? "from " : "from before ",
	       (unsigned long long)(s->birth / 1000000000),
	       (unsigned long long)(s->birth % 1000000000 / 1000));
	if (s->death == KT_HIST_ALIVE)
		printf("the end");
	else
		printf("%llu.%06llu", (unsigned long long)(s->death / 1000000000),
		       (unsigned long long)(s->death % 1000000000 / 1000));
}

/* One address: its listing on stdout, 0; 1 after one error line. */
static int disasm_one(const struct kt_code_file *f, const char *arg, __u64 t, bool last, bool json)
{
	struct out o = { .json = json, .f = f, .t = t };
	struct kt_code_hit hit;
	char why[256] = "", sym[KT_NAME_MAX + 64];
	const char *none;
	ssize_t n;
	int err;

	if (kt_parse_addr(arg, strlen(arg), &o.addr)) {
		kt_err("'%s' is not an address (hex, 0x optional)", arg);
		return 1;
	}
	err = kt_code_find(&f->h, &f->a, o.addr, t, last, &hit, why, sizeof(why));
	if (err) {
		kt_err("%s: %s", arg, why);
		return 1;
	}
	none = no_code(&hit);
	kt_answer_text(sym, sizeof(sym), hit.sym, o.addr);
	if (none) {
		kt_err("%s %s: %s", arg, sym, none);
		return 1;
	}
	o.start = hit.sym->addr;
	o.t = hit.when;
	if (json) {
		kt_jw_init_dyn(&o.w);
		json_head(&o, f, &hit, sym, t);
	} else {
		if (hit.prog)
			printf("%s: %s, program %u (%s), %s", arg, sym, hit.prog->id,
			       hit.v.info.name, f->arch);
		else
			printf("%s: %s, %s, %s", arg, sym, kt_source_name(hit.sym->source),
			       f->arch);
		print_life(hit.sym);
		printf(":\n");
	}
	err = kt_code_walk(&f->a, f->arch, &hit, json ? &json_ops : &text_ops, &o);
	if (json) {
		kt_jw_arr_end(&o.w);
		kt_jw_obj_end(&o.w);
		n = kt_jw_end(&o.w);
		if (n >= 0 && !err)
			printf("%s\n", o.w.p);
		kt_jw_free(&o.w);
		if (n < 0)
			err = (int)n;
	}
	if (err) {
		kt_err("%s: %s", arg,
		       err == -EOPNOTSUPP ? "code of this architecture is not decoded" :
					    strerror(-err));
		return 1;
	}
	return 0;
}

static const struct kt_cmd disasm_cmd = {
	.name = "disasm",
	.opts = kt_opts_disasm,
	.usage = disasm_help,
	.more = disasm_more,
	.args = KT_ARGS_CMD,
	.opt = disasm_opt,
};

/* One address from a daemon: its mode=code answer, a small record file
 * (docs/serve.md), read into memory and then as a file.  0, or 1 after one
 * error line. */
static int from_daemon(const struct disasm_opts *o, const char *arg, __u64 t)
{
	struct kt_hello hello;
	struct kt_code_file f;
	char why[600] = "", path[64], head[16] = "";
	int fd, mfd, err, bad;

	kt_hello_default(&hello);
	hello.mode = KT_MODE_CODE;
	hello.at = t;
	if (kt_parse_addr(arg, strlen(arg), &hello.addr)) {
		kt_err("'%s' is not an address (hex, 0x optional)", arg);
		return 1;
	}
	hello.has_addr = true;
	fd = kt_hello_connect(o->sock, &hello, why, sizeof(why));
	if (fd < 0) {
		kt_err("%s", why);
		return 1;
	}
	mfd = memfd_create("ksymtap-disasm", MFD_CLOEXEC);
	err = mfd < 0 ? -errno : kt_copy_fd(fd, mfd);
	close(fd);
	if (!err && pread(mfd, head, sizeof(head) - 1, 0) >= 0 && !strncmp(head, "ksymtap: ", 9))
		err = -EPROTO;
	if (err) {
		if (err == -EPROTO && pread(mfd, why, sizeof(why) - 1, 0) > 0)
			kt_err("%s: %s", arg, strtok(why + 16, "\n"));
		else
			kt_err("%s: reading the answer for %s: %s", o->sock, arg, strerror(-err));
		if (mfd >= 0)
			close(mfd);
		return 1;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", mfd);
	if (kt_code_file_load(&f, path, why, sizeof(why))) {
		kt_err("%s: the daemon's answer for %s: %s", o->sock, arg, why);
		kt_code_file_fini(&f);
		close(mfd);
		return 1;
	}
	bad = disasm_one(&f, arg, o->at ? t : f.h.end, !o->at, o->json);
	kt_code_file_fini(&f);
	close(mfd);
	return bad;
}

int cmd_disasm(int argc, char **argv)
{
	struct disasm_opts o = { 0 };
	struct kt_cmd cmd = disasm_cmd;
	struct kt_code_file f;
	struct kt_common c;
	char why[512] = "";
	int first, status, i, bad = 0;
	__u64 t;

	kt_common_init(&c);
	cmd.ctx = &o;
	first = kt_cmd_parse(&cmd, &c, argc, argv, &status);
	if (first < 0)
		return status;
	if (!o.in == !o.sock || first == argc) {
		kt_err("disasm needs one of -i FILE (a 'ksymtap record' file) and -s SOCKET (a "
		       "'ksymtap serve' daemon), and at least one ADDR (try 'ksymtap disasm --help')");
		return KT_EXIT_USAGE;
	}
	if (o.sock) {
		t = KT_HIST_NOW;
		if (o.at && kt_parse_time(o.at, KT_HIST_NOW, &t)) {
			kt_err("--at '%s' is not a time (ns, seconds.fraction or now)", o.at);
			return KT_EXIT_USAGE;
		}
		/* A daemon that goes away is an error line, not a SIGPIPE. */
		signal(SIGPIPE, SIG_IGN);
		for (i = first; i < argc; i++) {
			bad |= from_daemon(&o, argv[i], t);
			fflush(stdout);
		}
		return bad ? KT_EXIT_FAIL : KT_EXIT_OK;
	}
	if (kt_code_file_load(&f, o.in, why, sizeof(why))) {
		kt_err("%s", why);
		kt_code_file_fini(&f);
		return KT_EXIT_FAIL;
	}
	t = f.h.end;
	if (o.at && kt_parse_time(o.at, f.h.end, &t)) {
		kt_err("--at '%s' is not a time (ns, seconds.fraction or now)", o.at);
		kt_code_file_fini(&f);
		return KT_EXIT_USAGE;
	}
	for (i = first; i < argc; i++) {
		bad |= disasm_one(&f, argv[i], t, !o.at, o.json);
		fflush(stdout);
	}
	kt_code_file_fini(&f);
	return bad ? KT_EXIT_FAIL : KT_EXIT_OK;
}
