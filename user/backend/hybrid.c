// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The backend kt_backend_open() returns for "bpf" and "auto": the BPF hooks,
 * and for each source they cannot watch, the kernel's native records
 * (issue 11's per-source fallback).  Each part's records pass only for the
 * sources that part owns, so nothing is reported twice when, say, prog_add
 * is live but no unload hook is, and bpf_prog comes from native records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include "backend/backend.h"
#include "backend/hybrid.h"
#include "util/clock.h"

struct hybrid {
	struct kt_backend base;
	struct kt_backend *bpf, *nat;
	kt_emit_fn emit;
	void *ctx;
	unsigned int native_mask; /* 1 << source: from native records */
	struct kt_source_report rep; /* the BPF side's */
	int epfd;
};

static bool owns_native(const struct hybrid *h, const struct kt_record *r)
{
	return r->source == KT_SRC_UNKNOWN || (h->native_mask & (1U << r->source));
}

static int emit_bpf(void *ctx, struct kt_record *r)
{
	struct hybrid *h = ctx;

	if (r->type != KT_RECORD_LOST && r->source != KT_SRC_UNKNOWN &&
	    (h->native_mask & (1U << r->source)))
		return 0;
	return h->emit(h->ctx, r);
}

static int emit_native(void *ctx, struct kt_record *r)
{
	struct hybrid *h = ctx;

	if (r->type != KT_RECORD_LOST && !owns_native(h, r))
		return 0;
	return h->emit(h->ctx, r);
}

static int hybrid_fd(struct kt_backend *kb)
{
	struct hybrid *h = (struct hybrid *)kb;

	return h->nat ? h->epfd : h->bpf->ops->fd(h->bpf);
}

static int hybrid_poll(struct kt_backend *kb, int timeout_ms)
{
	struct hybrid *h = (struct hybrid *)kb;
	struct epoll_event ev;
	int n, m;

	if (!h->nat) {
		n = h->bpf->ops->poll(h->bpf, timeout_ms);
		h->base.wake_ns = h->bpf->wake_ns;
		return n;
	}
	if (timeout_ms && epoll_wait(h->epfd, &ev, 1, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	n = h->bpf->ops->poll(h->bpf, 0);
	if (n < 0)
		return n;
	m = h->nat->ops->poll(h->nat, 0);
	h->base.wake_ns = kt_wake_min(h->bpf->wake_ns, h->nat->wake_ns);
	return m < 0 ? m : n + m;
}

static void hybrid_sources(struct kt_backend *kb, struct kt_source_report *r)
{
	struct hybrid *h = (struct hybrid *)kb;
	unsigned int s;

	*r = h->rep;
	for (s = 1; s < KT_SRC_MAX; s++)
		if (h->native_mask & (1U << s))
			r->state[s] = KT_SS_LIVE;
}

static void hybrid_describe(struct kt_backend *kb, char *buf, size_t size)
{
	struct hybrid *h = (struct hybrid *)kb;

	kt_sources_describe(&h->rep, h->native_mask, buf, size);
}

static unsigned long hybrid_hooks(struct kt_backend *kb)
{
	struct hybrid *h = (struct hybrid *)kb;

	return h->bpf->ops->hooks ? h->bpf->ops->hooks(h->bpf) : 0;
}

/* Deaths of snapshot symbols: native records see them by themselves. */
static int hybrid_adopt(struct kt_backend *kb, const struct kt_record *r)
{
	struct hybrid *h = (struct hybrid *)kb;

	if (!h->bpf->ops->adopt || (r->source && (h->native_mask & (1U << r->source))))
		return 0;
	return h->bpf->ops->adopt(h->bpf, r);
}

static int hybrid_walker(struct kt_backend *kb, struct kt_walker *out)
{
	struct hybrid *h = (struct hybrid *)kb;

	return h->bpf->ops->walker ? h->bpf->ops->walker(h->bpf, out) : -ENOENT;
}

static unsigned long long hybrid_missed(struct kt_backend *kb)
{
	struct hybrid *h = (struct hybrid *)kb;

	return h->bpf->ops->missed ? h->bpf->ops->missed(h->bpf) : 0;
}

static unsigned long long hybrid_skipped(struct kt_backend *kb, unsigned long long *made_up)
{
	struct hybrid *h = (struct hybrid *)kb;

	*made_up = 0;
	return h->bpf->ops->skipped ? h->bpf->ops->skipped(h->bpf, made_up) : 0;
}

static unsigned long long hybrid_dropped(struct kt_backend *kb, bool native)
{
	struct hybrid *h = (struct hybrid *)kb;

	if (native)
		return h->nat ? h->nat->ops->dropped(h->nat, true) : 0;
	return h->bpf->ops->dropped(h->bpf, false);
}

static void hybrid_close(struct kt_backend *kb)
{
	struct hybrid *h = (struct hybrid *)kb;

	if (!h)
		return;
	if (h->nat)
		h->nat->ops->close(h->nat);
	if (h->bpf)
		h->bpf->ops->close(h->bpf);
	if (h->epfd >= 0)
		close(h->epfd);
	free(h);
}

static const struct kt_backend_ops hybrid_ops = {
	.name = "bpf",
	.fd = hybrid_fd,
	.poll = hybrid_poll,
	.describe = hybrid_describe,
	.sources = hybrid_sources,
	.hooks = hybrid_hooks,
	.adopt = hybrid_adopt,
	.walker = hybrid_walker,
	.dropped = hybrid_dropped,
	.missed = hybrid_missed,
	.skipped = hybrid_skipped,
	.close = hybrid_close,
};

int kt_hybrid_open_bpf(struct kt_backend **out, const struct kt_backend_opts *o, kt_emit_fn emit,
		       void *ctx, char *why, size_t why_size)
{
	struct hybrid *h = calloc(1, sizeof(*h));
	int err;

	if (!h) {
		snprintf(why, why_size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	h->base.ops = &hybrid_ops;
	h->emit = emit;
	h->ctx = ctx;
	h->epfd = -1;
	err = kt_bpf_backend.open(&h->bpf, o, emit_bpf, h, why, why_size);
	if (err) {
		free(h);
		return err;
	}
	h->base.wake_ns = h->bpf->wake_ns;
	h->bpf->ops->sources(h->bpf, &h->rep);
	*out = &h->base;
	return 0;
}

void kt_hybrid_report(struct kt_backend *b, struct kt_source_report *r)
{
	*r = ((struct hybrid *)b)->rep;
}

int kt_hybrid_add_native(struct kt_backend *b, const struct kt_backend_opts *o, unsigned int mask,
			 char *why, size_t why_size)
{
	struct hybrid *h = (struct hybrid *)b;
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	h->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (h->epfd < 0) {
		err = -errno;
		snprintf(why, why_size, "epoll_create1: %s", strerror(-err));
		return err;
	}
	/* Before the native side opens, so that no record of its slips by
	 * unfiltered. */
	h->native_mask = mask;
	err = kt_native_backend.open(&h->nat, o, emit_native, h, why, why_size);
	if (err)
		goto fail;
	if (epoll_ctl(h->epfd, EPOLL_CTL_ADD, h->bpf->ops->fd(h->bpf), &ev) ||
	    epoll_ctl(h->epfd, EPOLL_CTL_ADD, h->nat->ops->fd(h->nat), &ev)) {
		err = -errno;
		snprintf(why, why_size, "epoll_ctl: %s", strerror(-err));
		goto fail;
	}
	h->base.wake_ns = kt_wake_min(h->bpf->wake_ns, h->nat->wake_ns);
	return 0;
fail:
	h->native_mask = 0;
	if (h->nat)
		h->nat->ops->close(h->nat);
	h->nat = NULL;
	close(h->epfd);
	h->epfd = -1;
	return err;
}
