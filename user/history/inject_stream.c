// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ksymtap inject`'s input and output: FILE read whole (symbol records only),
 * IN copied record by record to OUT with the engine's records (inject.c)
 * placed in it.  Memory is FILE's and IN's symbol records, never IN's samples.
 *
 * Placement follows perf's ordered_events.c: records of a file are queued by
 * time and, at each PERF_RECORD_FINISHED_ROUND, those up to the newest time
 * seen before the *previous* round marker are delivered; a record queued
 * below what was already delivered is "Timestamp below last timeslice flush"
 * and is warned about.  So a record of time t goes in before the marker at
 * which that bound passes t, as late as that (so that IN's own records of
 * about the same time are known first).  Time-0 records are delivered at
 * once where they are read; ours go after IN's (perf's synthesized ones).
 * A record that must follow one of IN's records of the same time (one it
 * replaces) goes right after it: equal times keep their file order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "encode/encode.h"
#include "util/fileio.h"
#include "history/inject_code.h"
#include "history/inject_stream.h"
#include "history/perf_in.h"
#include "history/record_file.h"

#define OUT_BUF_CAP (256 * 1024)

struct writer {
	int fd;
	unsigned char *buf;
	size_t len;
	__u64 written;
	int err;
};

static int w_flush(struct writer *w)
{
	int err;

	if (w->err || !w->len)
		return w->err;
	err = kt_write_all(w->fd, w->buf, w->len);
	if (err)
		w->err = err;
	w->len = 0;
	return w->err;
}

static int w_put(struct writer *w, const void *p, size_t n)
{
	if (w->len + n > OUT_BUF_CAP && w_flush(w))
		return w->err;
	if (n > OUT_BUF_CAP) {
		w->err = kt_write_all(w->fd, p, n);
		w->written += n;
		return w->err;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
	w->written += n;
	return 0;
}

struct run {
	struct kt_inject_args *a;
	struct kt_inject *ij;
	struct kt_perf_in in;
	struct writer w;
	const struct kt_pi_attr *track;
	size_t *deps; /* indexes of ij->j with a dependency, by dep offset */
	size_t ndeps, dep_next;
	__u64 cur_max, prev_max;
	bool marker_seen, checked;
	unsigned long long emitted;
	struct kt_inject_code code; /* file mode */
	char *why;
	size_t why_size;
};

static int fail(struct run *r, int err, const char *what)
{
	snprintf(r->why, r->why_size, "%s: %s", what, strerror(-err));
	return err;
}

static int add_file(void *ctx, struct kt_record *r)
{
	return kt_inject_add_file(ctx, r);
}

/* FILE, whole: its records into the engine. */
static int load_file(struct run *r)
{
	struct kt_record_file_info info;
	int err;

	err = kt_record_file_read(r->a->file, add_file, r->ij, &info, r->why, r->why_size);
	if (err == -ENOMEM)
		return fail(r, err, r->a->file);
	if (err)
		return err;
	snprintf(r->a->file_host, sizeof(r->a->file_host), "%s", info.hostname);
	snprintf(r->a->file_release, sizeof(r->a->file_release), "%s", info.osrelease);
	return 0;
}

/* Another machine, kernel or clock: refused unless --force. */
static int check_origin(struct run *r)
{
	const struct kt_inject_args *a = r->a;
	size_t i;

	r->checked = true;
	if (a->force)
		return 0;
	if (a->file_host[0] && r->in.hostname[0] && strcmp(a->file_host, r->in.hostname)) {
		snprintf(
			r->why, r->why_size,
			"%s was recorded on host '%s', %s on '%s': another machine (--force to inject anyway)",
			a->file, a->file_host, r->in.what, r->in.hostname);
		return -EXDEV;
	}
	if (a->file_release[0] && r->in.osrelease[0] && strcmp(a->file_release, r->in.osrelease)) {
		snprintf(
			r->why, r->why_size,
			"%s was recorded under kernel %s, %s under %s: another kernel (--force to inject anyway)",
			a->file, a->file_release, r->in.what, r->in.osrelease);
		return -EXDEV;
	}
	for (i = 0; i < r->in.nattrs; i++) {
		if (r->in.attrs[i].attr.use_clockid) {
			snprintf(
				r->why, r->why_size,
				"%s was recorded with perf record -k (clock %d), ksymtap's times are on perf's default clock (--force to inject anyway)",
				r->in.what, r->in.attrs[i].attr.clockid);
			return -EXDEV;
		}
	}
	return 0;
}

static int emit(struct run *r, struct kt_inj_out *o)
{
	unsigned char buf[KT_NAME_MAX + 256];
	struct perf_event_header h;
	ssize_t n;
	size_t t;

	o->done = true;
	n = kt_encode_perf(&o->r, buf, sizeof(buf));
	if (n < 0)
		return 0;
	/* kt_encode_perf's own TID|TIME|CPU trailer (24 bytes) is replaced
	 * with the one IN's attr asks for. */
	n -= 24;
	t = kt_perf_in_trailer(r->track, buf + n, o->r.pid, o->r.tid, o->time, o->r.cpu);
	memcpy(&h, buf, sizeof(h));
	h.size = n + t;
	memcpy(buf, &h, sizeof(h));
	r->emitted++;
	return w_put(&r->w, buf, h.size);
}

/* The decided records due before the next round marker. */
static int emit_due(struct run *r, __u64 limit)
{
	struct kt_inject *ij = r->ij;
	size_t i;
	int err;

	for (i = ij->j_next; i < ij->nj && (ij->j[i].time < limit || !ij->j[i].time); i++) {
		struct kt_inj_out *o = &ij->j[i];

		if (o->done || (o->dep != KT_INJ_NO_DEP && o->dep >= r->in.rec_off))
			continue;
		err = emit(r, o);
		if (err)
			return err;
	}
	while (ij->j_next < ij->nj && ij->j[ij->j_next].done)
		ij->j_next++;
	return 0;
}

/* Records that must follow IN's record at off. */
static int emit_after(struct run *r, __u64 off)
{
	int err;

	while (r->dep_next < r->ndeps && r->ij->j[r->deps[r->dep_next]].dep <= off) {
		struct kt_inj_out *o = &r->ij->j[r->deps[r->dep_next++]];

		if (o->done)
			continue;
		err = emit(r, o);
		if (err)
			return err;
	}
	return 0;
}

static int dep_cmp(const void *a, const void *b, void *ctx)
{
	const struct kt_inject *ij = ctx;
	const struct kt_inj_out *x = &ij->j[*(const size_t *)a];
	const struct kt_inj_out *y = &ij->j[*(const size_t *)b];

	if (x->dep != y->dep)
		return x->dep < y->dep ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int index_deps(struct run *r)
{
	size_t i;

	r->deps = calloc(r->ij->nj + 1, sizeof(*r->deps));
	if (!r->deps)
		return -ENOMEM;
	for (i = 0; i < r->ij->nj; i++)
		if (r->ij->j[i].dep != KT_INJ_NO_DEP)
			r->deps[r->ndeps++] = i;
	if (r->ndeps > 1)
		qsort_r(r->deps, r->ndeps, sizeof(*r->deps), dep_cmp, r->ij);
	return 0;
}

static bool is_symbol(__u32 type)
{
	return type == PERF_RECORD_KSYMBOL || type == PERF_RECORD_BPF_EVENT;
}

/* File mode, pass 1: IN's symbol records, then every decision. */
static int first_pass(struct run *r)
{
	__u64 t;
	int n, err;

	while ((n = kt_perf_in_next(&r->in, r->why, r->why_size)) > 0) {
		const struct perf_event_header *h = (const void *)r->in.rec;

		if (!is_symbol(h->type))
			continue;
		if (!kt_perf_in_time(&r->in, r->in.rec, &t))
			t = 0;
		err = kt_inject_add_in(r->ij, r->in.rec, t, r->in.rec_off);
		if (err == -EINVAL) {
			snprintf(r->why, r->why_size, "%s: corrupt: the record at offset %llu",
				 r->in.what, (unsigned long long)r->in.rec_off);
			return err;
		}
		if (err)
			return fail(r, err, "inject");
	}
	if (n < 0)
		return n;
	kt_inject_in_done(r->ij);
	kt_inject_file_done(r->ij);
	err = kt_inject_decide(r->ij, ~0ULL, 0);
	if (err)
		return fail(r, err, "inject");
	if (!r->a->force && kt_inject_strangers(r->ij)) {
		snprintf(
			r->why, r->why_size,
			"%s and %s have no symbol in common: another boot? (--force to inject anyway)",
			r->a->file, r->in.what);
		return -EXDEV;
	}
	return index_deps(r);
}

/* One record of IN: what goes before it, it, what goes after it. */
static int copy_record(struct run *r)
{
	const struct perf_event_header *h = (const void *)r->in.rec;
	__u64 t;
	int err;

	if (h->type == KT_PI_FINISHED_ROUND) {
		if (!r->checked && (err = check_origin(r)))
			return err;
		if (r->in.pipe && (err = kt_inject_decide(r->ij, r->marker_seen ? r->prev_max : 0,
							  r->in.rec_off)))
			return fail(r, err, "inject");
		err = emit_due(r, r->marker_seen ? r->prev_max : 0);
		if (err)
			return err;
		r->prev_max = r->cur_max;
		r->marker_seen = true;
	}
	err = w_put(&r->w, r->in.rec, r->in.rec_len);
	if (err)
		return err;
	if (!kt_perf_in_time(&r->in, r->in.rec, &t))
		t = 0;
	else if (t > r->cur_max)
		r->cur_max = t;
	if (r->in.pipe && is_symbol(h->type)) {
		err = kt_inject_add_in(r->ij, r->in.rec, t, r->in.rec_off);
		if (err == -ENOMEM)
			return fail(r, err, "inject");
	}
	if (h->type >= KT_PI_HEADER_ATTR || !r->track)
		r->track = kt_perf_in_tracking_attr(&r->in);
	return r->ndeps ? emit_after(r, r->in.rec_off) : 0;
}

static int copy_data(struct run *r)
{
	int n, err;

	while ((n = kt_perf_in_next(&r->in, r->why, r->why_size)) > 0) {
		err = copy_record(r);
		if (err)
			return err;
	}
	if (n < 0)
		return n;
	if (!r->checked && (err = check_origin(r)))
		return err;
	if (r->in.pipe && (err = kt_inject_decide(r->ij, ~0ULL, r->in.pos)))
		return fail(r, err, "inject");
	if (!r->track)
		r->track = kt_perf_in_tracking_attr(&r->in);
	if (!r->track) {
		snprintf(r->why, r->why_size, "%s: no event attr at all: corrupt", r->in.what);
		return -EINVAL;
	}
	return emit_due(r, ~0ULL);
}

static int copy_range(struct run *r, __u64 from, __u64 to)
{
	unsigned char buf[65536];
	int err;

	while (from < to) {
		size_t n = to - from < sizeof(buf) ? to - from : sizeof(buf);
		ssize_t got = pread(r->in.fd, buf, n, from);

		if (got <= 0)
			return got < 0 ? -errno : -EPROTO;
		err = w_put(&r->w, buf, got);
		if (err)
			return err;
		from += got;
	}
	return 0;
}

/* IN's features, and the two of the code archive where FILE adds to them
 * (inject_code.h), in bit order: each one's bit, IN's section (size 0: IN
 * has none) and its size in OUT. */
struct feat {
	int bit;
	struct kt_pi_section in;
	__u64 size;
};

static int plan_features(struct run *r, struct feat *f)
{
	struct kt_pi_section sec[KT_PI_FEAT_BITS];
	int bits[KT_PI_FEAT_BITS], nf, i, n = 0, k;
	bool have[2] = { false, false };

	nf = kt_perf_in_features(&r->in, sec, bits, KT_PI_FEAT_BITS, r->why, r->why_size);
	if (nf < 0)
		return nf;
	for (i = 0; i <= nf; i++) {
		/* FILE's features IN lacks go in their place in bit order. */
		for (k = 0; k < 2; k++) {
			int bit = k ? KT_HEADER_BPF_BTF : KT_HEADER_BPF_PROG_INFO;

			if (r->code.nadd[k] && !have[k] && (i == nf || bits[i] > bit)) {
				f[n].bit = bit;
				memset(&f[n].in, 0, sizeof(f[n].in));
				f[n++].size = 4 + r->code.add_len[k];
				have[k] = true;
			}
		}
		if (i == nf)
			break;
		f[n].bit = bits[i];
		f[n].in = sec[i];
		f[n].size = sec[i].size;
		k = kt_inject_code_feat(bits[i]);
		if (k >= 0 && r->code.nadd[k]) {
			have[k] = true;
			if (sec[i].size < 4)
				f[n].size = 4;
			f[n].size += r->code.add_len[k];
		}
		n++;
	}
	return n;
}

/* One feature's body: IN's, or for the archive's IN's count raised, IN's
 * entries and FILE's. */
static int write_feature(struct run *r, const struct feat *f)
{
	int k = kt_inject_code_feat(f->bit);
	__u32 count = 0;
	int err;

	if (k < 0 || !r->code.nadd[k])
		return copy_range(r, f->in.offset, f->in.offset + f->in.size);
	if (f->in.size >= 4 && kt_pread_all(r->in.fd, &count, 4, f->in.offset))
		return -EPROTO;
	count += r->code.nadd[k];
	err = w_put(&r->w, &count, 4);
	if (!err && f->in.size > 4)
		err = copy_range(r, f->in.offset + 4, f->in.offset + f->in.size);
	if (!err)
		err = w_put(&r->w, r->code.add[k], r->code.add_len[k]);
	return err;
}

/* File mode: the header and attrs as they are, the data, then the feature
 * table with its offsets moved by what was added, then the features. */
static int write_file(struct run *r)
{
	struct feat f[KT_PI_FEAT_BITS + 2];
	struct kt_pi_section out;
	struct kt_pi_file_header h = r->in.hdr;
	__u64 at;
	int nf, i, err;

	err = copy_range(r, 0, h.data.offset);
	if (!err)
		err = copy_data(r);
	if (err)
		return err;
	h.data.size = r->w.written - h.data.offset;
	nf = plan_features(r, f);
	if (nf < 0)
		return nf;
	at = r->w.written + nf * sizeof(out);
	for (i = 0; !err && i < nf; i++) {
		out.offset = at;
		out.size = f[i].size;
		at += f[i].size;
		h.adds_features[f[i].bit / 64] |= 1ULL << (f[i].bit % 64);
		err = w_put(&r->w, &out, sizeof(out));
	}
	for (i = 0; !err && i < nf; i++)
		err = write_feature(r, &f[i]);
	if (!err)
		err = w_flush(&r->w);
	if (err)
		return err;
	if (pwrite(r->w.fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return r->w.err = -EIO;
	return 0;
}

static int open_in(struct run *r)
{
	int fd = 0;

	if (strcmp(r->a->in, "-")) {
		fd = open(r->a->in, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(r, -errno, r->a->in);
	}
	return kt_perf_in_open(&r->in, fd, strcmp(r->a->in, "-") ? r->a->in : "stdin",
			       fd ? KT_PI_FILE : KT_PI_PIPE, r->why, r->why_size);
}

static void close_in(struct run *r)
{
	int fd = r->in.fd;

	kt_perf_in_close(&r->in);
	if (fd > 0)
		close(fd);
}

/* OUT: a temporary file beside it, renamed over it at the end; "-": stdout. */
static int open_out(struct run *r, char *tmp, size_t tmp_size)
{
	if (!strcmp(r->a->out, "-")) {
		r->w.fd = STDOUT_FILENO;
		return 0;
	}
	snprintf(tmp, tmp_size, "%s.XXXXXX", r->a->out);
	r->w.fd = mkstemp(tmp);
	if (r->w.fd < 0) {
		tmp[0] = 0;
		return fail(r, -errno, r->a->out);
	}
	return 0;
}

int kt_inject_run(struct kt_inject_args *a, struct kt_inject *ij, char *why, size_t why_size)
{
	struct run r = { .a = a, .ij = ij, .why = why, .why_size = why_size };
	char tmp[4096] = "";
	int err;

	r.w.fd = -1;
	r.w.buf = malloc(OUT_BUF_CAP);
	if (!r.w.buf)
		return fail(&r, -ENOMEM, "inject");
	err = load_file(&r);
	if (!err)
		err = open_in(&r);
	if (!err && !r.in.pipe) {
		err = check_origin(&r);
		if (!err)
			err = first_pass(&r);
		if (!err)
			err = kt_inject_code_load(&r.code, a->file, a->in, why, why_size);
		if (!err) {
			close_in(&r);
			err = open_in(&r);
		}
	}
	if (!err)
		err = open_out(&r, tmp, sizeof(tmp));
	if (!err && r.in.pipe) {
		static const __u64 head[2] = { KT_PI_MAGIC, 16 };

		err = w_put(&r.w, head, sizeof(head));
		if (!err)
			err = copy_data(&r);
		if (!err)
			err = w_flush(&r.w);
	} else if (!err) {
		err = write_file(&r);
	}
	if (err && r.w.err == err && !why[0])
		fail(&r, err, strcmp(a->out, "-") ? a->out : "stdout");
	if (!err && tmp[0] && (fchmod(r.w.fd, 0600) || fsync(r.w.fd) || rename(tmp, a->out)))
		err = fail(&r, -errno, a->out);
	if (err && tmp[0])
		unlink(tmp);
	if (r.w.fd > STDOUT_FILENO)
		close(r.w.fd);
	a->emitted = r.emitted;
	a->code_progs = r.code.nadd[0];
	a->code_btfs = r.code.nadd[1];
	kt_inject_code_fini(&r.code);
	close_in(&r);
	free(r.deps);
	free(r.w.buf);
	return err;
}
