#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# ksymtap inject against copying the same perf.data (issue 13: within 3x of
# cat, constant memory whatever the size of IN).  Runs on the host (perf
# record -a -g makes IN; ksymtap record -b native makes FILE), prints
# "BENCH key=value" lines:
#   inject.in_mb            size of IN
#   inject.cat_ms           cat IN >OUT (page cache, no fsync), best of REPS
#   inject.ddsync_ms        dd IN to OUT with conv=fsync, best of REPS
#   inject.ms               ksymtap inject (reads IN twice, fsyncs OUT), best
#   inject.ratio_cat        inject.ms / inject.cat_ms
#   inject.ratio_ddsync     inject.ms / inject.ddsync_ms
#   inject.rss_kb.SIZE      peak RSS of inject with IN of SIZE MB, for two sizes
#
#   tests/bench/host/inject.sh [KT_BIN]     (root, perf, GNU time)
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
kt=${1:-$top/build/ksymtap}
reps=${KTB_INJECT_REPS:-5}
secs=${KTB_INJECT_SECS:-20}
[ "$(id -u)" = 0 ] || { echo "host-inject: needs root (perf record -a)" >&2; exit 2; }
command -v perf >/dev/null && [ -x /usr/bin/time ] || { echo "host-inject: needs perf and GNU time" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 2

"$kt" record -b native -o k.data 2>k.err &
kp=$!
sleep 2
# Busy CPUs so that every sample has a long kernel and user callchain.
perf record -q -a -g -F 2999 -o big.data -- \
	sh -c "timeout $secs sh -c 'while :; do cat /proc/kallsyms >/dev/null; done' & timeout $secs dd if=/dev/zero of=/dev/null bs=4k 2>/dev/null; wait" \
	>/dev/null 2>&1
perf record -q -a -g -F 2999 -o small.data -- sleep $((secs / 10)) >/dev/null 2>&1
kill -INT $kp
wait $kp

best() { # command...: best wall ms of reps runs
	local b= i s e ms
	for i in $(seq "$reps"); do
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s%N)
		ms=$(((e - s) / 1000000))
		[ -z "$b" ] || [ "$ms" -lt "$b" ] && b=$ms
	done
	echo "$b"
}
cat big.data >/dev/null
in_mb=$(($(stat -c %s big.data) / 1048576))
cat_ms=$(best sh -c 'cat big.data >out.cat')
dd_ms=$(best dd if=big.data of=out.dd bs=1M conv=fsync)
inj_ms=$(best "$kt" inject -i big.data -o out.data --symbols k.data)
rss_big=$(/usr/bin/time -f %M "$kt" inject -i big.data -o out.data --symbols k.data 2>&1 >/dev/null | tail -1)
rss_small=$(/usr/bin/time -f %M "$kt" inject -i small.data -o out2.data --symbols k.data 2>&1 >/dev/null | tail -1)
small_mb=$(($(stat -c %s small.data) / 1048576))
echo "BENCH inject.in_mb=$in_mb"
echo "BENCH inject.cat_ms=$cat_ms"
echo "BENCH inject.ddsync_ms=$dd_ms"
echo "BENCH inject.ms=$inj_ms"
echo "BENCH inject.ratio_cat=$(awk -v a="$inj_ms" -v b="$cat_ms" 'BEGIN { printf "%.2f", a / (b ? b : 1) }')"
echo "BENCH inject.ratio_ddsync=$(awk -v a="$inj_ms" -v b="$dd_ms" 'BEGIN { printf "%.2f", a / (b ? b : 1) }')"
echo "BENCH inject.rss_kb.${small_mb}mb=$rss_small"
echo "BENCH inject.rss_kb.${in_mb}mb=$rss_big"
