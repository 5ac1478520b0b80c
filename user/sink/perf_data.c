// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perf.data as perf 6.1 reads it (tools/perf/util/header.c, session.c; facts
 * checked by hand in ../shared/PERF-DATA-FACTS.md, layout in docs/formats.md).
 *
 * Crash safety is the point of the write path: only whole records are ever
 * handed to write(2), the file-mode header is re-patched right after every
 * write so data.size covers the whole records on disk (between a write and
 * its patch, the ones before that write), and a failed or
 * short write is cut back to the last whole record.  A reader therefore never
 * sees half a record, whether ksymtap exits, is killed, or runs out of disk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "util/clock.h"
#include "encode/encode.h"
#include "util/log.h"
#include "sink/perf_data.h"

#define PD_MAGIC 0x32454c4946524550ULL /* "PERFILE2" */
#define PD_BUF_CAP (256 * 1024)

_Static_assert(sizeof(struct perf_event_attr) >= KT_PD_ATTR_SIZE, "uapi perf_event_attr too old");

struct pd_section {
	__u64 offset, size;
};

/* tools/perf/util/header.h: struct perf_file_header. */
struct pd_file_header {
	__u64 magic;
	__u64 size;
	__u64 attr_size;
	struct pd_section attrs, data, event_types;
	__u64 adds_features[4];
};
_Static_assert(sizeof(struct pd_file_header) == KT_PD_HEADER_SIZE, "perf_file_header");

struct kt_pd_comm {
	__u32 tid; /* 0: free slot (tid 0 never gets a COMM: it is the idle task) */
	char comm[KT_COMM_LEN];
};

static void pd_attr(unsigned char out[KT_PD_ATTR_SIZE])
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = KT_PD_ATTR_SIZE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.sample_id_all = 1;
	a.ksymbol = 1;
	a.bpf_event = 1;
	/* The file carries PERF_RECORD_COMM for the tasks it names. */
	a.comm = 1;
	memcpy(out, &a, KT_PD_ATTR_SIZE);
}

static void pd_file_header(struct pd_file_header *h, __u64 data_size, __u64 features)
{
	memset(h, 0, sizeof(*h));
	h->magic = PD_MAGIC;
	h->size = KT_PD_HEADER_SIZE;
	h->attr_size = KT_PD_ATTR_SIZE + sizeof(struct pd_section);
	h->attrs.offset = KT_PD_ATTRS_OFFSET;
	h->attrs.size = h->attr_size;
	h->data.offset = KT_PD_DATA_OFFSET;
	h->data.size = data_size;
	h->adds_features[0] = features;
}

/* write(2) until done or an error; *done says how much went out either way. */
static int write_some(int fd, const void *data, size_t len, size_t *done)
{
	const unsigned char *p = data;
	ssize_t n;

	*done = 0;
	while (*done < len) {
		n = write(fd, p + *done, len - *done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		*done += n;
	}
	return 0;
}

static int patch_header(struct kt_perf_data *pd)
{
	struct pd_file_header h;
	ssize_t n;

	if (pd->pipe || pd->patched_size == pd->data_size)
		return 0;
	pd_file_header(&h, pd->data_size, 0);
	/* The header's blocks were allocated by the first write: this cannot
	 * run out of space. */
	n = pwrite(pd->fd, &h, sizeof(h), 0);
	if (n != (ssize_t)sizeof(h))
		return n < 0 ? -errno : -EIO;
	pd->patched_size = pd->data_size;
	return 0;
}

static bool is_symbol_record(__u32 type)
{
	return type == PERF_RECORD_KSYMBOL || type == PERF_RECORD_BPF_EVENT ||
	       type == PERF_RECORD_LOST;
}

/* Length of the whole records in buf[0, n); counts the symbol records among
 * them into *records. */
static size_t whole_records(const unsigned char *buf, size_t n, unsigned long long *records)
{
	struct perf_event_header h;
	size_t off = 0;

	while (off + sizeof(h) <= n) {
		memcpy(&h, buf + off, sizeof(h));
		if (!h.size || off + h.size > n)
			break;
		*records += is_symbol_record(h.type);
		off += h.size;
	}
	return off;
}

/*
 * Write the buffer.  On failure keep only the whole records that made it:
 * cut the file back (a regular file) and let the header cover exactly them.
 */
static int write_buf(struct kt_perf_data *pd)
{
	size_t done, whole;
	int err;

	if (!pd->len)
		return 0;
	err = write_some(pd->fd, pd->buf, pd->len, &done);
	whole = whole_records(pd->buf, done, &pd->records);
	if (!err) {
		pd->data_size += pd->len;
		pd->len = 0;
		/* Every write, also one made because the buffer filled up. */
		return patch_header(pd);
	}
	if (whole != done && pd->truncatable &&
	    ftruncate(pd->fd, pd->data_offset + pd->data_size + whole))
		kt_debug("%s: cutting back a partial record: %s", pd->what, strerror(errno));
	pd->data_size += whole;
	pd->len = 0;
	pd->err = err;
	patch_header(pd);
	return err;
}

/* Move one encoded record into the write buffer, writing first if full. */
static int put(struct kt_perf_data *pd, const void *data, size_t len)
{
	int err;

	if (pd->cap - pd->len < len) {
		err = write_buf(pd);
		if (err)
			return err;
	}
	if (len > pd->cap)
		return -E2BIG;
	memcpy(pd->buf + pd->len, data, len);
	pd->len += len;
	return 0;
}

/*
 * Round markers let perf deliver live data from a pipe before EOF: at each
 * FINISHED_ROUND perf flushes what the previous round queued
 * (ordered_events.c, OE_FLUSH__ROUND), so two in a row flush all of it.  Our
 * output is already sorted, so every round boundary is true.
 */
static int put_rounds(struct kt_perf_data *pd)
{
	struct perf_event_header h = {
		.type = KT_PERF_RECORD_FINISHED_ROUND,
		.size = sizeof(h),
	};
	int err;

	err = put(pd, &h, sizeof(h));
	return err ? err : put(pd, &h, sizeof(h));
}

/* A TEXT_POKE whose bytes are still to be read (push_text): old_len, which
 * ours always have 0, says so until then. */
#define PD_TEXT_PENDING 0xffff
/* ... or that its code went before they could be: it is left out. */
#define PD_TEXT_GONE 0xfffe

/* A pending TEXT_POKE as it leaves: its bytes read now, or 1 to leave it
 * out when they cannot be (counted in the archive's texts_failed) or the
 * code went first (texts_gone). */
static int fill_text(struct kt_perf_data *pd, const struct kt_reorder_ent *e)
{
	struct perf_event_header h;
	__u16 old_len, new_len;
	__u64 addr;

	if (e->len < 20)
		return 0;
	memcpy(&h, e->data, sizeof(h));
	memcpy(&old_len, e->data + 16, 2);
	if (h.type != PERF_RECORD_TEXT_POKE ||
	    (old_len != PD_TEXT_PENDING && old_len != PD_TEXT_GONE))
		return 0;
	if (old_len == PD_TEXT_GONE) {
		pd->archive->texts_gone++;
		return 1;
	}
	memcpy(&addr, e->data + 8, 8);
	memcpy(&new_len, e->data + 18, 2);
	old_len = 0;
	memcpy(e->data + 16, &old_len, 2);
	return kt_archive_read_text(pd->archive, addr, new_len, e->data + 20) ? 1 : 0;
}

int kt_perf_data_flush(struct kt_perf_data *pd, bool all)
{
	const struct kt_reorder_ent *e;
	__u64 now = pd->now();
	bool wrote = false;
	int err;

	if (pd->err)
		return pd->err;
	while ((e = kt_reorder_peek(&pd->q, now, all))) {
		if (fill_text(pd, e)) {
			kt_reorder_pop(&pd->q);
			continue;
		}
		err = put(pd, e->data, e->len);
		if (err)
			return pd->err = err;
		kt_reorder_pop(&pd->q);
		wrote = true;
	}
	if (wrote && pd->pipe) {
		err = put_rounds(pd);
		if (err)
			return pd->err = err;
	}
	err = write_buf(pd);
	if (!err)
		err = patch_header(pd);
	if (err)
		pd->err = err;
	return err;
}

static struct kt_pd_comm *comm_slot(struct kt_perf_data *pd, __u32 tid)
{
	size_t i, mask = pd->comm_cap - 1;

	for (i = (tid * 2654435761u) & mask;; i = (i + 1) & mask)
		if (pd->comm_tab[i].tid == tid || !pd->comm_tab[i].tid)
			return &pd->comm_tab[i];
}

static int comm_grow(struct kt_perf_data *pd)
{
	struct kt_pd_comm *old = pd->comm_tab, *s;
	size_t i, old_cap = pd->comm_cap;

	pd->comm_cap = old_cap ? old_cap * 2 : 64;
	pd->comm_tab = calloc(pd->comm_cap, sizeof(*pd->comm_tab));
	if (!pd->comm_tab) {
		pd->comm_tab = old;
		pd->comm_cap = old_cap;
		return -ENOMEM;
	}
	for (i = 0; i < old_cap; i++) {
		if (!old[i].tid)
			continue;
		s = comm_slot(pd, old[i].tid);
		*s = old[i];
	}
	free(old);
	return 0;
}

/*
 * perf names a task from PERF_RECORD_COMM only (perf record synthesizes them
 * at start-up); without one `perf script` prints ":PID" where ksymtap knows the
 * command.  So announce each task's comm once, and again if it changes, just
 * before its first record (same time: ties keep push order).
 */
static int maybe_comm(struct kt_perf_data *pd, const struct kt_record *r)
{
	unsigned char rec[64];
	struct kt_pd_comm *s;
	ssize_t n;
	int err;

	if (r->rflags & (KT_RF_SNAPSHOT | KT_RF_NO_TASK) || !r->tid || !r->comm[0])
		return 0;
	if (pd->comm_n * 2 >= pd->comm_cap && (err = comm_grow(pd)))
		return err;
	s = comm_slot(pd, r->tid);
	if (s->tid && !strncmp(s->comm, r->comm, KT_COMM_LEN))
		return 0;
	n = kt_encode_perf_comm(r, rec, sizeof(rec));
	if (n < 0)
		return (int)n;
	err = kt_reorder_push(&pd->q, r->time, pd->now(), rec, n);
	if (err)
		return err;
	if (!s->tid)
		pd->comm_n++;
	s->tid = r->tid;
	memcpy(s->comm, r->comm, KT_COMM_LEN);
	return 0;
}

int kt_perf_data_text(struct kt_perf_data *pd, const struct kt_record *r, const void *bytes,
		      __u32 len)
{
	__u64 time = r->rflags & KT_RF_SNAPSHOT ? 0 : r->time;
	unsigned char *rec = malloc(len + 64);
	ssize_t n;
	int err;

	if (!rec)
		return -ENOMEM;
	n = kt_encode_perf_text_poke(r, bytes, len, rec, len + 64);
	err = n < 0 ? (int)n : kt_reorder_push(&pd->q, time, pd->now(), rec, n);
	free(rec);
	return err;
}

/* Code unregistered before its held TEXT_POKE was filled: its bytes would
 * be whatever took its place (a trampoline that lived less than the
 * reorder window). */
static void text_gone(struct kt_perf_data *pd, __u64 addr, __u64 time)
{
	__u16 old_len, gone = PD_TEXT_GONE;
	struct perf_event_header h;
	__u64 a;
	size_t i;

	for (i = pd->q.head; i < pd->q.head + pd->q.n; i++) {
		unsigned char *d = pd->q.ents[i].data;

		if (pd->q.ents[i].len < 20)
			continue;
		memcpy(&h, d, sizeof(h));
		memcpy(&a, d + 8, 8);
		memcpy(&old_len, d + 16, 2);
		/* Only what registered before it (an older code's unregister
		 * can come after the next one's register, from another CPU). */
		if (h.type == PERF_RECORD_TEXT_POKE && a == addr && old_len == PD_TEXT_PENDING &&
		    pd->q.ents[i].time <= time)
			memcpy(d + 16, &gone, 2);
	}
}

/* Code without a bpf_prog_info (trampolines, dispatchers, struct_ops,
 * ftrace trampolines, kprobe pages): a PERF_RECORD_TEXT_POKE behind its
 * register, its bytes read from /proc/kcore when it leaves the reorder
 * queue (fill_text): the kernel registers such code before it writes it
 * (bpf_tramp_image_alloc() adds the ksym, arch_prepare_bpf_trampoline()
 * writes after; arm64 guests showed the BRK fill when read at once). */
static int push_text(struct kt_perf_data *pd, const struct kt_record *r)
{
	__u64 time = r->rflags & KT_RF_SNAPSHOT ? 0 : r->time;
	__u16 pending = PD_TEXT_PENDING;
	unsigned char *rec;
	ssize_t n;
	int err;

	if (!pd->archive || !pd->texts || r->type != KT_RECORD_KSYMBOL ||
	    !kt_archive_is_text(r->source) || !r->len || r->len > KT_ARCHIVE_TEXT_MAX)
		return 0;
	if (r->flags & KT_KSYM_FLAG_UNREGISTER) {
		text_gone(pd, r->addr, time);
		return 0;
	}
	rec = malloc(r->len + 64);
	if (!rec)
		return -ENOMEM;
	n = kt_encode_perf_text_poke(r, NULL, r->len, rec, r->len + 64);
	if (n > 0)
		memcpy(rec + 16, &pending, 2);
	err = n < 0 ? (int)n : kt_reorder_push(&pd->q, time, pd->now(), rec, n);
	free(rec);
	return err;
}

int kt_perf_data_record(struct kt_perf_data *pd, const struct kt_record *r)
{
	unsigned char rec[KT_ENCODE_MAX];
	__u64 time = r->rflags & KT_RF_SNAPSHOT ? 0 : r->time;
	ssize_t n;
	int err;

	if (pd->err)
		return pd->err;
	n = kt_encode_perf(r, rec, sizeof(rec));
	if (n < 0)
		return (int)n;
	/* At once, as perf's side-band thread does: a program gone by now is
	 * counted (kt_archive.gone), its symbols still written. */
	if (pd->archive)
		kt_archive_follow(pd->archive, r);
	err = maybe_comm(pd, r);
	if (!err)
		err = kt_reorder_push(&pd->q, time, pd->now(), rec, n);
	if (!err)
		err = push_text(pd, r);
	if (err)
		return err;
	/* A burst bigger than the queue bound goes out now, oldest first. */
	if (pd->q.n > pd->q.max)
		return kt_perf_data_flush(pd, false);
	return 0;
}

static int sink_error(struct kt_perf_data *pd, int err)
{
	return kt_sink_fail(&pd->sink, err, "writing %s: %s (after %llu records)", pd->what,
			    strerror(-err), pd->records);
}

static int sink_record(struct kt_sink *s, const struct kt_record *r)
{
	int err = kt_perf_data_record((struct kt_perf_data *)s, r);

	return err ? sink_error((struct kt_perf_data *)s, err) : 0;
}

static int sink_flush(struct kt_sink *s)
{
	int err = kt_perf_data_flush((struct kt_perf_data *)s, false);

	return err ? sink_error((struct kt_perf_data *)s, err) : 0;
}

/* Records held for order leave once their window passed. */
static __u64 sink_wake(struct kt_sink *s)
{
	struct kt_perf_data *pd = (struct kt_perf_data *)s;

	return pd->err ? 0 : kt_reorder_wake(&pd->q);
}

static int write_preamble(struct kt_perf_data *pd)
{
	unsigned char pre[KT_PD_DATA_OFFSET], *p;
	struct perf_event_header h;
	struct pd_file_header fh;
	struct pd_section ids = { .offset = KT_PD_IDS_OFFSET, .size = 8 };
	__u64 id = KT_PD_ID, pipe_hdr[2] = { PD_MAGIC, KT_PD_PIPE_HEADER_SIZE };
	size_t done;
	int err;

	if (pd->pipe) {
		/* The attr travels as a PERF_RECORD_HEADER_ATTR: attr, then ids. */
		h = (struct perf_event_header){
			.type = KT_PERF_RECORD_HEADER_ATTR,
			.size = sizeof(h) + KT_PD_ATTR_SIZE + 8,
		};
		p = pre;
		memcpy(p, pipe_hdr, sizeof(pipe_hdr));
		p += sizeof(pipe_hdr);
		memcpy(p, &h, sizeof(h));
		pd_attr(p + sizeof(h));
		memcpy(p + sizeof(h) + KT_PD_ATTR_SIZE, &id, 8);
		pd->data_offset = KT_PD_PIPE_HEADER_SIZE;
		err = write_some(pd->fd, pre, sizeof(pipe_hdr) + h.size, &done);
		if (!err)
			pd->data_size = h.size;
		return err;
	}
	/* perf record's order: header, ids, attrs, data (data.size 0 until the
	 * first patch: perf then reads nothing, which is the truth). */
	memset(pre, 0, sizeof(pre));
	pd_file_header(&fh, 0, 0);
	memcpy(pre, &fh, sizeof(fh));
	memcpy(pre + KT_PD_IDS_OFFSET, &id, 8);
	pd_attr(pre + KT_PD_ATTRS_OFFSET);
	memcpy(pre + KT_PD_ATTRS_OFFSET + KT_PD_ATTR_SIZE, &ids, sizeof(ids));
	pd->data_offset = KT_PD_DATA_OFFSET;
	return write_some(pd->fd, pre, sizeof(pre), &done);
}

int kt_perf_data_open(struct kt_perf_data *pd, int fd, bool pipe, const char *what)
{
	struct stat st;
	int err;

	memset(pd, 0, sizeof(*pd));
	pd->sink.name = what;
	pd->sink.record = sink_record;
	pd->sink.flush = sink_flush;
	pd->sink.wake_ns = sink_wake;
	pd->fd = fd;
	pd->what = what;
	pd->pipe = pipe;
	pd->now = kt_monotonic_ns;
	pd->truncatable = !fstat(fd, &st) && S_ISREG(st.st_mode);
	pd->cap = PD_BUF_CAP;
	pd->buf = malloc(pd->cap);
	if (!pd->buf)
		return -ENOMEM;
	kt_reorder_init(&pd->q, KT_PD_WINDOW_NS, KT_PD_MAX_HELD);
	if (!pipe) {
		/* The header is patched at offset 0: start there. */
		if (lseek(fd, 0, SEEK_SET) < 0 || (pd->truncatable && ftruncate(fd, 0))) {
			err = -errno;
			goto fail;
		}
	}
	err = write_preamble(pd);
	if (err)
		goto fail;
	return 0;
fail:
	free(pd->buf);
	pd->buf = NULL;
	kt_reorder_fini(&pd->q);
	return err;
}

/* perf's do_write_string(): u32 len (the string's NUL-padded size, a multiple
 * of 64), then the string. */
static size_t feat_string(unsigned char *out, const char *s)
{
	__u32 len = (strlen(s) + 1 + 63) & ~63U;

	memcpy(out, &len, 4);
	memset(out + 4, 0, len);
	memcpy(out + 4, s, strlen(s));
	return 4 + len;
}

/*
 * At the end, after the data, the features HEADER_HOSTNAME (3),
 * HEADER_OSRELEASE (4) and HEADER_ARCH (6), as perf record writes them:
 * `ksymtap inject` refuses a record file from another host or kernel by
 * them, `ksymtap disasm` decodes the code for that arch; with an archive, its
 * HEADER_BPF_PROG_INFO (25) and HEADER_BPF_BTF (26).  Sections in feature
 * order, each's offset and size in the table before them (perf's
 * perf_header__adds_write()).  A failure leaves the file as it was (data,
 * no features).
 */
static int write_features(struct kt_perf_data *pd)
{
	const struct kt_archive *a = pd->archive;
	bool code = a && a->progs.n;
	int nsec = code ? 5 : 3, i = 0;
	struct pd_section sec[5];
	struct pd_file_header h;
	struct utsname u;
	__u64 end = pd->data_offset + pd->data_size, features = 1ULL << 3 | 1ULL << 4 | 1ULL << 6;
	size_t n = nsec * sizeof(sec[0]), cap;
	unsigned char *buf;
	ssize_t w;

	if (pd->pipe || uname(&u))
		return 0;
	cap = n + 3 * (4 + sizeof(u.release) + 64);
	if (code)
		cap += kt_archive_feat_prog_info(a, NULL) + kt_archive_feat_btf(a, NULL);
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	sec[i].offset = end + n;
	sec[i].size = feat_string(buf + n, u.nodename);
	n += sec[i++].size;
	sec[i].offset = end + n;
	sec[i].size = feat_string(buf + n, u.release);
	n += sec[i++].size;
	sec[i].offset = end + n;
	sec[i].size = feat_string(buf + n, u.machine);
	n += sec[i++].size;
	if (code) {
		sec[i].offset = end + n;
		sec[i].size = kt_archive_feat_prog_info(a, buf + n);
		n += sec[i++].size;
		sec[i].offset = end + n;
		sec[i].size = kt_archive_feat_btf(a, buf + n);
		n += sec[i++].size;
		features |= 1ULL << KT_HEADER_BPF_PROG_INFO | 1ULL << KT_HEADER_BPF_BTF;
	}
	memcpy(buf, sec, nsec * sizeof(sec[0]));
	w = pwrite(pd->fd, buf, n, end);
	free(buf);
	if (w != (ssize_t)n) {
		int err = w < 0 ? -errno : -ENOSPC;

		/* Cut back what went out; the header never said it was there. */
		if (pd->truncatable && ftruncate(pd->fd, end))
			kt_warn("%s: cannot cut back a partial feature section: %s", pd->what,
				strerror(errno));
		return err;
	}
	pd_file_header(&h, pd->data_size, features);
	if (pwrite(pd->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -EIO;
	return 0;
}

int kt_perf_data_close(struct kt_perf_data *pd)
{
	int err = pd->err;

	if (!err)
		err = kt_perf_data_flush(pd, true);
	if (!err)
		err = write_features(pd);
	if (pd->q.late)
		kt_warn("%llu record(s) arrived more than %llu ms late and are out of time order "
			"in %s",
			pd->q.late, (unsigned long long)(KT_PD_WINDOW_NS / 1000000), pd->what);
	kt_reorder_fini(&pd->q);
	free(pd->buf);
	pd->buf = NULL;
	free(pd->comm_tab);
	pd->comm_tab = NULL;
	return err;
}
