// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Encoders: byte layout of the perf records against the uapi structs and
 * perf's rules (tools/perf/util/event.c, ../shared/PERF-DATA-FACTS.md), text
 * lines against the format perf script prints, JSON escaping of odd names.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "encode/encode.h"
#include "record/native_decode.h"
#include "unit.h"

static struct kt_record ksym(const char *name)
{
	struct kt_record r;

	memset(&r, 0, sizeof(r));
	r.type = KT_RECORD_KSYMBOL;
	r.time = 7558603123ULL;
	r.pid = 161;
	r.tid = 162;
	r.cpu = 3;
	strcpy(r.comm, "bpftool");
	r.addr = 0xffffffffc00a5690ULL;
	r.len = 35;
	r.ksym_type = KT_KSYM_TYPE_BPF;
	r.flags = 0;
	snprintf(r.name, sizeof(r.name), "%s", name);
	return r;
}

static struct kt_record bpfev(void)
{
	struct kt_record r = ksym("");
	static const __u8 tag[8] = { 0x14, 0x4b, 0x21, 0x84, 0x21, 0x93, 0x0b, 0xf7 };

	r.type = KT_RECORD_BPF_EVENT;
	r.bpf_type = KT_BPF_EVENT_PROG_LOAD;
	r.prog_id = 5;
	memcpy(r.tag, tag, 8);
	return r;
}

static void test_perf_ksymbol_layout(void)
{
	struct kt_record r = ksym("bpf_prog_144b218421930bf7_wl_sock_main");
	unsigned char buf[1024];
	struct perf_event_header h;
	size_t name_len = strlen(r.name);
	size_t padded = (name_len + 1 + 7) & ~7UL;
	__u64 addr, time;
	__u32 len, pid, tid, cpu;
	__u16 type, flags;
	ssize_t n;

	if (unit_start("perf_ksymbol_layout")) {
		n = kt_encode_perf(&r, buf, sizeof(buf));
		ASSERT_EQ(n, 8 + 16 + padded + 24, "record size");
		memcpy(&h, buf, sizeof(h));
		ASSERT_EQ(h.type, PERF_RECORD_KSYMBOL, "header.type");
		ASSERT_EQ(h.size, n, "header.size covers the trailer");
		ASSERT_EQ(h.size % 8, 0, "size is 8-aligned");
		memcpy(&addr, buf + 8, 8);
		memcpy(&len, buf + 16, 4);
		memcpy(&type, buf + 20, 2);
		memcpy(&flags, buf + 22, 2);
		ASSERT_EQ(addr, r.addr, "addr");
		ASSERT_EQ(len, 35, "len");
		ASSERT_EQ(type, PERF_RECORD_KSYMBOL_TYPE_BPF, "ksym_type");
		ASSERT_EQ(flags, 0, "flags");
		ASSERT_STREQ((char *)buf + 24, r.name, "name");
		/* NUL padding to 8 bytes, all zero. */
		for (size_t i = 24 + name_len; i < 24 + padded; i++)
			if (!ASSERT_EQ(buf[i], 0, "name padding"))
				break;
		/* sample_id for TID|TIME|CPU: pid, tid, time, cpu, res. */
		memcpy(&pid, buf + 24 + padded, 4);
		memcpy(&tid, buf + 24 + padded + 4, 4);
		memcpy(&time, buf + 24 + padded + 8, 8);
		memcpy(&cpu, buf + 24 + padded + 16, 4);
		ASSERT_EQ(pid, 161, "sample_id pid");
		ASSERT_EQ(tid, 162, "sample_id tid");
		ASSERT_EQ(time, r.time, "sample_id time");
		ASSERT_EQ(cpu, 3, "sample_id cpu");
		unit_end();
	}
}

static void test_perf_ksymbol_padding(void)
{
	unsigned char buf[2048];
	char name[600];
	int l;

	if (unit_start("perf_ksymbol_padding_all_lengths")) {
		/* Lengths 0..KT_NAME_MAX-1: size = 24 + ALIGN(len + 1, 8) + 24. */
		for (l = 0; l < KT_NAME_MAX; l++) {
			struct kt_record r;
			ssize_t n;

			memset(name, 'a', l);
			name[l] = 0;
			r = ksym(name);
			n = kt_encode_perf(&r, buf, sizeof(buf));
			if (!ASSERT_EQ(n, 24 + ((l + 1 + 7) & ~7) + 24, "size for a name length"))
				break;
			if (!ASSERT_EQ(buf[24 + l], 0, "terminating NUL"))
				break;
		}
		unit_end();
	}
}

static void test_perf_bpf_event_layout(void)
{
	struct kt_record r = bpfev();
	unsigned char buf[256];
	struct perf_event_header h;
	__u16 type, flags;
	__u32 id;
	ssize_t n;

	if (unit_start("perf_bpf_event_layout")) {
		n = kt_encode_perf(&r, buf, sizeof(buf));
		ASSERT_EQ(n, 8 + 16 + 24, "record size");
		memcpy(&h, buf, sizeof(h));
		ASSERT_EQ(h.type, PERF_RECORD_BPF_EVENT, "header.type");
		ASSERT_EQ(h.size, n, "header.size");
		memcpy(&type, buf + 8, 2);
		memcpy(&flags, buf + 10, 2);
		memcpy(&id, buf + 12, 4);
		ASSERT_EQ(type, PERF_BPF_EVENT_PROG_LOAD, "type");
		ASSERT_EQ(flags, 0, "flags");
		ASSERT_EQ(id, 5, "id");
		ASSERT_MEMEQ(buf + 16, r.tag, 8, "tag");
		unit_end();
	}
}

static void test_perf_lost_layout(void)
{
	struct kt_record r = ksym("");
	unsigned char buf[256];
	__u64 lost;
	ssize_t n;

	if (unit_start("perf_lost_layout")) {
		r.type = KT_RECORD_LOST;
		r.lost = 12345;
		n = kt_encode_perf(&r, buf, sizeof(buf));
		ASSERT_EQ(n, 8 + 16 + 24, "record size");
		ASSERT_EQ(((struct perf_event_header *)buf)->type, PERF_RECORD_LOST, "header.type");
		memcpy(&lost, buf + 16, 8);
		ASSERT_EQ(lost, 12345, "lost");
		unit_end();
	}
}

static void test_perf_snapshot_trailer(void)
{
	struct kt_record r = ksym("x");
	unsigned char buf[256], zero[24] = {};
	ssize_t n;

	if (unit_start("perf_snapshot_trailer_is_zero")) {
		r.rflags = KT_RF_SNAPSHOT;
		n = kt_encode_perf(&r, buf, sizeof(buf));
		ASSERT_MEMEQ(buf + n - 24, zero, 24,
			     "synthesized records carry an all-zero sample_id");
		unit_end();
	}
}

static void test_perf_roundtrip(void)
{
	struct kt_record r = ksym("bpf_trampoline_6442505802"), back;
	unsigned char buf[1024];
	ssize_t n;

	if (unit_start("perf_roundtrip_through_native_decoder")) {
		r.ksym_type = KT_KSYM_TYPE_BPF;
		r.flags = KT_KSYM_FLAG_UNREGISTER;
		n = kt_encode_perf(&r, buf, sizeof(buf));
		ASSERT_EQ(kt_native_decode(&back, buf, n), 1, "decodes");
		ASSERT_EQ(back.addr, r.addr, "addr");
		ASSERT_EQ(back.len, r.len, "len");
		ASSERT_EQ(back.flags, r.flags, "flags");
		ASSERT_EQ(back.time, r.time, "time");
		ASSERT_EQ(back.tid, r.tid, "tid");
		ASSERT_STREQ(back.name, r.name, "name");
		ASSERT_EQ(back.source, KT_SRC_BPF_IMAGE, "classified as a BPF image");
		ASSERT_EQ(kt_native_decode(&back, buf, n - 8), -EINVAL,
			  "truncated record rejected");
		unit_end();
	}
}

static void test_perf_nospace(void)
{
	struct kt_record r = ksym("bpf_prog_x");
	unsigned char buf[16];

	if (unit_start("perf_buffer_too_small")) {
		ASSERT_EQ(kt_encode_perf(&r, buf, sizeof(buf)), -ENOSPC, "-ENOSPC");
		unit_end();
	}
}

/* perf script's own formats, by printf: the hand-built encoder must give the
 * same bytes for any record. */
static int ref_text(const struct kt_record *r, char *buf, size_t size)
{
	unsigned long long usecs = r->time / 1000;
	const char *comm = r->comm;
	int tid = (int)r->tid, cpu = (int)r->cpu, n;
	char tstr[64], unknown[24];

	if (r->rflags & KT_RF_SNAPSHOT) {
		comm = "swapper";
		tid = cpu = 0;
		usecs = 0;
	} else if (r->rflags & KT_RF_NO_TASK) {
		comm = ":-1";
		tid = -1;
	} else if (!r->comm[0]) {
		snprintf(unknown, sizeof(unknown), ":%d", tid);
		comm = unknown;
	}
	snprintf(tstr, sizeof(tstr), "%llu.%06llu", usecs / 1000000, usecs % 1000000);
	n = snprintf(buf, size, "%16s %5d [%03d] %12s: ", comm, tid, cpu, tstr);
	if (r->type == KT_RECORD_KSYMBOL)
		n += snprintf(buf + n, size - n,
			      "PERF_RECORD_KSYMBOL addr %llx len %u type %u flags 0x%x name %s\n",
			      (unsigned long long)r->addr, r->len, r->ksym_type, r->flags, r->name);
	else if (r->type == KT_RECORD_BPF_EVENT)
		n += snprintf(buf + n, size - n, "PERF_RECORD_BPF_EVENT type %u, flags %u, id %u\n",
			      r->bpf_type, r->bpf_flags, r->prog_id);
	else
		n += snprintf(buf + n, size - n, "PERF_RECORD_LOST lost %llu\n",
			      (unsigned long long)r->lost);
	return n;
}

static unsigned long long rnd64(void)
{
	unsigned long long v = 0;
	int i;

	for (i = 0; i < 4; i++)
		v = v << 16 | (random() & 0xffff);
	/* Small values and boundaries as often as large ones. */
	switch (random() % 4) {
	case 0:
		return v >> (random() % 64);
	case 1:
		return random() % 2 ? 0 : ~0ULL;
	default:
		return v;
	}
}

static void rnd_str(char *s, size_t max)
{
	size_t n = random() % max, i;

	for (i = 0; i < n; i++)
		s[i] = 32 + random() % 95;
	s[n] = 0;
}

static void test_text_random(void)
{
	static const unsigned int types[] = { KT_RECORD_KSYMBOL, KT_RECORD_BPF_EVENT,
					      KT_RECORD_LOST };
	static const unsigned short rflags[] = { 0, KT_RF_SNAPSHOT, KT_RF_NO_TASK };
	char got[1024], want[1024];
	struct kt_record r;
	ssize_t n;
	int i, m;

	if (unit_start("text_random_records_as_printf")) {
		srandom(7);
		memset(&r, 0, sizeof(r));
		for (i = 0; i < 200000; i++) {
			struct kt_record prev = r;

			memset(&r, 0, sizeof(r));
			r.type = types[random() % 3];
			r.rflags = rflags[random() % 3];
			r.time = rnd64();
			r.tid = rnd64();
			r.cpu = rnd64();
			rnd_str(r.comm, sizeof(r.comm));
			/* Runs of one task, as a loader makes them (the encoder keeps the
			 * last task's prefix); sometimes only the cpu or tid changes. */
			if (random() % 4) {
				memcpy(r.comm, prev.comm, sizeof(r.comm));
				r.tid = random() % 8 ? prev.tid : r.tid;
				r.cpu = random() % 8 ? prev.cpu : r.cpu;
			}
			r.addr = rnd64();
			r.len = rnd64();
			r.ksym_type = rnd64();
			r.flags = rnd64();
			r.bpf_type = rnd64();
			r.bpf_flags = rnd64();
			r.prog_id = rnd64();
			r.lost = rnd64();
			rnd_str(r.name, sizeof(r.name));
			m = ref_text(&r, want, sizeof(want));
			n = kt_encode_text(&r, got, sizeof(got));
			if (!ASSERT_EQ(n, m, "length") || !ASSERT_STREQ(got, want, "line"))
				break;
			/* Exactly the line and no room for its NUL: too small; one more
			 * byte (a buffer shorter than the longest line): the same bytes. */
			if (!ASSERT_EQ(kt_encode_text(&r, got, m), -ENOSPC, "-ENOSPC"))
				break;
			if (!ASSERT_EQ(kt_encode_text(&r, got, m + 1), m, "length, small buffer") ||
			    !ASSERT_STREQ(got, want, "line, small buffer"))
				break;
		}
		unit_end();
	}
}

static void test_text(void)
{
	struct kt_record r = ksym("bpf_prog_144b218421930bf7_wl_sock_main");
	char buf[1024];

	if (unit_start("text_ksymbol_like_perf_script")) {
		r.tid = 161;
		r.cpu = 0;
		r.time = 7558603999ULL; /* perf truncates to microseconds */
		kt_encode_text(&r, buf, sizeof(buf));
		ASSERT_STREQ(buf,
			     "         bpftool   161 [000]     7.558603: PERF_RECORD_KSYMBOL addr "
			     "ffffffffc00a5690 len 35 type 1 flags 0x0 name "
			     "bpf_prog_144b218421930bf7_wl_sock_main\n",
			     "KSYMBOL line");
		unit_end();
	}

	if (unit_start("text_bpf_event_like_perf_script")) {
		r = bpfev();
		r.tid = 161;
		r.cpu = 0;
		r.time = 7558603999ULL;
		kt_encode_text(&r, buf, sizeof(buf));
		ASSERT_STREQ(
			buf,
			"         bpftool   161 [000]     7.558603: PERF_RECORD_BPF_EVENT type 1, "
			"flags 0, id 5\n",
			"BPF_EVENT line");
		unit_end();
	}

	if (unit_start("text_snapshot_like_perf_synthesized")) {
		r = ksym("bpf_prog_5d1dbb6c18e30799_sock_main");
		r.rflags = KT_RF_SNAPSHOT;
		r.flags = 0;
		kt_encode_text(&r, buf, sizeof(buf));
		ASSERT_STREQ(buf,
			     "         swapper     0 [000]     0.000000: PERF_RECORD_KSYMBOL addr "
			     "ffffffffc00a5690 len 35 type 1 flags 0x0 name "
			     "bpf_prog_5d1dbb6c18e30799_sock_main\n",
			     "synthesized records print as swapper at time 0");
		unit_end();
	}
}

static void test_json_record(void)
{
	struct kt_record r = ksym("bpf_prog_1_\"odd\\name");
	char buf[KT_ENCODE_MAX];
	ssize_t n;

	if (unit_start("json_ksymbol_fields")) {
		r.flags = KT_KSYM_FLAG_UNREGISTER;
		r.cgroup_id = 4242;
		r.rflags = KT_RF_LOADER_IDENTITY;
		r.source = KT_SRC_BPF_PROG;
		n = kt_encode_json(&r, buf, sizeof(buf));
		ASSERT_TRUE(n > 0 && buf[n - 1] == '\n', "one line");
		ASSERT_STRSTR(buf, "\"kind\":\"ksymbol\"", "kind");
		ASSERT_STRSTR(buf, "\"addr\":\"0xffffffffc00a5690\"", "addr as hex string");
		ASSERT_STRSTR(buf, "\"len\":35,", "len");
		ASSERT_STRSTR(buf, "\"ksym_type\":1,\"ksym_type_name\":\"bpf\"", "ksym type");
		ASSERT_STRSTR(buf, "\"flags\":1,\"unregister\":true", "flags");
		ASSERT_STRSTR(buf, "\"name\":\"bpf_prog_1_\\\"odd\\\\name\"", "escaped name");
		ASSERT_STRSTR(buf, "\"cgroup_id\":4242", "cgroup_id");
		ASSERT_STRSTR(buf, "\"identity\":\"loader\"", "identity from load time");
		ASSERT_STRSTR(buf, "\"pid\":161,\"tid\":162", "pid/tid");
		ASSERT_STRSTR(buf, "\"time\":7558603123", "time");
		ASSERT_STRSTR(buf, "\"module\":\"bpf\",\"prog_id\":null",
			      "module; no prog_id when unknown");
		r.prog_id = 42;
		kt_encode_json(&r, buf, sizeof(buf));
		ASSERT_STRSTR(buf, "\"prog_id\":42", "the image's program");
		unit_end();
	}

	if (unit_start("json_ool_module")) {
		r = ksym("ftrace_trampoline");
		r.ksym_type = KT_KSYM_TYPE_OOL;
		r.source = KT_SRC_FTRACE;
		kt_encode_json(&r, buf, sizeof(buf));
		ASSERT_STRSTR(buf, "\"module\":\"__builtin__ftrace\"", "ftrace module");
		r.source = KT_SRC_KPROBE;
		kt_encode_json(&r, buf, sizeof(buf));
		ASSERT_STRSTR(buf, "\"module\":\"__builtin__kprobes\"", "kprobe module");
		unit_end();
	}

	if (unit_start("json_bpf_event_fields")) {
		r = bpfev();
		strcpy(r.name, "wl_sock_main");
		n = kt_encode_json(&r, buf, sizeof(buf));
		ASSERT_STRSTR(buf, "\"kind\":\"bpf_event\"", "kind");
		ASSERT_STRSTR(buf, "\"type\":1,\"type_name\":\"prog_load\"", "type");
		ASSERT_STRSTR(buf, "\"id\":5", "id");
		ASSERT_STRSTR(buf, "\"tag\":\"144b218421930bf7\"", "tag in hex");
		ASSERT_STRSTR(buf, "\"prog_name\":\"wl_sock_main\"", "prog name");
		unit_end();
	}

	if (unit_start("json_longest_name_fits")) {
		r = ksym("");
		memset(r.name, 0x01, KT_NAME_MAX - 1); /* worst case: every byte escaped */
		r.name[KT_NAME_MAX - 1] = 0;
		n = kt_encode_json(&r, buf, sizeof(buf));
		ASSERT_TRUE(n > 0, "fits in KT_ENCODE_MAX");
		unit_end();
	}
}

int main(void)
{
	test_perf_ksymbol_layout();
	test_perf_ksymbol_padding();
	test_perf_bpf_event_layout();
	test_perf_lost_layout();
	test_perf_snapshot_trailer();
	test_perf_roundtrip();
	test_perf_nospace();
	test_text();
	test_text_random();
	test_json_record();
	return unit_exit();
}
