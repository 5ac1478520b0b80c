#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The serve query's lookup rate against re-reading /proc/kallsyms (issue 14:
# 1,000,000 lookups per second on one core with 10,000 live symbols and
# 1,000,000 in the history).  Runs tests/bench/query/ktbquery on the host:
# the daemon's own code (pipeline, kt_server, history) in one thread, fed
# synthetic records, answering a client process over a Unix socket; then
# 10,000 socket filters loaded for real and /proc/kallsyms read and parsed.
# Prints its "BENCH key=value" lines, best of REPS runs for the rates:
#   query.live, query.dead, query.history_mb    the history measured
#   query.lookup_per_s          kt_history_find() alone, in-process
#   query.text_per_daemon_cpu_s text requests over the socket, per second of
#                               the daemon's CPU time (one thread: one core)
#   query.raw_per_daemon_cpu_s  the same, raw requests (16 bytes each)
#   query.*_per_wall_s          the same per second of wall time (the client
#                               shares the 2 cores)
#   query.kallsyms_reread_ms    read and parse /proc/kallsyms with 10,000
#                               programs loaded (best of 5)
#
#   tests/bench/host/query.sh [KTBQUERY]    (root for the kallsyms part)
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
bin=${1:-$top/build/tests/bench/ktbquery}
reps=${KTB_QUERY_REPS:-3}
[ -x "$bin" ] || { echo "host-query: $bin missing (make bench builds it)" >&2; exit 2; }
progs=10000
[ "$(id -u)" = 0 ] || { echo "host-query: not root: no kallsyms comparison" >&2; progs=0; }
best() { # key: the highest value over the runs
	grep "^BENCH query.$1=" "$T"/run.* | cut -d= -f2 | sort -g | tail -n 1
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for ((i = 1; i <= reps; i++)); do
	"$bin" --live 10000 --dead 1000000 --lookups 2000000 --programs $((i == 1 ? progs : 0)) \
		>"$T/run.$i" || exit 1
done
grep -E '^BENCH query\.(live|dead|history_mb|fill_s|lookup_found_pct|kallsyms_[a-z_]+)=' "$T/run.1"
for k in lookup_per_s text_per_daemon_cpu_s text_per_wall_s raw_per_daemon_cpu_s raw_per_wall_s; do
	echo "BENCH query.$k=$(best $k)"
done
