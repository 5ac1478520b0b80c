// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The native backend: the kernel's own side-band records.  One dummy software
 * event per online CPU with ksymbol=1, bpf_event=1, sample_id_all=1 and
 * sample_type TID|TIME|CPU, as `perf record -e dummy -a` opens them; the rings
 * are merged by time.  CPU hotplug: a per-CPU event whose CPU goes offline is
 * taken out of its context for good (perf_event_exit_cpu_context()), even
 * when the CPU comes back, and CPUs that come online later have no event.  So
 * on every CPU uevent from the kernel (and once a second anyway) dead events
 * are found by their frozen enabled time, drained, and reopened.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <linux/netlink.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "util/base.h"
#include "backend/backend.h"
#include "util/clock.h"
#include "util/log.h"
#include "backend/native.h"
#include "record/comm.h"
#include "record/native_decode.h"

#define MAX_CPUS 1024

struct ring {
	int fd;
	int cpu;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t data_size;
	size_t map_size;
	__u64 enabled; /* PERF_FORMAT_TOTAL_TIME_ENABLED at the last check */
};

#define UEVENT_TAG 0xffffffffu

struct native_backend {
	struct kt_backend base;
	struct ring rings[MAX_CPUS];
	int nrings;
	int epfd;
	size_t pages;
	kt_emit_fn emit;
	void *ctx;
	struct kt_record *batch;
	size_t nbatch, capbatch;
	unsigned long long lost;
	__u64 next_cpu_scan;
	int uevent_fd; /* kernel uevents: CPU online/offline, -1 if unavailable */
	bool opened_once;
	struct kt_comm_cache comms;
};

/* Parse a cpulist like "0-3,5,7-8" into a mask. */
int kt_parse_cpulist(const char *s, unsigned char *mask, int max)
{
	char *end;
	long a, b;

	memset(mask, 0, max);
	while (*s && *s != '\n') {
		errno = 0;
		a = strtol(s, &end, 10);
		if (errno || end == s || a < 0)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -EINVAL;
		}
		if (b >= max)
			return -ERANGE;
		for (; a <= b; a++)
			mask[a] = 1;
		s = end;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return 0;
}

static int online_cpus(unsigned char *mask)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int err;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	err = kt_parse_cpulist(buf, mask, MAX_CPUS);
	return err;
}

static int open_cpu(struct native_backend *b, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		.sample_id_all = 1,
		.ksymbol = 1,
		.bpf_event = 1,
		/* COMM records keep our pid -> comm map current, as perf's
		 * machine__ does: a task that exits before we read its record
		 * still gets its name. */
		.comm = 1,
		.comm_exec = 1,
		/* Wake the reader on every record: latency matters more here than
		 * wakeups, which are as rare as symbol changes. */
		.watermark = 1,
		.wakeup_watermark = 1,
		/* A frozen enabled time tells a dead event (CPU gone offline). */
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED,
	};
	long pgsz = sysconf(_SC_PAGESIZE);
	struct ring *r = &b->rings[b->nrings];
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, err;

	fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	r->map_size = (1 + b->pages) * pgsz;
	r->meta = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->meta == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	r->fd = fd;
	r->cpu = cpu;
	r->enabled = 0;
	r->data = (unsigned char *)r->meta + pgsz;
	r->data_size = b->pages * pgsz;
	ev.data.u32 = b->nrings;
	if (epoll_ctl(b->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		err = -errno;
		munmap(r->meta, r->map_size);
		close(fd);
		return err;
	}
	b->nrings++;
	return 0;
}

static bool have_cpu(struct native_backend *b, int cpu)
{
	int i;

	for (i = 0; i < b->nrings; i++)
		if (b->rings[i].cpu == cpu)
			return true;
	return false;
}

/* Open rings for online CPUs that have none yet. */
static int scan_cpus(struct native_backend *b, int *opened)
{
	unsigned char mask[MAX_CPUS];
	int cpu, err;

	*opened = 0;
	err = online_cpus(mask);
	if (err)
		return err;
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		if (!mask[cpu] || have_cpu(b, cpu) || b->nrings >= MAX_CPUS)
			continue;
		err = open_cpu(b, cpu);
		/* Raced with the CPU going offline again: next time. */
		if (err == -ENODEV && b->opened_once)
			continue;
		if (err)
			return err;
		(*opened)++;
	}
	b->opened_once = true;
	return 0;
}

static void close_ring(struct native_backend *b, int i)
{
	struct ring *r = &b->rings[i];

	epoll_ctl(b->epfd, EPOLL_CTL_DEL, r->fd, NULL);
	munmap(r->meta, r->map_size);
	close(r->fd);
	b->rings[i] = b->rings[--b->nrings];
}

static int read_ring(struct native_backend *b, struct ring *rg);

/* Events whose enabled time stopped are dead (their CPU went offline): take
 * what they still hold, then close them; scan_cpus() reopens online CPUs. */
static int reap_dead_rings(struct native_backend *b)
{
	struct {
		__u64 value, enabled;
	} rd;
	int i, err;

	for (i = 0; i < b->nrings;) {
		struct ring *r = &b->rings[i];

		if (read(r->fd, &rd, sizeof(rd)) == sizeof(rd) && rd.enabled != r->enabled) {
			r->enabled = rd.enabled;
			i++;
			continue;
		}
		err = read_ring(b, r);
		if (err < 0)
			return err;
		kt_warn("native: cpu %d went offline; watching it again when it is back "
			"(records made on it in between may be missing)",
			r->cpu);
		close_ring(b, i);
	}
	return 0;
}

/* Drain the uevent socket; true if a CPU went online or offline, or if
 * uevents were lost (the socket overran: one of them may have been). */
static bool cpu_uevent(struct native_backend *b)
{
	char msg[4096];
	bool cpu = false;
	ssize_t n;

	if (b->uevent_fd < 0)
		return false;
	while ((n = recv(b->uevent_fd, msg, sizeof(msg) - 1, MSG_DONTWAIT)) > 0) {
		msg[n] = 0;
		if ((!strncmp(msg, "online@", 7) || !strncmp(msg, "offline@", 8)) &&
		    strstr(msg, "/devices/system/cpu/cpu"))
			cpu = true;
	}
	return cpu || (n < 0 && errno == ENOBUFS);
}

static void open_uevents(struct native_backend *b)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = UEVENT_TAG };

	b->uevent_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			      NETLINK_KOBJECT_UEVENT);
	if (b->uevent_fd < 0)
		goto off;
	if (bind(b->uevent_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    epoll_ctl(b->epfd, EPOLL_CTL_ADD, b->uevent_fd, &ev)) {
		close(b->uevent_fd);
		b->uevent_fd = -1;
		goto off;
	}
	return;
off:
	kt_debug("native: no kernel uevents (%s); CPU hotplug is checked once a second",
		 strerror(errno));
}

static struct kt_record *batch_slot(struct native_backend *b)
{
	if (KT_GROW(b->batch, b->capbatch, b->nbatch + 1))
		return NULL;
	return &b->batch[b->nbatch++];
}

static int read_ring(struct native_backend *b, struct ring *rg)
{
	__u64 head = __atomic_load_n(&rg->meta->data_head, __ATOMIC_ACQUIRE);
	__u64 tail = rg->meta->data_tail;
	unsigned char rec[sizeof(struct perf_event_header) + 24 + KT_NAME_MAX +
			  KT_NATIVE_TRAILER_SIZE + 64];
	int n = 0;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % rg->data_size, first;
		struct kt_record *r;

		first = rg->data_size - off;
		if (first >= sizeof(h)) {
			memcpy(&h, rg->data + off, sizeof(h));
		} else {
			memcpy(&h, rg->data + off, first);
			memcpy((char *)&h + first, rg->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (h.size <= sizeof(rec)) {
			if (first >= h.size) {
				memcpy(rec, rg->data + off, h.size);
			} else {
				memcpy(rec, rg->data + off, first);
				memcpy(rec + first, rg->data, h.size - first);
			}
			r = batch_slot(b);
			if (!r)
				return -ENOMEM;
			switch (kt_native_decode(r, rec, h.size)) {
			case 1:
				n++;
				break;
			case 2:
				kt_comm_update(&b->comms, r->tid, r->comm);
				/* fallthrough */
			default:
				b->nbatch--;
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&rg->meta->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

static int by_time(const void *a, const void *b)
{
	const struct kt_record *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return 0;
}

static int native_poll(struct kt_backend *kb, int timeout_ms)
{
	struct native_backend *b = (struct native_backend *)kb;
	struct epoll_event evs[64];
	size_t i;
	int n, err, opened;
	__u64 now;

	n = epoll_wait(b->epfd, evs, 64, timeout_ms);
	if (n < 0 && errno != EINTR)
		return -errno;
	now = kt_monotonic_ns();
	/* Without uevents, CPU hotplug is looked for once a second: the one
	 * periodic wake-up, and only there. */
	if (cpu_uevent(b) || (b->uevent_fd < 0 && now >= b->next_cpu_scan)) {
		b->next_cpu_scan = now + 1000000000ULL;
		b->base.wake_ns = b->uevent_fd < 0 ? b->next_cpu_scan : 0;
		err = reap_dead_rings(b);
		if (err < 0)
			return err;
		if (!scan_cpus(b, &opened) && opened)
			kt_info("native: %d CPU(s) came online, watching them too", opened);
	}
	b->nbatch = 0;
	/* Every ring, not only the ready ones, so the merge sees all CPUs. */
	for (i = 0; i < (size_t)b->nrings; i++) {
		err = read_ring(b, &b->rings[i]);
		if (err < 0)
			return err;
	}
	if (b->nbatch) /* qsort(NULL, 0, ...) is undefined (UBSan) */
		qsort(b->batch, b->nbatch, sizeof(*b->batch), by_time);
	for (i = 0; i < b->nbatch; i++) {
		struct kt_record *r = &b->batch[i];

		if (r->type == KT_RECORD_LOST) {
			/* Read by the run loop's thread (metrics). */
			__atomic_add_fetch(&b->lost, r->lost, __ATOMIC_RELAXED);
			kt_warn("native: kernel lost %llu records on cpu %u (raise --native-pages)",
				(unsigned long long)r->lost, r->cpu);
		}
		kt_comm_lookup(&b->comms, r->tid, r->comm);
		err = b->emit(b->ctx, r);
		if (err)
			return err;
	}
	return (int)b->nbatch;
}

static int native_fd(struct kt_backend *kb)
{
	return ((struct native_backend *)kb)->epfd;
}

static unsigned long long native_dropped(struct kt_backend *kb, bool native)
{
	return native ? __atomic_load_n(&((struct native_backend *)kb)->lost, __ATOMIC_RELAXED) : 0;
}

static void native_describe(struct kt_backend *kb, char *buf, size_t size)
{
	struct native_backend *b = (struct native_backend *)kb;

	snprintf(buf, size, "kernel perf records on %d CPU(s)", b->nrings);
}

static void native_close(struct kt_backend *kb)
{
	struct native_backend *b = (struct native_backend *)kb;
	int i;

	if (!b)
		return;
	for (i = 0; i < b->nrings; i++) {
		munmap(b->rings[i].meta, b->rings[i].map_size);
		close(b->rings[i].fd);
	}
	if (b->epfd >= 0)
		close(b->epfd);
	if (b->uevent_fd >= 0)
		close(b->uevent_fd);
	free(b->batch);
	free(b);
}

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static int native_open(struct kt_backend **out, const struct kt_backend_opts *o, kt_emit_fn emit,
		       void *ctx, char *why, size_t why_size)
{
	struct native_backend *b = calloc(1, sizeof(*b));
	int err, opened;

	if (!b) {
		snprintf(why, why_size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	b->base.ops = &kt_native_backend;
	b->emit = emit;
	b->ctx = ctx;
	b->pages = o->native_pages ? o->native_pages : kt_backend_default_native_pages();
	b->uevent_fd = -1;
	b->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (b->epfd < 0) {
		err = -errno;
		snprintf(why, why_size, "epoll_create1: %s", strerror(-err));
		goto fail;
	}
	err = scan_cpus(b, &opened);
	if (err) {
		if ((err == -EACCES || err == -EPERM) && paranoid() > 2)
			/* Debian's and Ubuntu's perf_event_paranoid=3 patch
			 * (their default) wants CAP_SYS_ADMIN, not CAP_PERFMON. */
			snprintf(
				why, why_size,
				"perf_event_open: %s (kernel.perf_event_paranoid is %d: this kernel "
				"then requires CAP_SYS_ADMIN; set it to 2 or lower, or grant that)",
				strerror(-err), paranoid());
		else if (err == -EACCES || err == -EPERM)
			snprintf(
				why, why_size,
				"perf_event_open: %s (needs CAP_PERFMON or kernel.perf_event_paranoid <= 0)",
				strerror(-err));
		else if (err == -EINVAL)
			snprintf(
				why, why_size,
				"perf_event_open: %s (kernel without ksymbol/bpf_event records? needs 5.1+)",
				strerror(-err));
		else
			snprintf(why, why_size, "perf_event_open: %s", strerror(-err));
		goto fail;
	}
	open_uevents(b);
	b->next_cpu_scan = kt_monotonic_ns() + 1000000000ULL;
	/* The kernel wakes us for every record (wakeup_watermark 1). */
	b->base.wake_ns = b->uevent_fd < 0 ? b->next_cpu_scan : 0;
	*out = &b->base;
	return 0;
fail:
	native_close(&b->base);
	return err;
}

const struct kt_backend_ops kt_native_backend = {
	.name = "native",
	.open = native_open,
	.fd = native_fd,
	.poll = native_poll,
	.describe = native_describe,
	.dropped = native_dropped,
	.close = native_close,
};
