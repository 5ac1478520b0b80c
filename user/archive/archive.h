/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The code archive (issue 32): what each BPF program was, kept after it is
 * gone.  A program is captured from bpf_prog_info by id as soon as its load
 * is seen, in perf's "bpf_prog_info_linear" form (tools/perf/util/
 * bpf-utils.h, struct perf_bpil: the info, then its arrays, the arrays'
 * pointers as offsets into them), with its BTF once per BTF object; perf's
 * header.c reads both back from perf.data's HEADER_BPF_PROG_INFO (25) and
 * HEADER_BPF_BTF (26) features.  The layout is in docs/formats.md.
 */
#ifndef KT_ARCHIVE_H
#define KT_ARCHIVE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "ksymtap.h"
#include "archive/kcore.h"
#include "archive/stage.h"
#include "util/htab.h"

/* perf's feature numbers (tools/perf/util/header.h). */
#define KT_HEADER_BPF_PROG_INFO 25
#define KT_HEADER_BPF_BTF 26

/* One program: perf_bpil exactly as it goes to the file. */
struct kt_bpil {
	struct kt_hnode node; /* key: the program id */
	__u32 id;
	__u32 btf_id;
	/* Its PROG_LOAD and PROG_UNLOAD on perf's clock, where known (0:
	 * not seen); which of the programs that had an address held it when. */
	__u64 loaded, unloaded;
	size_t size; /* of blob */
	unsigned char *blob; /* info_len, data_len, arrays, info, data */
};

struct kt_btf_blob {
	__u32 id;
	__u32 size;
	unsigned char *data;
};

/* Code without a bpf_prog_info, as it was when it registered. */
struct kt_text {
	__u64 addr, time;
	__u64 death; /* its symbol's unregister (serve); 0: alive, or not known */
	__u32 len;
	unsigned char *bytes;
};

/* Zeroed to start. */
struct kt_archive {
	struct kt_htab progs; /* struct kt_bpil */
	struct kt_btf_blob *btfs;
	size_t nbtfs, cap_btfs;
	size_t bytes; /* memory the blobs hold */
	/* Programs unloaded without their code held (read too late, and not
	 * copied by the BPF side at their unload either: kt_archive_life());
	 * programs read too late whose copy at unload the archive holds. */
	unsigned long long gone, caught;
	/* The PROG_LOAD times of the last programs not held at their load,
	 * for a copy claimed at their unload (a ring, by id). */
	struct {
		__u32 id;
		__u64 t;
	} late[64];
	unsigned int nlate;
	/* The BPF side's copies at unload, and its code_have map (NULL: no
	 * such copies: native backend, or a file read back). */
	struct kt_code_stage *stage;
	unsigned long long failed; /* other failures to read one */
	/* Code without a bpf_prog_info (trampolines, dispatchers, ftrace
	 * trampolines, kprobe pages): read from /proc/kcore as it registers. */
	struct kt_kcore *kcore;
	int kcore_err; /* why /proc/kcore cannot be read: sticky */
	unsigned long long texts, texts_failed;
	unsigned long long texts_gone; /* unregistered before they were read */
	struct kt_text *text; /* read back (kt_archive_add_text), in file order */
	size_t ntext, cap_text;
	size_t dead; /* programs with an unload time */
	size_t dead_texts; /* texts with a death */
	__u64 oldest_death; /* of both, the earliest (0: none) */
	unsigned long long evicted; /* dropped by kt_archive_trim() */
};

/*
 * Capture program id (and its BTF) unless already held.  0 when captured or
 * held; -ENOENT when the program is already gone (counted in gone at its
 * unload, unless the BPF side's copy comes); another -errno on failure
 * (counted in failed).
 */
int kt_archive_add_prog(struct kt_archive *a, __u32 id);
/*
 * A BPF_PROG unregister with a copy of its program's code (kt_record.
 * code_seq), of program id: the archive holds the copy from now on, unless
 * it read the program itself (then only the BTF it may lack).
 */
void kt_archive_claim(struct kt_archive *a, __u64 seq, __u32 id);
struct kt_record;
/*
 * A live record, as record's and serve's archives follow them: a PROG_LOAD
 * reads the program (kt_archive_add_prog()) and, with a PROG_UNLOAD, marks
 * its life (kt_archive_life()); an unregister carrying the BPF side's copy
 * hands it over (kt_archive_claim()).
 */
void kt_archive_follow(struct kt_archive *a, const struct kt_record *r);
/* The largest code read whole from /proc/kcore (a page: kprobe pages, and
 * trampolines before 6.12 name one): a TEXT_POKE record is at most 64 KiB. */
#define KT_ARCHIVE_TEXT_MAX 65472
/* len bytes of kernel code at addr from /proc/kcore into buf (opened at the
 * first call; counted in texts or texts_failed).  0 or -errno. */
int kt_archive_read_text(struct kt_archive *a, __u64 addr, __u32 len, unsigned char *buf);
/* Hold a copy of code read back (a TEXT_POKE record): 0 or -ENOMEM. */
int kt_archive_add_text(struct kt_archive *a, __u64 addr, __u64 time, const void *bytes, __u32 len);
/* A program's PROG_LOAD (unload false) or PROG_UNLOAD at time t, if held;
 * an unload of a program not held counts in gone. */
void kt_archive_life(struct kt_archive *a, __u32 id, __u64 t, bool unload);
/* Drop unloaded programs and dead code's bytes, those gone first, while
 * more than max_dead are kept, the oldest went before min_death (serve's
 * --history and --history-age) or the archive holds more than max_bytes
 * (--code-size), and the BTF objects no program kept needs.  Loaded
 * programs and live code always stay. */
void kt_archive_trim(struct kt_archive *a, size_t max_dead, __u64 min_death, size_t max_bytes);
/* The code whose bytes are held at addr (kt_archive_add_text) died at t. */
void kt_archive_text_died(struct kt_archive *a, __u64 addr, __u64 t);
/* Code whose bytes are read from /proc/kcore: not a program's. */
static inline bool kt_archive_is_text(unsigned int source)
{
	return source == KT_SRC_BPF_IMAGE || source == KT_SRC_FTRACE || source == KT_SRC_KPROBE;
}
const struct kt_bpil *kt_archive_prog(const struct kt_archive *a, __u32 id);
/* The two features' bodies, as perf's write_bpf_prog_info() and
 * write_bpf_btf() write them: u32 count, then each.  Returns the size, or
 * with out NULL the size needed. */
size_t kt_archive_feat_prog_info(const struct kt_archive *a, unsigned char *out);
size_t kt_archive_feat_btf(const struct kt_archive *a, unsigned char *out);
/*
 * The two features' bodies read back, from a perf.data of ksymtap's or of
 * perf's own: each program and BTF object not yet held is added.  0, or
 * -EINVAL (-ENOMEM) with why naming the entry.
 */
int kt_archive_read_prog_info(struct kt_archive *a, const unsigned char *buf, size_t len, char *why,
			      size_t why_size);
int kt_archive_read_btf(struct kt_archive *a, const unsigned char *buf, size_t len, char *why,
			size_t why_size);
const struct kt_btf_blob *kt_archive_btf(const struct kt_archive *a, __u32 id);
/* Program id of src (with its times and its BTF) into dst.  0, -ENOENT
 * when src does not hold it, -ENOMEM. */
int kt_archive_copy_prog(struct kt_archive *dst, const struct kt_archive *src, __u32 id);
void kt_archive_free(struct kt_archive *a);

#endif
