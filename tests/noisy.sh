#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make test-noisy: the host tests (plain and sanitized) while a neighbour
# loads and unloads BPF programs on every CPU all along, as a profiler, a
# second test run or a busy CI machine would: a host test judges only what
# it made, so the neighbour must not fail one.  The neighbour is ktprog -r
# (a socket filter loaded and closed in a loop, tests/vm/progs/ktprog.c).
#
#   tests/noisy.sh [tests/run.sh options...]   (default: --unit --san build/asan)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prog=$top/build/tests/vm/ktprog
[ -x "$prog" ] || { echo "noisy: $prog missing (make vm-build)" >&2; exit 2; }
[ $# -gt 0 ] || set -- --unit --san build/asan
pids=()
stop() {
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
}
trap stop EXIT
for c in $(seq 0 $(($(nproc) - 1))); do
	# About 100 programs a second per CPU: a profiler, a second test run.
	(while :; do taskset -c "$c" "$prog" -r 10 >/dev/null 2>&1; sleep 0.1; done) &
	pids+=($!)
done
echo "noisy: a neighbour loads and unloads programs on $(nproc) CPU(s)"
"$top/tests/run.sh" "$@"
rc=$?
echo "noisy: the neighbour ran all along"
exit $rc
