// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * mode=code (docs/serve.md): the code that held an address at a time,
 * answered as a small 'ksymtap record' file (the program's KSYMBOL and
 * BPF_EVENT records as the history has them, its HEADER_BPF_PROG_INFO and
 * HEADER_BPF_BTF, HEADER_ARCH; for other code its KSYMBOLs and the
 * TEXT_POKE of its bytes), so that `ksymtap disasm -s` reads it exactly
 * as it reads a file, and so can perf.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "history/code_at.h"
#include "sink/perf_data.h"
#include "util/fileio.h"
#include "serve/server.h"

static int put_sym(struct kt_perf_data *pd, const struct kt_hsym *h)
{
	struct kt_record r = { .type = KT_RECORD_KSYMBOL };
	int err;

	r.source = h->source;
	r.time = h->birth;
	r.addr = h->addr;
	r.len = h->len;
	r.ksym_type = h->ksym_type;
	snprintf(r.name, sizeof(r.name), "%s", h->name);
	err = kt_perf_data_record(pd, &r);
	if (err || h->death == KT_HIST_ALIVE)
		return err;
	r.time = h->death;
	r.flags = KT_KSYM_FLAG_UNREGISTER;
	return kt_perf_data_record(pd, &r);
}

static int put_prog(struct kt_perf_data *pd, const struct kt_code_hit *hit, bool unload)
{
	struct kt_record r = { .type = KT_RECORD_BPF_EVENT, .source = KT_SRC_BPF_PROG };

	r.bpf_type = unload ? KT_BPF_EVENT_PROG_UNLOAD : KT_BPF_EVENT_PROG_LOAD;
	r.time = unload ? hit->prog->unloaded : hit->prog->loaded;
	r.prog_id = hit->prog->id;
	memcpy(r.tag, hit->v.info.tag, KT_TAG_SIZE);
	snprintf(r.name, sizeof(r.name), "%s", hit->v.info.name);
	return kt_perf_data_record(pd, &r);
}

/* The records of what held the address: the symbol, or every function of
 * its program and the program's load and unload. */
static int put_records(struct kt_server *s, struct kt_perf_data *pd, const struct kt_code_hit *hit)
{
	const struct kt_hsym *h;
	__u64 addr;
	__u32 i, len;
	int err = 0;

	if (!hit->sym)
		return 0;
	if (!hit->prog) {
		err = put_sym(pd, hit->sym);
		if (!err && hit->text) {
			struct kt_record r = { .type = KT_RECORD_KSYMBOL, .addr = hit->text->addr };

			r.time = hit->text->time;
			err = kt_perf_data_text(pd, &r, hit->text->bytes, hit->text->len);
		}
		return err;
	}
	for (i = 0; !err && i < hit->v.nfuncs; i++) {
		kt_bpil_func(&hit->v, i, &addr, &len, NULL);
		h = kt_history_find(&s->hist, addr, hit->when);
		if (h)
			err = put_sym(pd, h);
	}
	if (!err && hit->prog->loaded)
		err = put_prog(pd, hit, false);
	if (!err && hit->prog->unloaded)
		err = put_prog(pd, hit, true);
	return err;
}

/* The answer written to a memfd and read back whole: -errno. */
static int answer(struct kt_server *s, const struct kt_code_hit *hit, unsigned char **buf,
		  size_t *size)
{
	struct kt_archive one = { 0 };
	struct kt_perf_data pd;
	struct stat st;
	int fd, err;

	fd = memfd_create("ksymtap-code", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = kt_perf_data_open(&pd, fd, false, "mode=code answer");
	if (!err && hit->prog)
		err = kt_archive_copy_prog(&one, &s->code, hit->prog->id);
	if (!err) {
		pd.archive = &one;
		err = put_records(s, &pd, hit);
		if (err)
			kt_perf_data_close(&pd);
		else
			err = kt_perf_data_close(&pd);
	}
	kt_archive_free(&one);
	if (!err && fstat(fd, &st))
		err = -errno;
	*buf = err ? NULL : malloc(st.st_size ? st.st_size : 1);
	if (!err && !*buf)
		err = -ENOMEM;
	if (!err)
		err = kt_pread_all(fd, *buf, st.st_size, 0);
	*size = err ? 0 : st.st_size;
	close(fd);
	return err;
}

void queue_code(struct kt_server *s, struct client *c)
{
	struct kt_code_hit hit;
	unsigned char *buf = NULL;
	char why[256];
	size_t size = 0;
	int err;

	/* at=now: what holds it now, or else the last code that did (as
	 * disasm without --at on a file). */
	err = kt_code_find(&s->hist, &s->code, c->hello.addr, c->hello.at,
			   c->hello.at == KT_HIST_NOW, &hit, why, sizeof(why));
	s->st.code_answers++;
	if (!err && !hit.sym) {
		/* Plain text, as a handshake error: disasm prints it. */
		static const char none[] = "ksymtap: error: no symbol held it\n";

		if (kt_squeue_push_reserved(&c->q, none, sizeof(none) - 1))
			drop(s, c, KT_DISC_TOO_BIG, "raise --client-queue");
		return;
	}
	if (!err)
		err = answer(s, &hit, &buf, &size);
	if (!err && kt_squeue_push_reserved(&c->q, buf, size))
		drop(s, c, KT_DISC_TOO_BIG, "raise --client-queue");
	else if (err)
		drop(s, c, KT_DISC_ERROR, strerror(-err));
	free(buf);
}
