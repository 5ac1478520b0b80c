// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Test workload: load BPF objects, optionally attach them (fentry/fexit via
 * libbpf, XDP to an interface), hold, then tear everything down.  Prints
 * "loaded NAME id ID" per program so tests can cross-check with bpftool.
 * -R runs every socket filter with BPF_PROG_TEST_RUN while it holds: CPU
 * spent in the program where no hook can run it (arm64 before 6.4).
 */
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#define MAX_OBJS 16

static int usage(void)
{
	fprintf(stderr, "usage: ktload [-a] [-R] [-x IFNAME] [-t HOLD_MS] [-w FILE] [-r ROUNDS] OBJ...\n"
			"  -w FILE: hold until FILE exists\n");
	return 2;
}

/* Each socket filter 1000 times on a 64-byte packet. */
static void run_filters(struct bpf_object **objs, int nobjs)
{
	unsigned char pkt[64] = { 0 };
	struct bpf_program *p;
	int i;

	for (i = 0; i < nobjs; i++) {
		bpf_object__for_each_program(p, objs[i]) {
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt,
				    .data_size_in = sizeof(pkt), .repeat = 1000);

			if (bpf_program__type(p) == BPF_PROG_TYPE_SOCKET_FILTER)
				bpf_prog_test_run_opts(bpf_program__fd(p), &o);
		}
	}
}

int main(int argc, char **argv)
{
	struct bpf_object *objs[MAX_OBJS] = {};
	struct bpf_link *links[64] = {};
	const char *xdp_if = NULL, *wait_file = NULL;
	int attach = 0, run = 0, hold_ms = 0, rounds = 1, nlinks = 0, ifindex = 0, xdp_fd = -1;
	int opt, i, r, nobjs;
	struct bpf_program *p;
	struct bpf_map *m;

	while ((opt = getopt(argc, argv, "aRx:t:r:w:")) != -1) {
		switch (opt) {
		case 'a':
			attach = 1;
			break;
		case 'R':
			run = 1;
			break;
		case 'x':
			xdp_if = optarg;
			break;
		case 't':
			hold_ms = atoi(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		case 'w':
			wait_file = optarg;
			break;
		default:
			return usage();
		}
	}
	nobjs = argc - optind;
	if (nobjs < 1 || nobjs > MAX_OBJS)
		return usage();
	if (xdp_if) {
		ifindex = if_nametoindex(xdp_if);
		if (!ifindex) {
			fprintf(stderr, "ktload: no interface %s\n", xdp_if);
			return 1;
		}
	}
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < nobjs; i++) {
			objs[i] = bpf_object__open_file(argv[optind + i], NULL);
			if (!objs[i] || bpf_object__load(objs[i])) {
				fprintf(stderr, "ktload: loading %s: %s\n", argv[optind + i],
					strerror(errno));
				return 1;
			}
			bpf_object__for_each_map(m, objs[i]) {
				if (bpf_map__type(m) != BPF_MAP_TYPE_STRUCT_OPS)
					continue;
				links[nlinks] = bpf_map__attach_struct_ops(m);
				if (!links[nlinks]) {
					fprintf(stderr, "ktload: struct_ops %s: %s\n",
						bpf_map__name(m), strerror(errno));
					return 1;
				}
				nlinks++;
				printf("registered struct_ops %s\n", bpf_map__name(m));
			}
			bpf_object__for_each_program(p, objs[i]) {
				struct bpf_prog_info info = {};
				__u32 len = sizeof(info);

				bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len);
				printf("loaded %s id %u\n", bpf_program__name(p), info.id);
				if (xdp_if && bpf_program__type(p) == BPF_PROG_TYPE_XDP) {
					if (bpf_xdp_attach(ifindex, bpf_program__fd(p),
							   XDP_FLAGS_SKB_MODE, NULL)) {
						fprintf(stderr, "ktload: xdp attach: %s\n",
							strerror(errno));
						return 1;
					}
					xdp_fd = bpf_program__fd(p);
					printf("xdp attached to %s\n", xdp_if);
				} else if (attach &&
					   (bpf_program__type(p) == BPF_PROG_TYPE_TRACING ||
					    bpf_program__type(p) == BPF_PROG_TYPE_KPROBE)) {
					links[nlinks] = bpf_program__attach(p);
					if (!links[nlinks]) {
						fprintf(stderr, "ktload: attach %s: %s\n",
							bpf_program__name(p), strerror(errno));
						return 1;
					}
					nlinks++;
					printf("attached %s\n", bpf_program__name(p));
				}
			}
		}
		fflush(stdout);
		if (hold_ms)
			usleep(hold_ms * 1000);
		while (wait_file && access(wait_file, F_OK)) {
			if (run)
				run_filters(objs, nobjs);
			else
				usleep(50 * 1000);
		}
		if (xdp_fd >= 0) {
			bpf_xdp_detach(ifindex, XDP_FLAGS_SKB_MODE, NULL);
			xdp_fd = -1;
		}
		for (i = 0; i < nlinks; i++)
			bpf_link__destroy(links[i]);
		nlinks = 0;
		for (i = 0; i < nobjs; i++)
			bpf_object__close(objs[i]);
	}
	return 0;
}
