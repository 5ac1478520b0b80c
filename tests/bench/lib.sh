# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Helpers for the benchmark scripts (busybox sh, inside the guest; installed as
# /ksymtap/bench_lib.sh).  A script prints its figures as "BENCH key=value"
# lines on stdout: inside.sh passes them to the host, tests/bench/run.sh
# collects them.  Sizes come from the environment (tests/bench/run.sh sets
# them on vmtest.sh's --env); the defaults are the full run's.
. /ksymtap/lib.sh

: "${KTB_CYCLES:=2000}"		# timed load+close cycles per block
: "${KTB_WARMUP:=200}"		# untimed cycles before each block
: "${KTB_REPS:=5}"		# blocks per condition, interleaved
: "${KTB_LAT:=2000}"		# paced loads for the latency run
: "${KTB_LAT_GAP_US:=2000}"	# pause between them
: "${KTB_BURST:=20000}"		# programs in the burst
: "${KTB_BURST_THREADS:=4}"
: "${KTB_HOLD:=5000}"		# programs alive for the start-up and memory runs
: "${KTB_STARTUP_REPS:=3}"

bench() { # key value
	echo "BENCH $1=$2"
}

# Value after KEY in a "key value key value" line.
field() { # key line
	echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}

# Median, minimum and maximum of the numbers on stdin: "MEDIAN MIN MAX".
stats() {
	sort -n | awk '{ a[NR] = $1 }
	END {
		if (!NR) { print "0 0 0"; exit }
		m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		printf "%.10g %s %s\n", m, a[1], a[NR]
	}'
}

# BENCH lines KEY.median, KEY.min, KEY.max of the numbers on stdin.
bench_stats() { # key
	set -- "$1" $(stats)
	bench "$1.median" "$2"
	bench "$1.min" "$3"
	bench "$1.max" "$4"
}

# CPU time (ns) of all of a process's threads so far; 0 without a pid.
task_cpu_ns() { # [pid]
	[ -n "${1:-}" ] || { echo 0; return; }
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}

# Context switches of all threads of pid, voluntary and involuntary; with
# "voluntary", only those: its wake-ups.  0 without a pid.
task_switches() { # [pid] [voluntary]
	[ -n "${1:-}" ] || { echo 0; return; }
	cat /proc/"$1"/task/*/status 2>/dev/null | awk -v only="${2:-}" '
		$1 == "voluntary_ctxt_switches:" || (only == "" && $1 == "nonvoluntary_ctxt_switches:") { s += $2 }
		END { printf "%d\n", s }'
}

status_kb() { # pid key
	awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"
}

# ksymtap (or $KT_BINARY) in the background, stdout to OUT and stderr to ERR;
# waits for the ready line.  kt_stop (tests/vm/lib.sh) ends it.
ktb_start() { # out err args...
	local out=$1 err=$2
	shift 2
	# Truncate here: the child's own redirection may come after our first
	# look at ERR, which must not find the previous run's ready line.
	: >"$err"
	${KT_BINARY:-ksymtap} "$@" >"$out" 2>"$err" &
	KT_PID=$!
	if ! wait_for "$err" '^ksymtap: ready' 120; then
		cat "$err"
		fail "ksymtap did not become ready"
	fi
}

# perf record -e dummy -a, started with its events disabled and enabled over
# its control fifo, so that "ack" says exactly when it records (perf has no
# ready line; it synthesizes what exists first, which takes seconds here).
ktb_perf_start() { # data-file
	rm -f perf.ctl perf.ack
	mkfifo perf.ctl perf.ack
	perf record -q -e dummy -a -D -1 --control fifo:perf.ctl,perf.ack -o "$1" \
		>/dev/null 2>"$1.err" &
	PERF_PID=$!
	exec 5<>perf.ack 6<>perf.ctl
	echo enable >&6
	local a=
	read -t 120 a <&5
	exec 5<&- 6<&-
	[ "$a" = ack ] || fail "perf record did not acknowledge enable: $(cat "$1.err")"
}

ktb_perf_stop() {
	kill -INT "$PERF_PID"
	wait "$PERF_PID"
	local rc=$?
	PERF_PID=
	# perf re-raises the SIGINT it handled once it has written its file.
	[ $rc -eq 0 ] || [ $rc -eq 130 ] || fail "perf record exited $rc"
}
