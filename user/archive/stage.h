/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where the BPF side's copy of a program's code (bpf/code_copy.bpf.h) waits
 * for its program's id: the reader thread assembles the copy
 * (user/backend/code_capture.c) and stages it when the program's first
 * unregister KSYMBOL passes, under a number that record carries
 * (kt_record.code_seq); the main thread claims it when that record, which
 * the symbol table gives the program's id, reaches the archive
 * (kt_archive_claim()).  Also the BPF side's code_have map, where the
 * archive says which programs it read itself.
 */
#ifndef KT_STAGE_H
#define KT_STAGE_H

#include <linux/types.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* Copies waiting at once: the reader stages a copy just before the
 * unregister that claims it, so more wait only while the main thread lags. */
#define KT_STAGE_MAX 256

struct kt_staged {
	__u64 seq; /* kt_record.code_seq */
	__u64 addr, load_time;
	unsigned char *blob; /* perf_bpil (archive/bpil.h), id 0 */
	size_t size;
	__u32 btf_id, btf_size;
	unsigned char *btf; /* NULL: none copied */
};

struct kt_code_stage {
	pthread_mutex_t lock;
	struct kt_staged e[KT_STAGE_MAX]; /* a ring: oldest at head */
	size_t head, n;
	__u64 last_seq;
	int have_fd; /* code_have, or -1 */
	/* Copies pushed out unclaimed, and copies that arrived incomplete
	 * (counted by the reader, and by the BPF side); the programs the BPF
	 * side did not copy because the ring was more than an eighth full
	 * (read when the backend closes). */
	unsigned long long unclaimed, partial, no_room;
};

void kt_stage_init(struct kt_code_stage *s);
/* Take over st's buffers; its number (st->seq), which the caller puts into
 * the unregister it goes with. */
__u64 kt_stage_put(struct kt_code_stage *s, struct kt_staged *st);
/* The copy staged under seq, if any, now the caller's. */
bool kt_stage_take(struct kt_code_stage *s, __u64 seq, struct kt_staged *out);
void kt_staged_free(struct kt_staged *st);
/* Tell the BPF side the archive read the program at addr loaded at
 * load_time: it copies nothing at its unload.  A full map only costs a copy. */
void kt_stage_have(struct kt_code_stage *s, __u64 addr, __u64 load_time);
void kt_stage_fini(struct kt_code_stage *s);

#endif
