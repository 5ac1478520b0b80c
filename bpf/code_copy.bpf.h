/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The code of a program user space never read (issue 32): it reads each
 * program's bpf_prog_info by id when the load record reaches it, but a program
 * closed within a millisecond or so is gone by then.  At the unload,
 * bpf_prog_kallsyms_del_all() runs before __bpf_prog_put_noref() drops the
 * program's BTF and before the image is freed (bpf_jit_free() comes from the
 * RCU callback), so everything bpf_prog_get_info_by_fd() would have copied is
 * still there: the images, the tags, line info with its JITed addresses, func
 * info and the BTF object's raw data (struct btf.data, as loaded).  The
 * copy goes into the events ring as KT_RECORD_CODE records (include/
 * ksymtap.h), before the program's unregister KSYMBOLs, which tell the loader
 * whose code it was (aux->id is already zero here: bpf_prog_free_id()).
 *
 * code_have, filled by the loader with the programs it read (key: the
 * program's bpf_func, value: its load_time, which tells a reused address
 * from the same program), makes this a lookup and a delete for every
 * program the loader has.  The xlated instructions are not copied: the
 * kernel rewrites them for a dump (bpf_insn_prepare_dump()) and nothing
 * ksymtap shows needs them.
 */
#ifndef KT_CODE_COPY_BPF_H
#define KT_CODE_COPY_BPF_H

/* The loader sets it for record and serve, which keep code (not --no-code). */
const volatile bool code_live = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* the loader makes it 1 without code_live */
	__type(key, u64);
	__type(value, u64);
} code_have SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KT_CODE_ST_MAX);
	__type(key, u32);
	__type(value, u64);
} code_stats SEC(".maps");

static __always_inline void code_count(u32 idx)
{
	u64 *n = bpf_map_lookup_elem(&code_stats, &idx);

	if (n)
		*n += 1;
}

static __always_inline void code_head(struct kt_code_rec *r, u64 key, u64 load_time, u32 part,
				      u32 index)
{
	r->key = key;
	r->load_time = load_time;
	r->faddr = 0;
	r->part = part;
	r->index = index;
	r->off = 0;
	r->len = 0;
	r->total = 0;
	r->pad0 = 0;
	r->pad1[0] = r->pad1[1] = r->pad1[2] = 0;
	r->record_type = KT_RECORD_CODE;
	r->pad2 = 0;
}

/* One chunk of at most ROOM bytes: reserved at that size (a constant, as
 * bpf_ringbuf_reserve() wants), filled in place.  0, or 1 if it did not
 * fit or could not be read.  Submitted (or discarded) with the events'
 * own wakeup flag: the kernel wakes the reader for the record at its
 * position only, so a chunk submitted there without a wakeup would leave
 * everything after it unread until some later wakeup. */
#define CODE_CHUNK(ROOM)                                                             \
	({                                                                           \
		struct kt_code_rec *__r;                                             \
		int __bad = 0;                                                       \
		u64 __n = n;                                                         \
		/* Clamped where the verifier sees it: clang would reuse the  \
		 * caller's 32-bit compare, whose bounds the verifier loses. */ \
		asm volatile("" : "+r"(__n));                                        \
		if (__n > (ROOM))                                                    \
			__n = (ROOM);                                                \
		__r = bpf_ringbuf_reserve(&events, sizeof(*__r) + (ROOM), 0);        \
		if (!__r) {                                                          \
			__bad = 1;                                                   \
		} else {                                                             \
			code_head(__r, key, load_time, pi & 0xff, (pi >> 8) & 0xff); \
			__r->faddr = src;                                            \
			__r->off = off;                                              \
			__r->len = __n;                                              \
			__r->total = size;                                           \
			if (bpf_probe_read_kernel(__r->data, __n, (void *)(src + off))) { \
				bpf_ringbuf_discard(__r, wakeup_flag());             \
				__bad = 1;                                           \
			} else {                                                     \
				bpf_ringbuf_submit(__r, wakeup_flag());             \
			}                                                            \
		}                                                                    \
		__bad;                                                               \
	})

/*
 * Chunk pi >> 16 of the size bytes at kernel address src, as part (pi &
 * 0xff) of function ((pi >> 8) & 0xff).  Global functions, this one and the
 * next: the verifier checks each once, with scalar arguments (5.6+), not
 * once per call and loop round (5.10's verifier, without bpf_loop(), did
 * not finish the loops inlined).  0, or 1 if it is missing.
 */
__noinline int kt_code_chunk(u64 key, u64 load_time, u32 pi, u64 src, u32 size)
{
	u32 off = (pi >> 16) * KT_CODE_CHUNK, n;

	if (off >= size)
		return 0;
	n = size - off;
	if (n <= KT_CODE_SMALL)
		return CODE_CHUNK(KT_CODE_SMALL);
	if (n <= KT_CODE_MID)
		return CODE_CHUNK(KT_CODE_MID);
	if (n <= KT_CODE_LARGE)
		return CODE_CHUNK(KT_CODE_LARGE);
	return CODE_CHUNK(KT_CODE_CHUNK);
}

/* size bytes at src, chunk by chunk: 0, or 1 if any of it is missing. */
__noinline int kt_code_part(u64 key, u64 load_time, u32 pi, u64 src, u32 size)
{
	u32 i;

	for (i = 0; i < KT_CODE_CHUNKS; i++) {
		if (i * KT_CODE_CHUNK >= size)
			return 0;
		if (kt_code_chunk(key, load_time, pi | i << 16, src, size))
			return 1;
	}
	return (u64)KT_CODE_CHUNKS * KT_CODE_CHUNK < size;
}

/* What a copy takes in the ring, near enough (a chunk's header included). */
static __always_inline u64 code_need(u64 image, u32 nfuncs, u32 nr_linfo, u32 nr_finfo,
				     u32 btf_size)
{
	u64 n = image + 24ULL * nr_linfo + 8ULL * nr_finfo + btf_size;

	return n + (n / KT_CODE_CHUNK + 8 + 2ULL * nfuncs) * (sizeof(struct kt_code_rec) + 8);
}

static __always_inline bool code_meta(u64 key, u64 load_time, const struct kt_code_meta *m,
				      u32 part, u32 index)
{
	struct kt_code_rec *r;

	r = bpf_ringbuf_reserve(&events, sizeof(*r) + sizeof(*m), 0);
	if (!r)
		return false;
	code_head(r, key, load_time, part, index);
	r->len = r->total = part == KT_CODE_META ? sizeof(*m) : 0;
	__builtin_memcpy(r->data, m, sizeof(*m));
	bpf_ringbuf_submit(r, wakeup_flag());
	return true;
}

/*
 * Copy pi's program unless the loader has it.  Its functions' images are
 * func[i]->bpf_func for jited_len bytes each (jited_ksyms and
 * jited_func_lens in bpf_prog_get_info_by_fd()), or the program's own when
 * it has no subprograms.
 */
static __always_inline void code_copy(const struct prog_info *pi)
{
	struct bpf_prog_aux *aux = pi->aux;
	struct kt_code_meta m = {};
	struct bpf_prog *sub, *fp;
	u64 key = 0, lt, *have, need, room;
	u32 i, bad = 0, nf, jl;
	struct btf *btf;
	u64 btf_data = 0;

	if (!code_live)
		return;
	/* Read through a helper: a scalar, where the typed load prog_del made
	 * is a pointer that kt_code_part() may not take. */
	bpf_probe_read_kernel(&key, sizeof(key), &pi->bpf_func);
	/* 5.10's jit_subprogs() leaves a program with subprograms its
	 * jited_len 0 (later kernels copy func[0]'s): func[0]'s then. */
	jl = pi->jited_len;
	if (!jl && pi->func_cnt && pi->func) {
		sub = NULL;
		bpf_probe_read_kernel(&sub, sizeof(sub), &pi->func[0]);
		if (sub)
			jl = BPF_CORE_READ(sub, jited_len);
	}
	if (!key || !jl)
		return;
	lt = BPF_CORE_READ(aux, load_time);
	have = bpf_map_lookup_elem(&code_have, &key);
	if (have && *have == lt) {
		bpf_map_delete_elem(&code_have, &key);
		code_count(KT_CODE_ST_HELD);
		return;
	}
	fp = BPF_CORE_READ(aux, prog);
	m.prog_type = BPF_CORE_READ(fp, type);
	nf = pi->func_cnt && pi->func ? pi->func_cnt : 1;
	if (nf > KT_MAX_SUBPROGS)
		nf = KT_MAX_SUBPROGS;
	m.nfuncs = nf;
	m.nr_linfo = BPF_CORE_READ(aux, nr_linfo);
	m.nr_finfo = BPF_CORE_READ(aux, func_info_cnt);
	btf = BPF_CORE_READ(aux, btf);
	if (btf) {
		m.btf_id = BPF_CORE_READ(btf, id);
		m.btf_size = BPF_CORE_READ(btf, data_size);
		btf_data = (u64)BPF_CORE_READ(btf, data);
	}
	__builtin_memcpy(m.tag, pi->tag, KT_TAG_SIZE);
	bpf_probe_read_kernel(m.name, sizeof(m.name), &aux->name);
	/* Copies take at most an eighth of the ring: the rest stays for the
	 * symbols' records, whose room a reader that lags would otherwise
	 * share with copies (the ring is the symbols' first). */
	need = code_need((u64)jl * nf, nf, m.nr_linfo, m.nr_finfo, m.btf_size);
	room = bpf_ringbuf_query(&events, BPF_RB_RING_SIZE) / 8;
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) + need > room) {
		code_count(KT_CODE_ST_ROOM);
		return;
	}
	if (!code_meta(key, lt, &m, KT_CODE_META, 0)) {
		code_count(KT_CODE_ST_ROOM);
		return;
	}
	if (nf == 1 && !(pi->func_cnt && pi->func)) {
		bad += kt_code_part(key, lt, KT_CODE_IMAGE, key, pi->jited_len);
	} else {
		for (i = 0; i < KT_MAX_SUBPROGS; i++) {
			if (i >= nf)
				break;
			sub = NULL;
			bpf_probe_read_kernel(&sub, sizeof(sub), &pi->func[i]);
			if (!sub) {
				bad++;
				break;
			}
			bad += kt_code_part(key, lt, KT_CODE_IMAGE | i << 8,
					    (u64)BPF_CORE_READ(sub, bpf_func),
					    BPF_CORE_READ(sub, jited_len));
			bad += kt_code_part(key, lt, KT_CODE_TAG | i << 8, (u64)&sub->tag,
					    KT_TAG_SIZE);
		}
	}
	if (m.nr_linfo) {
		bad += kt_code_part(key, lt, KT_CODE_LINFO, (u64)BPF_CORE_READ(aux, linfo),
				    m.nr_linfo * 16);
		bad += kt_code_part(key, lt, KT_CODE_JLINFO, (u64)BPF_CORE_READ(aux, jited_linfo),
				    m.nr_linfo * 8);
	}
	if (m.nr_finfo)
		bad += kt_code_part(key, lt, KT_CODE_FINFO, (u64)BPF_CORE_READ(aux, func_info),
				    m.nr_finfo * 8);
	if (btf_data && m.btf_size)
		bad += kt_code_part(key, lt, KT_CODE_BTF, btf_data, m.btf_size);
	code_meta(key, lt, &m, KT_CODE_END, bad);
	code_count(bad ? KT_CODE_ST_PARTIAL : KT_CODE_ST_COPIED);
}

#endif /* KT_CODE_COPY_BPF_H */
