// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fileio.h"
#include "hooks.h"
#include "metrics.h"
#include "version.h"
#include "symtab.h"

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
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
	head(f, "ksymtap_duplicates_total", "counter",
	     "Registers of symbols already in the table (snapshot overlap), dropped.");
	fprintf(f, "ksymtap_duplicates_total %llu\n", p->dups);
	head(f, "ksymtap_table_untracked_total", "counter",
	     "Symbols and programs passed on but not kept in the table (out of memory).");
	fprintf(f, "ksymtap_table_untracked_total %llu\n", kt_symtab_untracked(p->tab));

	head(f, "ksymtap_lost_records_total", "counter",
	     "Records lost: by the BPF ring buffer, the kernel's native rings, or a client's queue.");
	fprintf(f, "ksymtap_lost_records_total{where=\"ringbuf\"} %llu\n", m->ringbuf_lost);
	fprintf(f, "ksymtap_lost_records_total{where=\"native\"} %llu\n", m->native_lost);
	if (m->serve)
		fprintf(f, "ksymtap_lost_records_total{where=\"client\"} %llu\n",
			m->serve->lost_records);

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

	head(f, "ksymtap_snapshot_symbols", "gauge",
	     "Live dynamic kernel symbols in the table (what a new client is sent).");
	fprintf(f, "ksymtap_snapshot_symbols %zu\n", kt_symtab_nsyms(p->tab));
	head(f, "ksymtap_snapshot_programs", "gauge", "Live BPF programs in the table.");
	fprintf(f, "ksymtap_snapshot_programs %zu\n", kt_symtab_nprogs(p->tab));

	kt_attrib_get_stats(p->attrib, &as);
	head(f, "ksymtap_attrib_cgroups_cached", "gauge", "Cgroup ids in the attribution cache.");
	fprintf(f, "ksymtap_attrib_cgroups_cached %llu\n", as.cached);
	head(f, "ksymtap_attrib_resolved_total", "counter",
	     "Cgroup ids resolved to a path, by how.");
	fprintf(f, "ksymtap_attrib_resolved_total{how=\"proc\"} %llu\n", as.resolved_proc);
	fprintf(f, "ksymtap_attrib_resolved_total{how=\"walk\"} %llu\n", as.resolved_walk);
	head(f, "ksymtap_attrib_unresolved_records_total", "counter",
	     "Records sent with an unknown cgroup path.");
	fprintf(f, "ksymtap_attrib_unresolved_records_total %llu\n", as.unresolved);

	if (m->serve) {
		const struct kt_serve_stats *s = m->serve;

		head(f, "ksymtap_clients_connected", "gauge", "Socket clients connected now.");
		fprintf(f, "ksymtap_clients_connected %llu\n", s->connected);
		head(f, "ksymtap_clients_accepted_total", "counter", "Socket clients accepted.");
		fprintf(f, "ksymtap_clients_accepted_total %llu\n", s->accepted);
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
		head(f, "ksymtap_clients_rejected_total", "counter",
		     "Socket clients refused (--max-clients).");
		fprintf(f, "ksymtap_clients_rejected_total %llu\n", s->rejected);
		head(f, "ksymtap_client_overflows_total", "counter",
		     "Times a client's queue filled (each is followed by a lost record and a snapshot).");
		fprintf(f, "ksymtap_client_overflows_total %llu\n", s->overflows);
		head(f, "ksymtap_client_snapshots_total", "counter",
		     "Snapshots sent to clients (on connect and after overflows).");
		fprintf(f, "ksymtap_client_snapshots_total %llu\n", s->snapshots);
		head(f, "ksymtap_client_disconnects_total", "counter", "Clients gone, by reason.");
		for (i = 0; i < KT_DISC_MAX; i++)
			fprintf(f, "ksymtap_client_disconnects_total{reason=\"%s\"} %llu\n",
				kt_disc_names[i], s->disconnects[i]);
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
