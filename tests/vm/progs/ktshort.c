// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Short-lived programs for the code archive's test (issue 32): ktshort OBJ
 * PROG N MAX_US loads OBJ and closes it again, until N loads (or as many
 * as 5 N tries give) have had
 * program PROG visible for less than MAX_US microseconds each: from the
 * moment the load returned to the moment the close did, on
 * CLOCK_BOOTTIME (bpf_prog_info.load_time's clock, which is set earlier,
 * before the verifier runs).  In that window it reads the program's
 * bpf_prog_info once (the kernel's own account, the test's oracle) and
 * writes it to short.ID.txt as ktcode does ("prog ID tag TAG btf BTF", then
 * "func ADDR LEN HEX" per function).  Prints "short ID LIFE_US" per
 * program kept, and "tried N" at the end (each life over MAX_US on stderr);
 * exits 1 if none was short enough.  The program's BTF and its line
 * info come from OBJ as libbpf loads them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define MAX_FUNCS 64
#define IMAGE_MAX (256 * 1024)

static unsigned long long boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct seen {
	struct bpf_prog_info info;
	__u64 ksyms[MAX_FUNCS];
	__u32 lens[MAX_FUNCS];
	unsigned char image[IMAGE_MAX];
};

/* One bpf_obj_get_info_by_fd() call, every array sized at its maximum. */
static int read_info(int fd, struct seen *s)
{
	__u32 len = sizeof(s->info);

	memset(&s->info, 0, sizeof(s->info));
	s->info.nr_jited_ksyms = MAX_FUNCS;
	s->info.jited_ksyms = (uintptr_t)s->ksyms;
	s->info.nr_jited_func_lens = MAX_FUNCS;
	s->info.jited_func_lens = (uintptr_t)s->lens;
	s->info.jited_prog_len = IMAGE_MAX;
	s->info.jited_prog_insns = (uintptr_t)s->image;
	return bpf_obj_get_info_by_fd(fd, &s->info, &len) ? -errno : 0;
}

static int write_seen(const struct seen *s)
{
	__u32 n = s->info.nr_jited_ksyms, i, j, off = 0;
	char path[64];
	FILE *f;

	if (n > MAX_FUNCS || s->info.jited_prog_len > IMAGE_MAX)
		return -E2BIG;
	snprintf(path, sizeof(path), "short.%u.txt", s->info.id);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "prog %u tag ", s->info.id);
	for (i = 0; i < sizeof(s->info.tag); i++)
		fprintf(f, "%02x", s->info.tag[i]);
	fprintf(f, " btf %u\n", s->info.btf_id);
	for (i = 0; i < n; i++) {
		fprintf(f, "func %llx %u ", (unsigned long long)s->ksyms[i], s->lens[i]);
		for (j = 0; j < s->lens[i] && off + j < s->info.jited_prog_len; j++)
			fprintf(f, "%02x", s->image[off + j]);
		fprintf(f, "\n");
		off += s->lens[i];
	}
	return fclose(f) ? -errno : 0;
}

int main(int argc, char **argv)
{
	static struct seen s;
	int want, max_us, kept = 0, tried = 0, err;
	unsigned long long t0, t1;
	struct bpf_object *obj;
	struct bpf_program *p;

	if (argc != 5) {
		fprintf(stderr, "usage: ktshort OBJ PROG N MAX_US\n");
		return 2;
	}
	want = atoi(argv[3]);
	max_us = atoi(argv[4]);
	libbpf_set_print(NULL);
	while (kept < want && tried < 5 * want) {
		tried++;
		obj = bpf_object__open_file(argv[1], NULL);
		if (!obj) {
			fprintf(stderr, "ktshort: %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
		p = bpf_object__find_program_by_name(obj, argv[2]);
		if (!p) {
			fprintf(stderr, "ktshort: %s has no program %s\n", argv[1], argv[2]);
			return 1;
		}
		err = bpf_object__load(obj);
		t0 = boot_ns();
		if (!err)
			err = read_info(bpf_program__fd(p), &s);
		bpf_object__close(obj);
		t1 = boot_ns();
		if (err) {
			fprintf(stderr, "ktshort: loading %s: %s\n", argv[2], strerror(-err));
			return 1;
		}
		if (t1 - t0 >= max_us * 1000ULL) {
			fprintf(stderr, "ktshort: prog %u visible %llu us\n", s.info.id,
				(t1 - t0) / 1000);
			continue;
		}
		err = write_seen(&s);
		if (err) {
			fprintf(stderr, "ktshort: prog %u: %s\n", s.info.id, strerror(-err));
			return 1;
		}
		printf("short %u %llu\n", s.info.id, (t1 - t0) / 1000);
		kept++;
	}
	printf("tried %d\n", tried);
	return kept ? 0 : 1;
}
