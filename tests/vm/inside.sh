#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# PID 1 of the test VM: mount what the tests need, run each test script with a
# bound, report on the second serial port (the host reads it), power off.
# A test's "BENCH key=value" lines (benchmarks) are passed on as they are.
only=$1
verbose=$2
limit=${3:-180}
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup
ip link set lo up
# Results on the second serial port, or where the machine has one UART
# (arm64 -M virt: kt.results=console) on the console, each line marked.
if grep -q 'kt.results=console' /proc/cmdline; then
	mkfifo /run/results
	while IFS= read -r l; do echo "@KT@ $l"; done </run/results >/dev/console &
	RESULTS_PID=$!
	exec 3>/run/results
else
	exec 3>/dev/ttyS1
fi
echo "INFO kernel $(uname -r), $(nproc) cpus" >&3

for t in /ksymtap/tests/*.sh; do
	name=$(basename "$t" .sh)
	if [ -n "$only" ] && ! echo "$name" | grep -Eq "$only"; then
		continue
	fi
	rm -rf /tmp/t && mkdir -p /tmp/t && cd /tmp/t
	start=$(date +%s)
	# A test that needs longer says so: "# vm-timeout: SEC".
	tl=$(sed -n 's/^# vm-timeout: \([0-9]*\).*/\1/p' "$t" | head -n 1)
	[ -n "$tl" ] && [ "$tl" -gt "$limit" ] || tl=$limit
	timeout -s KILL "$tl" sh "$t" >/tmp/t.log 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	grep -E '^(BENCH|HOOK) ' /tmp/t.log >&3
	case $rc in
	0) echo "PASS $name (${took}s)" >&3
		[ -n "$verbose" ] && sed 's/^/  | /' /tmp/t.log >&3 ;;
	77) echo "SKIP $name: $(grep '^SKIP:' /tmp/t.log | tail -n 1 | sed 's/^SKIP: *//')" >&3 ;;
	137) echo "FAIL $name: killed after ${tl}s" >&3; tail -n 60 /tmp/t.log | sed 's/^/  | /' >&3 ;;
	*) echo "FAIL $name (exit $rc)" >&3; tail -n 80 /tmp/t.log | sed 's/^/  | /' >&3 ;;
	esac
	# Leftovers of one test must not leak into the next.
	killall -9 ksymtap 2>/dev/null
	killall -9 perf 2>/dev/null
	killall -9 ktload ktprog ktstall 2>/dev/null
	rm -rf /sys/fs/bpf/* 2>/dev/null
done
echo DONE >&3
exec 3>&-
[ -n "${RESULTS_PID:-}" ] && wait "$RESULTS_PID"
sync
poweroff -f
