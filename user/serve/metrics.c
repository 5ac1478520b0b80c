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

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A metric of one sample. */
static void one(FILE *f, const char *name, const char *type, const char *help, unsigned long long v)
{
	head(f, name, type, help);
	fprintf(f, "%s %llu\n", name, v);
}

/* Over 60 lines: the exposition, metric after metric, in README order. */
int kt_metrics_print(FILE *f, const struct kt_metrics *m)
{
	const struct kt_pipeline *p = m->p;
	struct kt_attrib_stats as;
	struct timespec now;
	int i;

	head(f, "ksymtap_records_total", "counter",
	     "Records passed to the outputs, by kind and symbol source.");
	for (i = 1; i < KT_SRC_MAX; i++)
		fprintf(f, "ksymtap_records_total{kind=\"ksymbol\",source=\"%s\"} %llu\n",
			kt_source_name(i), p->ksymbols[i]);
	if (p->ksymbols[0])
		fprintf(f, "ksymtap_records_total{kind=\"ksymbol\",source=\"unknown\"} %llu\n",
			p->ksymbols[0]);
	fprintf(f, "ksymtap_records_total{kind=\"bpf_event\",source=\"bpf_prog\"} %llu\n",
		p->bpf_events);
	one(f, "ksymtap_duplicates_total", "counter",
	    "Registers of symbols already in the table (snapshot overlap), dropped.", p->dups);
	one(f, "ksymtap_table_untracked_total", "counter",
	    "Symbols and programs passed on but not kept in the table (out of memory).",
	    kt_symtab_untracked(p->tab));

	head(f, "ksymtap_lost_records_total", "counter",
	     "Records lost: by the BPF ring buffer, the kernel's native rings, hook runs the kernel skipped (a hook preempted on the same CPU), or a client's queue.");
	fprintf(f, "ksymtap_lost_records_total{where=\"ringbuf\"} %llu\n", m->ringbuf_lost);
	fprintf(f, "ksymtap_lost_records_total{where=\"hook\"} %llu\n", m->hook_missed);
	fprintf(f, "ksymtap_lost_records_total{where=\"native\"} %llu\n", m->native_lost);
	if (m->serve)
		fprintf(f, "ksymtap_lost_records_total{where=\"client\"} %llu\n",
			m->serve->lost_records);

	one(f, "ksymtap_resyncs_total", "counter",
	    "Enumerations after a reported loss (README, Lost records).", p->resync.runs);
	one(f, "ksymtap_resync_pending", "gauge",
	    "1 while a loss was reported and its resync has not run yet (at most a tenth of the time goes to resyncs).",
	    p->resync.wanted);
	head(f, "ksymtap_resync_records_total", "counter",
	     "Registers of what the table lacked and unregisters of what the kernel no longer had, found by resyncs.");
	fprintf(f, "ksymtap_resync_records_total{kind=\"register\"} %llu\n", p->resync.registered);
	fprintf(f, "ksymtap_resync_records_total{kind=\"unregister\"} %llu\n",
		p->resync.unregistered);

	head(f, "ksymtap_build_info", "gauge", "The ksymtap version running (git describe).");
	fprintf(f, "ksymtap_build_info{version=\"%s\"} 1\n", KT_VERSION);
	head(f, "ksymtap_backend_info", "gauge", "The backend in use.");
	fprintf(f, "ksymtap_backend_info{backend=\"%s\"} 1\n", m->backend);
	head(f, "ksymtap_hooks_live", "gauge", "BPF hooks attached.");
	fprintf(f, "ksymtap_hooks_live %d\n", __builtin_popcountl(m->hooks));
	if (m->has_hooks) {
		head(f, "ksymtap_hook_live", "gauge", "Whether each BPF hook is attached.");
		for (i = 0; i < KT_HOOK_MAX; i++)
			fprintf(f, "ksymtap_hook_live{hook=\"%s\",target=\"%s\"} %d\n",
				kt_hooks[i].name, kt_hooks[i].target, !!(m->hooks & (1UL << i)));
	}

	one(f, "ksymtap_snapshot_symbols", "gauge",
	    "Live dynamic kernel symbols in the table (what a new client is sent).",
	    kt_symtab_nsyms(p->tab));
	one(f, "ksymtap_snapshot_programs", "gauge", "Live BPF programs in the table.",
	    kt_symtab_nprogs(p->tab));

	kt_attrib_get_stats(p->attrib, &as);
	one(f, "ksymtap_attrib_cgroups_cached", "gauge", "Cgroup ids in the attribution cache.",
	    as.cached);
	head(f, "ksymtap_attrib_resolved_total", "counter",
	     "Cgroup ids resolved to a path, by how.");
	fprintf(f, "ksymtap_attrib_resolved_total{how=\"proc\"} %llu\n", as.resolved_proc);
	fprintf(f, "ksymtap_attrib_resolved_total{how=\"walk\"} %llu\n", as.resolved_walk);
	one(f, "ksymtap_attrib_unresolved_records_total", "counter",
	    "Records sent with an unknown cgroup path.", as.unresolved);

	if (m->serve) {
		const struct kt_serve_stats *s = m->serve;

		one(f, "ksymtap_clients_connected", "gauge", "Socket clients connected now.",
		    s->connected);
		one(f, "ksymtap_clients_accepted_total", "counter", "Socket clients accepted.",
		    s->accepted);
		head(f, "ksymtap_clients_accepted_by_uid_total", "counter",
		     "Socket clients accepted, by the peer's uid (SO_PEERCRED; \"other\": past 15 uids).");
		for (i = 0; i < (int)s->nuids; i++) {
			if (s->by_uid[i].uid == KT_UID_OTHER)
				fprintf(f,
					"ksymtap_clients_accepted_by_uid_total{uid=\"other\"} %llu\n",
					s->by_uid[i].n);
			else
				fprintf(f,
					"ksymtap_clients_accepted_by_uid_total{uid=\"%u\"} %llu\n",
					s->by_uid[i].uid, s->by_uid[i].n);
		}
		one(f, "ksymtap_clients_rejected_total", "counter",
		    "Socket clients refused (--max-clients).", s->rejected);
		one(f, "ksymtap_client_overflows_total", "counter",
		    "Times a client's queue filled (each is followed by a lost record and a snapshot).",
		    s->overflows);
		one(f, "ksymtap_client_snapshots_total", "counter",
		    "Snapshots sent to clients (on connect and after overflows).", s->snapshots);
		head(f, "ksymtap_client_disconnects_total", "counter", "Clients gone, by reason.");
		for (i = 0; i < KT_DISC_MAX; i++)
			fprintf(f, "ksymtap_client_disconnects_total{reason=\"%s\"} %llu\n",
				kt_disc_names[i], s->disconnects[i]);
		head(f, "ksymtap_history_symbols", "gauge",
		     "Symbols in the query history, live and dead (kept by --history, --history-age).");
		fprintf(f, "ksymtap_history_symbols{state=\"live\"} %zu\n", s->hist_live);
		fprintf(f, "ksymtap_history_symbols{state=\"dead\"} %zu\n", s->hist_dead);
		one(f, "ksymtap_history_bytes", "gauge",
		    "Memory the query history holds (allocations, without the allocator's overhead).",
		    s->hist_bytes);
		one(f, "ksymtap_history_evicted_total", "counter",
		    "Dead symbols dropped from the query history (--history, --history-age).",
		    s->hist_evicted);
		one(f, "ksymtap_queries_total", "counter", "Query requests answered.", s->queries);
		one(f, "ksymtap_query_errors_total", "counter",
		    "Query requests that were not an address and time (answered with an error).",
		    s->query_errors);
	}

	head(f, "ksymtap_start_time_seconds", "gauge", "When this ksymtap started (unix time).");
	fprintf(f, "ksymtap_start_time_seconds %.3f\n", m->start_time);
	clock_gettime(CLOCK_REALTIME, &now);
	head(f, "ksymtap_metrics_time_seconds", "gauge",
	     "When this file was written (unix time): a stale file means a stuck daemon.");
	fprintf(f, "ksymtap_metrics_time_seconds %.3f\n", now.tv_sec + now.tv_nsec / 1e9);
	return ferror(f) ? -EIO : 0;
}

int kt_metrics_write(const char *path, const struct kt_metrics *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -ENOMEM;
	err = kt_metrics_print(f, m);
	if (fclose(f) && !err)
		err = -ENOMEM;
	/* Counters, no addresses: readable by the collector's user. */
	if (!err)
		err = kt_replace_file(path, buf, len, 0644);
	free(buf);
	return err;
}
