# Load-path overhead: the time of one BPF_PROG_LOAD + close of the smallest
# program (ktbload cycle, a socket filter), with nothing listening (base),
# with ksymtap streaming to /dev/null (kt, default settings and format), with
# ksymtap attached but stopped (ktstop: SIGSTOP after its ready line, so only
# its BPF programs run: they fill the ring, nobody is woken or reads; the ring
# holds a block's records), and with the kernel's own records consumed by perf
# (perf record -e dummy -a to a tmpfs file).  KTB_REPS rounds; in each, one
# block of KTB_CYCLES timed cycles per condition after KTB_WARMUP untimed
# ones, the order rotating from round to round so drift hits every condition
# alike; each condition's ratio is taken against the base block of the same
# round.  With /ksymtap/bin/ksymtap-alt present (tests/bench/run.sh --alt),
# condition alt is that binary streaming like kt: an A/B of a change.
# ktstop1 is ktstop with KSYMTAP_DEBUG_NO_BACKUP: where the kernel preempts
# in kernel code, the BPF programs without their backup twins (issue 34),
# so what the twins cost, in the same boot; elsewhere the same programs as
# ktstop.  altstop is ktstop of the --alt binary.
# ktempty is ksymtap with KSYMTAP_DEBUG_EMPTY: its program-path hooks attached
# but returning at once, the floor any fentry/fexit-based tap pays.  For kt,
# alt and perf, the listener's own CPU time over the block (all its threads,
# /proc/PID/task/*/schedstat) is reported per cycle too: under --icount that
# is its instructions per load+close; and its wake-ups (voluntary context
# switches) per cycle.
# With KTB_SERVE=1 (tests/bench/run.sh sets it in the icount boots) condition
# serve is `ksymtap serve` with one `ksymtap tail -f json` client to
# /dev/null: its listener CPU is the two processes' together.
. /ksymtap/bench_lib.sh

conds=${KTB_CONDS:-base kt ktstop ktstop1 ktempty perf}
[ -x $BIN/ksymtap-alt ] && conds="$conds alt altstop"
[ -n "${KTB_SERVE:-}" ] && conds="$conds serve"
note "$KTB_REPS rounds of $conds, $KTB_CYCLES cycles each after $KTB_WARMUP warm-up"
bench overhead.cycles "$KTB_CYCLES"
bench overhead.reps "$KTB_REPS"
# The first blocks after boot run slow (boot's deferred work, first packs):
# one unrecorded round of every condition first.
: >ov.tsv
rep=0
while [ $rep -le "$KTB_REPS" ]; do
	# Rotate the order by one each round.
	set -- $conds
	i=0
	while [ $i -lt $rep ]; do
		c=$1
		shift
		set -- "$@" "$c"
		i=$((i + 1))
		[ $i -gt 64 ] && break
	done
	for c in "$@"; do
		case $c in
		kt) ktb_start /dev/null kt.err ;;
		alt)
			KT_BINARY=$BIN/ksymtap-alt
			ktb_start /dev/null kt.err
			KT_BINARY=
			;;
		ktempty)
			export KSYMTAP_DEBUG_EMPTY=1
			ktb_start /dev/null kt.err
			unset KSYMTAP_DEBUG_EMPTY
			;;
		ktstop | ktstop1 | altstop)
			# A ring that holds the whole block, whatever the default.
			[ $c = ktstop1 ] && export KSYMTAP_DEBUG_NO_BACKUP=1
			[ $c = altstop ] && KT_BINARY=$BIN/ksymtap-alt
			ktb_start /dev/null kt.err --ringbuf-size 16M
			unset KSYMTAP_DEBUG_NO_BACKUP
			KT_BINARY=
			kill -STOP "$KT_PID"
			;;
		perf) ktb_perf_start ov.data ;;
		serve)
			ktb_start /dev/null kt.err serve -s /tmp/ov.sock
			ksymtap tail -s /tmp/ov.sock -f json >tail.json 2>tail.err &
			TAIL_PID=$!
			wait_for tail.json snapshot_end 60 || fail "tail got no table: $(cat tail.err)"
			# The table's lines are in; from here on to /dev/null.
			kill -INT $TAIL_PID
			wait $TAIL_PID
			ksymtap tail -s /tmp/ov.sock -f json >/dev/null 2>tail.err &
			TAIL_PID=$!
			sleep 2
			;;
		esac
		lpid= lpid2=
		case $c in
		kt | alt) lpid=$KT_PID ;;
		perf) lpid=$PERF_PID ;;
		serve) lpid=$KT_PID lpid2=$TAIL_PID ;;
		esac
		cpu0=$(($(task_cpu_ns $lpid) + $(task_cpu_ns $lpid2)))
		wk0=$(($(task_switches "$lpid" voluntary) + $(task_switches "$lpid2" voluntary)))
		out=$(ktbload cycle -n "$KTB_CYCLES" -W "$KTB_WARMUP" -N ktb_cycle) || fail "ktbload: $out"
		cpu=$(($(task_cpu_ns $lpid) + $(task_cpu_ns $lpid2) - cpu0))
		wk=$(($(task_switches "$lpid" voluntary) + $(task_switches "$lpid2" voluntary) - wk0))
		case $c in
		kt | ktstop | ktstop1 | altstop | ktempty | alt | serve)
			case $c in ktstop | ktstop1 | altstop) kill -CONT "$KT_PID" ;; esac
			kt_stop
			[ $c = serve ] && wait $TAIL_PID
			grep -i lost kt.err && fail "ksymtap lost records: $(cat kt.err)"
			;;
		perf)
			ktb_perf_stop
			rm -f ov.data
			;;
		esac
		note "round $rep $c: $out listener_cpu_ns $cpu listener_wakeups $wk"
		[ $rep -gt 0 ] && echo "$rep $c $(field mean_ns "$out") $(field p50_ns "$out") $((cpu / (KTB_CYCLES + KTB_WARMUP))) $(awk -v w=$wk -v n=$((KTB_CYCLES + KTB_WARMUP)) 'BEGIN { printf "%.3f", w / n }')" >>ov.tsv
		# Let deferred frees (RCU, workqueues) of this block settle.
		sleep 1
	done
	rep=$((rep + 1))
done

for c in $conds; do
	awk -v c=$c '$2 == c { print $3 }' ov.tsv | bench_stats overhead.$c.mean_ns
	awk -v c=$c '$2 == c { print $4 }' ov.tsv | bench_stats overhead.$c.p50_ns
	case $c in
	kt | alt | perf | serve)
		awk -v c=$c '$2 == c { print $5 }' ov.tsv | bench_stats overhead.$c.listener_ns
		awk -v c=$c '$2 == c { print $6 }' ov.tsv | bench_stats overhead.$c.wakeups_per_cycle
		;;
	esac
done
for c in $conds; do
	[ $c = base ] && continue
	awk -v c=$c '$2 == "base" { b[$1] = $3 } $2 == c { x[$1] = $3 }
		END { for (r in x) printf "%.5f\n", x[r] / b[r] }' ov.tsv | bench_stats overhead.$c.ratio
	awk -v c=$c '$2 == "base" { b[$1] = $4 } $2 == c { x[$1] = $4 }
		END { for (r in x) printf "%.5f\n", x[r] / b[r] }' ov.tsv | bench_stats overhead.$c.ratio_p50
done
cat ov.tsv
