// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "util/fileio.h"
#include "backend/hooks.h"
#include "serve/metrics.h"
#include "version.h"
#include "record/symtab.h"

/* What the exposition reads, gathered once. */
enum {
	V_DUPS,
	V_UNTRACKED,
	V_RESYNCS,
	V_RESYNC_PENDING,
	V_HOOKS_LIVE,
	V_SYMS,
	V_PROGS,
	V_ATTRIB_CACHED,
	V_ATTRIB_UNRESOLVED,
	V_CONNECTED,
	V_ACCEPTED,
	V_REJECTED,
	V_OVERFLOWS,
	V_SNAPSHOTS,
	V_HIST_BYTES,
	V_HIST_EVICTED,
	V_CODE_PROGS,
	V_CODE_TEXTS,
	V_CODE_BYTES,
	V_CODE_EVICTED,
	V_CODE_ANSWERS,
	V_QUERIES,
	V_QUERY_ERRORS,
	V_HOOK_SKIPPED,
	V_HOOK_MADE_UP,
	V_QUEUE_BYTES,
	V_QUEUE_PEAK,
	V_QUEUE_BOUND,
	V_OTLP_REQUESTS,
	V_OTLP_RETRIES,
	V_OTLP_QUEUE_BYTES,
	V_OTLP_QUEUE_BOUND,
	V_OTLP_SPOOLED,
	V_OTLP_SPOOL_BYTES,
	V_OTLP_SPOOL_RECORDS,
	V_OTLP_SPOOL_BOUND,
	V_MAX,
};

struct view {
	const struct kt_metrics *m;
	struct kt_attrib_stats as;
	unsigned long long v[V_MAX];
};

/* Samples with labels (or not integers) of the family name. */
typedef void (*samples_fn)(FILE *f, const char *name, const struct view *w);

static void records(FILE *f, const char *name, const struct view *w)
{
	const struct kt_pipeline *p = w->m->p;
	int i;

	for (i = 1; i < KT_SRC_MAX; i++)
		fprintf(f, "%s{kind=\"ksymbol\",source=\"%s\"} %llu\n", name, kt_source_name(i),
			p->ksymbols[i]);
	if (p->ksymbols[0])
		fprintf(f, "%s{kind=\"ksymbol\",source=\"unknown\"} %llu\n", name, p->ksymbols[0]);
	fprintf(f, "%s{kind=\"bpf_event\",source=\"bpf_prog\"} %llu\n", name, p->bpf_events);
}

static void lost(FILE *f, const char *name, const struct view *w)
{
	fprintf(f, "%s{where=\"ringbuf\"} %llu\n", name, w->m->ringbuf_lost);
	fprintf(f, "%s{where=\"hook\"} %llu\n", name, w->m->hook_missed);
	fprintf(f, "%s{where=\"native\"} %llu\n", name, w->m->native_lost);
	fprintf(f, "%s{where=\"queue\"} %llu\n", name, w->m->queue.lost);
	if (w->m->serve)
		fprintf(f, "%s{where=\"client\"} %llu\n", name, w->m->serve->lost_records);
}

static void otlp_records(FILE *f, const char *name, const struct view *w)
{
	const struct kt_otlp_stats *o = w->m->otlp;

	fprintf(f, "%s{outcome=\"sent\"} %llu\n", name, o->sent);
	fprintf(f, "%s{outcome=\"rejected\"} %llu\n", name, o->rejected);
}

static void otlp_dropped(FILE *f, const char *name, const struct view *w)
{
	const struct kt_otlp_stats *o = w->m->otlp;

	fprintf(f, "%s{reason=\"queue_full\"} %llu\n", name, o->dropped_queue);
	fprintf(f, "%s{reason=\"refused\"} %llu\n", name, o->dropped_refused);
	fprintf(f, "%s{reason=\"end\"} %llu\n", name, o->dropped_end);
	fprintf(f, "%s{reason=\"spool\"} %llu\n", name, o->dropped_spool);
}

static void resync_records(FILE *f, const char *name, const struct view *w)
{
	fprintf(f, "%s{kind=\"register\"} %llu\n", name, w->m->p->resync.registered);
	fprintf(f, "%s{kind=\"unregister\"} %llu\n", name, w->m->p->resync.unregistered);
}

static void build_info(FILE *f, const char *name, const struct view *w)
{
	fprintf(f, "%s{version=\"%s\"} 1\n", name, KT_VERSION);
}

static void backend_info(FILE *f, const char *name, const struct view *w)
{
	fprintf(f, "%s{backend=\"%s\"} 1\n", name, w->m->backend);
}

static void hook_live(FILE *f, const char *name, const struct view *w)
{
	int i;

	for (i = 0; i < KT_HOOK_MAX; i++)
		fprintf(f, "%s{hook=\"%s\",target=\"%s\"} %d\n", name, kt_hooks[i].name,
			kt_hooks[i].target, !!(w->m->hooks & (1UL << i)));
}

static void attrib_resolved(FILE *f, const char *name, const struct view *w)
{
	fprintf(f, "%s{how=\"proc\"} %llu\n", name, w->as.resolved_proc);
	fprintf(f, "%s{how=\"walk\"} %llu\n", name, w->as.resolved_walk);
}

static void by_uid(FILE *f, const char *name, const struct view *w)
{
	const struct kt_serve_stats *s = w->m->serve;
	int i;

	for (i = 0; i < (int)s->nuids; i++) {
		if (s->by_uid[i].uid == KT_UID_OTHER)
			fprintf(f, "%s{uid=\"other\"} %llu\n", name, s->by_uid[i].n);
		else
			fprintf(f, "%s{uid=\"%u\"} %llu\n", name, s->by_uid[i].uid, s->by_uid[i].n);
	}
}

static void disconnects(FILE *f, const char *name, const struct view *w)
{
	int i;

	for (i = 0; i < KT_DISC_MAX; i++)
		fprintf(f, "%s{reason=\"%s\"} %llu\n", name, kt_disc_names[i],
			w->m->serve->disconnects[i]);
}

static void history_symbols(FILE *f, const char *name, const struct view *w)
{
	fprintf(f, "%s{state=\"live\"} %zu\n", name, w->m->serve->hist_live);
	fprintf(f, "%s{state=\"dead\"} %zu\n", name, w->m->serve->hist_dead);
}

static void code_unread(FILE *f, const char *name, const struct view *w)
{
	fprintf(f, "%s{reason=\"gone\"} %llu\n", name, w->m->serve->code_gone);
	fprintf(f, "%s{reason=\"failed\"} %llu\n", name, w->m->serve->code_failed);
}

static void start_time(FILE *f, const char *name, const struct view *w)
{
	fprintf(f, "%s %.3f\n", name, w->m->start_time);
}

static void now_time(FILE *f, const char *name, const struct view *w)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	fprintf(f, "%s %.3f\n", name, now.tv_sec + now.tv_nsec / 1e9);
}

enum when { ALWAYS, WITH_HOOKS, SERVING, EXPORTING };

/* The exposition, family by family, in README order: one sample from v[],
 * or the samples a function prints. */
#define ONE(n, t, h, idx, w)                                                          \
	{                                                                             \
		.name = n, .type = t, .help = h, .v = idx, .samples = NULL, .when = w \
	}
#define MANY(n, t, h, fn, w)                                                       \
	{                                                                          \
		.name = n, .type = t, .help = h, .v = -1, .samples = fn, .when = w \
	}
static const struct family {
	const char *name, *type, *help;
	int v;
	samples_fn samples;
	enum when when;
} families[] = {
	MANY("ksymtap_records_total", "counter",
	     "Records passed to the outputs, by kind and symbol source.", records, ALWAYS),
	ONE("ksymtap_duplicates_total", "counter",
	    "Registers of symbols already in the table (snapshot overlap), dropped.", V_DUPS,
	    ALWAYS),
	ONE("ksymtap_table_untracked_total", "counter",
	    "Symbols and programs passed on but not kept in the table (out of memory).",
	    V_UNTRACKED, ALWAYS),
	MANY("ksymtap_lost_records_total", "counter",
	     "Records lost: by the BPF ring buffer, the kernel's native rings, hook runs the kernel skipped that no backup twin made up, the reader's queue, or a client's queue.",
	     lost, ALWAYS),
	ONE("ksymtap_hook_runs_skipped_total", "counter",
	    "Runs of the main hook programs the kernel skipped (a hook preempted on the same CPU).",
	    V_HOOK_SKIPPED, WITH_HOOKS),
	ONE("ksymtap_hook_runs_made_up_total", "counter",
	    "Of those, runs their backup twins made up (the rest are lost, where=\"hook\").",
	    V_HOOK_MADE_UP, WITH_HOOKS),
	ONE("ksymtap_queue_bytes", "gauge",
	    "Records waiting between the reader thread and the output, in bytes.", V_QUEUE_BYTES,
	    ALWAYS),
	ONE("ksymtap_queue_peak_bytes", "gauge", "The most that ever waited there.", V_QUEUE_PEAK,
	    ALWAYS),
	ONE("ksymtap_queue_bound_bytes", "gauge",
	    "The most that may wait there (--queue-size); beyond it records are lost, where=\"queue\".",
	    V_QUEUE_BOUND, ALWAYS),
	ONE("ksymtap_resyncs_total", "counter",
	    "Enumerations after a reported loss (README, Lost records).", V_RESYNCS, ALWAYS),
	ONE("ksymtap_resync_pending", "gauge",
	    "1 while a loss was reported and its resync has not run yet (at most a tenth of the time goes to resyncs).",
	    V_RESYNC_PENDING, ALWAYS),
	MANY("ksymtap_resync_records_total", "counter",
	     "Registers of what the table lacked and unregisters of what the kernel no longer had, found by resyncs.",
	     resync_records, ALWAYS),
	MANY("ksymtap_build_info", "gauge", "The ksymtap version running (git describe).",
	     build_info, ALWAYS),
	MANY("ksymtap_backend_info", "gauge", "The backend in use.", backend_info, ALWAYS),
	ONE("ksymtap_hooks_live", "gauge", "BPF hooks attached.", V_HOOKS_LIVE, ALWAYS),
	MANY("ksymtap_hook_live", "gauge", "Whether each BPF hook is attached.", hook_live,
	     WITH_HOOKS),
	ONE("ksymtap_snapshot_symbols", "gauge",
	    "Live dynamic kernel symbols in the table (what a new client is sent).", V_SYMS,
	    ALWAYS),
	ONE("ksymtap_snapshot_programs", "gauge", "Live BPF programs in the table.", V_PROGS,
	    ALWAYS),
	ONE("ksymtap_attrib_cgroups_cached", "gauge", "Cgroup ids in the attribution cache.",
	    V_ATTRIB_CACHED, ALWAYS),
	MANY("ksymtap_attrib_resolved_total", "counter", "Cgroup ids resolved to a path, by how.",
	     attrib_resolved, ALWAYS),
	ONE("ksymtap_attrib_unresolved_records_total", "counter",
	    "Records sent with an unknown cgroup path.", V_ATTRIB_UNRESOLVED, ALWAYS),
	ONE("ksymtap_clients_connected", "gauge", "Socket clients connected now.", V_CONNECTED,
	    SERVING),
	ONE("ksymtap_clients_accepted_total", "counter", "Socket clients accepted.", V_ACCEPTED,
	    SERVING),
	MANY("ksymtap_clients_accepted_by_uid_total", "counter",
	     "Socket clients accepted, by the peer's uid (SO_PEERCRED; \"other\": past 15 uids).",
	     by_uid, SERVING),
	ONE("ksymtap_clients_rejected_total", "counter", "Socket clients refused (--max-clients).",
	    V_REJECTED, SERVING),
	ONE("ksymtap_client_overflows_total", "counter",
	    "Times a client's queue filled (each is followed by a lost record and a snapshot).",
	    V_OVERFLOWS, SERVING),
	ONE("ksymtap_client_snapshots_total", "counter",
	    "Snapshots sent to clients (on connect and after overflows).", V_SNAPSHOTS, SERVING),
	MANY("ksymtap_client_disconnects_total", "counter", "Clients gone, by reason.", disconnects,
	     SERVING),
	MANY("ksymtap_history_symbols", "gauge",
	     "Symbols in the query history, live and dead (kept by --history, --history-age).",
	     history_symbols, SERVING),
	ONE("ksymtap_history_bytes", "gauge",
	    "Memory the query history holds (allocations, without the allocator's overhead).",
	    V_HIST_BYTES, SERVING),
	ONE("ksymtap_history_evicted_total", "counter",
	    "Dead symbols dropped from the query history (--history, --history-age).",
	    V_HIST_EVICTED, SERVING),
	ONE("ksymtap_code_programs", "gauge",
	    "Programs whose code (bpf_prog_info, BTF) is kept for mode=code, as long as the history "
	    "keeps them.",
	    V_CODE_PROGS, SERVING),
	ONE("ksymtap_code_texts", "gauge",
	    "Trampolines and other code whose bytes (from /proc/kcore) are kept for mode=code.",
	    V_CODE_TEXTS, SERVING),
	ONE("ksymtap_code_bytes", "gauge",
	    "Memory the kept code holds (bpf_prog_info arrays, BTF, other code's bytes; bounded "
	    "by --code-size for what is gone).",
	    V_CODE_BYTES, SERVING),
	MANY("ksymtap_code_unread_total", "counter",
	     "Programs whose code could not be read: gone before it was (and not copied at its "
	     "unload), or another failure.",
	     code_unread, SERVING),
	ONE("ksymtap_code_evicted_total", "counter",
	    "Gone programs and code whose code was dropped (--history, --history-age, --code-size).",
	    V_CODE_EVICTED, SERVING),
	ONE("ksymtap_code_answers_total", "counter", "mode=code requests answered.", V_CODE_ANSWERS,
	    SERVING),
	ONE("ksymtap_queries_total", "counter", "Query requests answered.", V_QUERIES, SERVING),
	ONE("ksymtap_query_errors_total", "counter",
	    "Query requests that were not an address and time (answered with an error).",
	    V_QUERY_ERRORS, SERVING),
	MANY("ksymtap_otlp_log_records_total", "counter",
	     "Records the OTLP collector took (sent) or answered as rejected (partial success).",
	     otlp_records, EXPORTING),
	MANY("ksymtap_otlp_dropped_records_total", "counter",
	     "Records not exported: the exporter's queue was full, the collector refused them with an error that is not retried, they were still queued at the end, or the spool was full or could not be written.",
	     otlp_dropped, EXPORTING),
	ONE("ksymtap_otlp_requests_total", "counter", "OTLP requests the collector took.",
	    V_OTLP_REQUESTS, EXPORTING),
	ONE("ksymtap_otlp_retries_total", "counter",
	    "OTLP requests sent again (429, 502, 503, 504 or no answer).", V_OTLP_RETRIES,
	    EXPORTING),
	ONE("ksymtap_otlp_queue_bytes", "gauge", "Records waiting for the OTLP exporter, in bytes.",
	    V_OTLP_QUEUE_BYTES, EXPORTING),
	ONE("ksymtap_otlp_queue_bound_bytes", "gauge",
	    "The most that may wait for the OTLP exporter; beyond it records are dropped.",
	    V_OTLP_QUEUE_BOUND, EXPORTING),
	ONE("ksymtap_otlp_spooled_records_total", "counter",
	    "Records written to the spool (--otlp-spool) because the collector did not take them yet.",
	    V_OTLP_SPOOLED, EXPORTING),
	ONE("ksymtap_otlp_spool_bytes", "gauge", "What the spool holds, in bytes.",
	    V_OTLP_SPOOL_BYTES, EXPORTING),
	ONE("ksymtap_otlp_spool_records", "gauge", "Records the spool holds.", V_OTLP_SPOOL_RECORDS,
	    EXPORTING),
	ONE("ksymtap_otlp_spool_bound_bytes", "gauge",
	    "The most the spool may hold (--otlp-spool-size; 0: no spool); beyond it records are dropped.",
	    V_OTLP_SPOOL_BOUND, EXPORTING),
	MANY("ksymtap_start_time_seconds", "gauge", "When this ksymtap started (unix time).",
	     start_time, ALWAYS),
	MANY("ksymtap_metrics_time_seconds", "gauge",
	     "When these metrics were taken (unix time): a stale file means a stuck daemon.",
	     now_time, ALWAYS),
};

static void gather(struct view *w, const struct kt_metrics *m)
{
	const struct kt_serve_stats *s = m->serve;
	const struct kt_pipeline *p = m->p;

	w->m = m;
	kt_attrib_get_stats(p->attrib, &w->as);
	w->v[V_DUPS] = p->dups;
	w->v[V_UNTRACKED] = kt_symtab_untracked(p->tab);
	w->v[V_RESYNCS] = p->resync.runs;
	w->v[V_RESYNC_PENDING] = p->resync.wanted;
	w->v[V_HOOK_SKIPPED] = m->hook_skipped;
	w->v[V_HOOK_MADE_UP] = m->hook_made_up;
	w->v[V_QUEUE_BYTES] = m->queue.bytes;
	w->v[V_QUEUE_PEAK] = m->queue.peak;
	w->v[V_QUEUE_BOUND] = m->queue.bound;
	w->v[V_HOOKS_LIVE] = __builtin_popcountl(m->hooks);
	w->v[V_SYMS] = kt_symtab_nsyms(p->tab);
	w->v[V_PROGS] = kt_symtab_nprogs(p->tab);
	w->v[V_ATTRIB_CACHED] = w->as.cached;
	w->v[V_ATTRIB_UNRESOLVED] = w->as.unresolved;
	if (m->otlp) {
		w->v[V_OTLP_REQUESTS] = m->otlp->requests;
		w->v[V_OTLP_RETRIES] = m->otlp->retries;
		w->v[V_OTLP_QUEUE_BYTES] = m->otlp->queue_bytes;
		w->v[V_OTLP_QUEUE_BOUND] = m->otlp->queue_bound;
		w->v[V_OTLP_SPOOLED] = m->otlp->spooled;
		w->v[V_OTLP_SPOOL_BYTES] = m->otlp->spool_bytes;
		w->v[V_OTLP_SPOOL_RECORDS] = m->otlp->spool_records;
		w->v[V_OTLP_SPOOL_BOUND] = m->otlp->spool_bound;
	}
	if (!s)
		return;
	w->v[V_CONNECTED] = s->connected;
	w->v[V_ACCEPTED] = s->accepted;
	w->v[V_REJECTED] = s->rejected;
	w->v[V_OVERFLOWS] = s->overflows;
	w->v[V_SNAPSHOTS] = s->snapshots;
	w->v[V_HIST_BYTES] = s->hist_bytes;
	w->v[V_HIST_EVICTED] = s->hist_evicted;
	w->v[V_CODE_PROGS] = s->code_progs;
	w->v[V_CODE_TEXTS] = s->code_texts;
	w->v[V_CODE_BYTES] = s->code_bytes;
	w->v[V_CODE_EVICTED] = s->code_evicted;
	w->v[V_CODE_ANSWERS] = s->code_answers;
	w->v[V_QUERIES] = s->queries;
	w->v[V_QUERY_ERRORS] = s->query_errors;
}

int kt_metrics_print(FILE *f, const struct kt_metrics *m)
{
	const struct family *fam;
	struct view w = { 0 };

	gather(&w, m);
	for (fam = families; fam < families + sizeof(families) / sizeof(families[0]); fam++) {
		if ((fam->when == SERVING && !m->serve) ||
		    (fam->when == WITH_HOOKS && !m->has_hooks) ||
		    (fam->when == EXPORTING && !m->otlp))
			continue;
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help, fam->name,
			fam->type);
		if (fam->samples)
			fam->samples(f, fam->name, &w);
		else
			fprintf(f, "%s %llu\n", fam->name, w.v[fam->v]);
	}
	return ferror(f) ? -EIO : 0;
}

int kt_metrics_render(const struct kt_metrics *m, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int err;

	*buf = NULL;
	if (!f)
		return -ENOMEM;
	err = kt_metrics_print(f, m);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

int kt_metrics_write(const char *path, const struct kt_metrics *m)
{
	char *buf;
	size_t len;
	int err = kt_metrics_render(m, &buf, &len);

	/* Counters, no addresses: readable by the collector's user. */
	if (!err)
		err = kt_replace_file(path, buf, len, 0644);
	free(buf);
	return err;
}
