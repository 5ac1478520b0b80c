#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The resync after a loss (README, "Lost records") with the native backend on
# this machine's kernel: native rings of one page per CPU and a reader that
# is stopped (SIGSTOP), so the kernel loses records (PERF_RECORD_LOST); a program this test
# loaded is unloaded meanwhile.  The rings are per CPU, and the kernel may
# report an unload from a workqueue on any CPU (bpf_prog_put_deferred), so
# the workload fills every CPU's ring before the unload.  Once the loss is
# reported ksymtap enumerates again: the --kallsyms file equals
# /proc/kallsyms's dynamic lines, and the held program's end comes as
# records of origin "resync".  Other processes loading programs meanwhile
# only fill the rings further: the checks are about the held program.
. "${KT_TOP:-.}/tests/host/lib.sh"
serve_test_setup
command -v taskset >/dev/null || skip "taskset missing (util-linux)"
PROG=${KT_TOP:-.}/build/tests/vm/ktprog
[ -x "$PROG" ] || skip "build/tests/vm/ktprog missing (make vm-build)"
dyn() { grep -E $'\t\\[(bpf|__builtin__ftrace|__builtin__kprobes)\\]$' /proc/kallsyms | sort; }

"$KT" -b native --native-pages 1 -f json --kallsyms "$T/kf" >"$T/out.json" 2>"$T/err" &
KTP=$!
PIDS+=($KTP)
wait_for "$T/err" '^ksymtap: ready' 20 || { cat "$T/err"; fail "not ready"; }
taskset -c 0 "$LOAD" -w "$T/go1" "$OBJ" >"$T/held.txt" &
HELD=$!
PIDS+=($HELD)
wait_for "$T/held.txt" '^loaded kt_sock_main' 10 || fail "workload did not load"
id=$(awk '/^loaded kt_sock_main/ {print $4}' "$T/held.txt")
wait_for "$T/kf" 'kt_sock_main' 20 || fail "the held program never reached the kallsyms file"
# The reader stopped, the rings of every CPU filled: the held program's
# unload is lost, however much ksymtap would have buffered.
kill -STOP $KTP
fill=()
for c in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$c" "$PROG" -r 300 >/dev/null &
	fill+=($!)
done
for p in "${fill[@]}"; do wait "$p" || fail "workload"; done
touch "$T/go1"
wait $HELD
kill -CONT $KTP
wait_for "$T/err" 'resync after lost records' 30 || { cat "$T/err"; fail "no resync after the loss"; }
i=0
until dyn >"$T/kernel" && sort "$T/kf" >"$T/ours" && cmp -s "$T/kernel" "$T/ours"; do
	i=$((i + 1))
	[ $i -lt 50 ] || { diff "$T/kernel" "$T/ours"; fail "--kallsyms file differs from /proc/kallsyms (< kernel)"; }
	sleep 0.2
done
kill -INT $KTP
wait $KTP || { cat "$T/err"; fail "ksymtap exited $? after SIGINT"; }
grep -E 'lost|resync' "$T/err"
jq -e -s 'map(select(.kind == "lost")) | length > 0' "$T/out.json" >/dev/null ||
	fail "no lost record: the test's premise failed"
jq -e -s "map(select(.origin != \"resync\" and .kind == \"bpf_event\" and .type == 2 and .id == $id)) | length == 0" \
	"$T/out.json" >/dev/null || fail "the premise failed: the held program's unload reached ksymtap (a ring had room)"
jq -e -s "map(select(.origin == \"resync\" and .kind == \"bpf_event\" and .type == 2 and .id == $id)) | length == 1" \
	"$T/out.json" >/dev/null || fail "no PROG_UNLOAD of origin resync for the held program $id"
echo "# $(wc -l <"$T/kernel") dynamic symbols agree; $(jq -s 'map(select(.origin == "resync")) | length' "$T/out.json") resync records"
