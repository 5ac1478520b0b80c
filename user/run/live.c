// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What a command does around its run: the start-up snapshot, the ready
 * line, and the one report of a failure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/open.h"
#include "run/cli.h"
#include "sink/otlp.h"
#include "util/log.h"
#include "run/resync.h"
#include "snapshot/merge.h"
#include "snapshot/snapshot.h"

struct hold_ctx {
	struct kt_recbuf *snap;
	struct kt_backend *b;
};

/* A snapshot record, kept for the merge; and handed to the backend at once
 * (as close to the enumeration as can be), so that it recognizes its death. */
static int hold_and_adopt(void *ctx, struct kt_record *r)
{
	struct hold_ctx *h = ctx;

	kt_backend_adopt(h->b, r);
	return kt_recbuf_push(h->snap, r);
}

int kt_emit_snapshot(struct kt_pipeline *p, struct kt_backend *b)
{
	/* Tests point KSYMTAP_KALLSYMS at /dev/null to check the built names
	 * against the kernel's (docs/snapshot.md). */
	struct kt_walker wk = { .prog_fd = -1,
				.map_fd = -1,
				.kallsyms = getenv("KSYMTAP_KALLSYMS") };
	struct kt_recbuf snap = {}, live = {};
	struct hold_ctx h = { .snap = &snap, .b = b };
	struct kt_snapshot_stats st;
	size_t left = 0;
	char why[256] = "";
	int err;

	if (!b) {
		err = kt_snapshot(&wk, kt_pipeline_emit, p, &st, why, sizeof(why));
		goto report;
	}
	if (b->ops->walker)
		b->ops->walker(b, &wk);
	/* The enumeration, kept; then everything the backend has by now, kept
	 * too (docs/snapshot.md, "Races with the live stream"). */
	err = kt_snapshot(&wk, hold_and_adopt, &h, &st, why, sizeof(why));
	if (!err) {
		p->hold = &live;
		err = kt_drain(b, NULL, NULL);
		p->hold = NULL;
		if (err)
			snprintf(why, sizeof(why), "reading the records made meanwhile: %s",
				 strerror(-err));
	}
	if (!err)
		err = kt_snapshot_emit_merged(&snap, &live, kt_pipeline_emit, p, &left);
	if (left)
		kt_debug("snapshot: %zu of its records left out: born since the attach, their live "
			 "records say so",
			 left);
	kt_recbuf_free(&snap);
	kt_recbuf_free(&live);
report:
	if (err && why[0])
		kt_err("snapshot: %s", why);
	else if (err)
		kt_report(p, err, "snapshot");
	return err;
}

void kt_report(const struct kt_pipeline *p, int err, const char *doing)
{
	const char *why = kt_pipeline_why(p);

	if (why)
		kt_err("%s", why);
	else
		kt_err("%s: %s", doing, strerror(-err));
}

int kt_live_start(struct kt_common *c, struct kt_pipeline *p, struct kt_backend *b,
		  struct kt_kallsyms_file *kf)
{
	return kt_live_start_ready(c, p, b, kf, "");
}

/* Before the snapshot, so that the export holds the table too. */
static int open_otlp(struct kt_common *c, struct kt_pipeline *p)
{
	struct kt_otlp_config cfg;
	char why[300];
	int err;

	err = kt_otlp_config_load(&cfg, c->otlp_endpoint, why, sizeof(why));
	if (!err && c->otlp_spool && !cfg.enabled) {
		snprintf(
			why, sizeof(why),
			"--otlp-spool: no OTLP export to spool for (--otlp-endpoint or OTEL_EXPORTER_OTLP_ENDPOINT)");
		err = -EINVAL;
	}
	if (!err && c->otlp_spool) {
		snprintf(cfg.spool_dir, sizeof(cfg.spool_dir), "%s", c->otlp_spool);
		cfg.spool_bytes = c->otlp_spool_size;
	}
	if (!err && cfg.enabled)
		err = kt_otlp_open(&c->otlp, &cfg, p, why, sizeof(why));
	if (err)
		kt_err("%s", why);
	return err;
}

void kt_live_stop(struct kt_common *c)
{
	kt_otlp_close(c->otlp);
	c->otlp = NULL;
}

int kt_live_start_ready(struct kt_common *c, struct kt_pipeline *p, struct kt_backend *b,
			struct kt_kallsyms_file *kf, const char *ready_extra)
{
	char sources[128];
	int err;

	if (c->cgroup_root && kt_pipeline_cgroup_root(p, c->cgroup_root))
		kt_warn("--cgroup-root %s is not a usable cgroup2 mount; cgroup paths are unknown",
			c->cgroup_root);
	if (c->otlp_ok && (err = open_otlp(c, p)))
		return err;
	if (c->kallsyms) {
		kt_kallsyms_file_init(kf, c->kallsyms, p->tab);
		err = kt_pipeline_add_sink(p, &kf->sink);
		if (err) {
			kt_err("--kallsyms: %s", strerror(-err));
			return err;
		}
	}
	/* After the hooks are live, so that whatever the enumeration misses is
	 * in flight in the backend and whatever both see is deduplicated by
	 * the table (docs/snapshot.md). */
	if (!c->no_snapshot) {
		kt_trace("snapshot: start");
		err = kt_emit_snapshot(p, b);
		kt_trace("snapshot: done");
		if (err == -EPERM)
			kt_info("--no-snapshot starts without it");
		if (err)
			return err;
		/* Without a start-up snapshot, the table is not the kernel's
		 * and an enumeration would register everything in it. */
		kt_resync_init(p, b);
	}
	err = kt_pipeline_flush(p);
	if (err) {
		kt_report(p, err, "snapshot");
		return err;
	}
	/* After the snapshot, which forks (pump.h).  Then what the kernel made
	 * meanwhile (the snapshot's walker unloaded, among others) goes out
	 * before the ready line: a client that connects after it sees it in
	 * its table, not live. */
	if (b->ops->start && (err = b->ops->start(b))) {
		kt_err("starting the reader thread: %s", strerror(-err));
		return err;
	}
	if ((err = kt_otlp_start(c->otlp)))
		return err;
	err = kt_drain(b, kt_pipeline_tick, p);
	if (!err)
		err = kt_pipeline_flush(p);
	if (err) {
		kt_report(p, err, "reading records");
		return err;
	}
	b->ops->describe(b, sources, sizeof(sources));
	kt_info("ready: backend %s; sources: %s%s", b->ops->name, sources, ready_extra);
	return 0;
}

int kt_open_backend(const struct kt_common *c, struct kt_pipeline *p, struct kt_backend **b)
{
	char why[300];
	int err = kt_backend_open(c->backend, &c->bo, kt_pipeline_emit, p, b, why, sizeof(why));

	if (err)
		kt_err("%s", why);
	return err;
}
