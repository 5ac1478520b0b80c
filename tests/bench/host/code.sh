#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The code archive's cost per load (issue 32): `ksymtap record -b native`
# with the archive (the default: each program's bpf_prog_info and BTF read
# by id as its load passes) and with --no-code, alternating, REPS rounds
# each, on this host's kernel.  The BPF side does not change with it, so
# what differs is user space: ksymtap's CPU time (/proc/PID/schedstat, ns on
# the CPU) from ready to stop, and its peak RSS.  Two workloads:
#   hold   N programs loaded and kept (each read: the archive's full cost)
#   cycle  N programs loaded and closed at once (most gone before the read:
#          the cost of trying)
# "BENCH key=value" lines, medians of REPS:
#   code.N                          programs per round
#   code.{hold,cycle}.{on,off}_ns_per_load   ksymtap's CPU ns per program
#   code.{hold,cycle}.extra_ns_per_load      on - off
#   code.hold.{on,off}_hwm_kb       peak RSS at the end of a hold round
#   code.hold.kib_per_prog          what the archive says it held / N
#   code.cycle.captured             programs the archive held (of N)
#
#   tests/bench/host/code.sh [KT_BIN]      (root; build/tests/bench/ktbload)
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
kt=$(readlink -f "${1:-$top/build/ksymtap}")
load=$top/build/tests/bench/ktbload
n=${KTB_CODE_N:-2000}
reps=${KTB_CODE_REPS:-5}
[ "$(id -u)" = 0 ] || { echo "host-code: needs root" >&2; exit 2; }
[ -x "$load" ] || { echo "host-code: $load missing (make bench-build)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 2

cpu_ns() { awk '{print $1}' "/proc/$1/schedstat"; }
# One round: prints "cpu_ns hwm_kb held_kib held_progs".
round() { # hold|cycle on|off
	local opt= kp c0 c1 hwm
	[ "$2" = off ] && opt=--no-code
	"$kt" record -b native --no-snapshot $opt -o k.data 2>k.err &
	kp=$!
	for _ in $(seq 100); do grep -q '^ksymtap: ready' k.err 2>/dev/null && break; sleep 0.1; done
	c0=$(cpu_ns $kp)
	rm -f go
	if [ "$1" = hold ]; then
		"$load" hold -n "$n" -w go >hold.txt 2>&1 &
		for _ in $(seq 600); do grep -q '^holding' hold.txt 2>/dev/null && break; sleep 0.1; done
	else
		"$load" cycle -n "$n" -W 0 >/dev/null 2>&1
	fi
	sleep 1
	c1=$(cpu_ns $kp)
	hwm=$(awk '/^VmHWM/ {print $2}' /proc/$kp/status)
	touch go
	wait %2 2>/dev/null
	kill -INT $kp
	wait $kp
	echo "$((c1 - c0)) $hwm $(sed -n 's/.*with the code of \([0-9]*\) programs (\([0-9]*\) KiB).*/\2 \1/p' k.err)"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

for w in hold cycle; do
	: >"$w.on" >"$w.off"
	for i in $(seq "$reps"); do
		round $w on >>"$w.on"
		round $w off >>"$w.off"
	done
done
echo "BENCH code.N=$n"
for w in hold cycle; do
	on=$(awk '{print $1}' $w.on | median)
	off=$(awk '{print $1}' $w.off | median)
	echo "BENCH code.$w.on_ns_per_load=$((on / n))"
	echo "BENCH code.$w.off_ns_per_load=$((off / n))"
	echo "BENCH code.$w.extra_ns_per_load=$(((on - off) / n))"
	echo "RAW code.$w.on cpu_ns,hwm_kb,kib,progs: $(tr '\n' ';' <$w.on)"
	echo "RAW code.$w.off cpu_ns,hwm_kb: $(tr '\n' ';' <$w.off)"
done
echo "BENCH code.hold.on_hwm_kb=$(awk '{print $2}' hold.on | median)"
echo "BENCH code.hold.off_hwm_kb=$(awk '{print $2}' hold.off | median)"
echo "BENCH code.hold.bytes_per_prog=$(($(awk '{print $3}' hold.on | median) * 1024 / n))"
echo "BENCH code.cycle.captured=$(awk '{print $4}' cycle.on | median)"
