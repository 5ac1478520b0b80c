# Load-path overhead: the time of one BPF_PROG_LOAD + close of the smallest
# program (ktbload cycle, a socket filter), with nothing listening (base),
# with ksymtap streaming to /dev/null (kt, default settings and format), and
# with the kernel's own records consumed by perf (perf record -e dummy -a to a
# tmpfs file).  KTB_REPS blocks of KTB_CYCLES timed cycles per condition,
# after KTB_WARMUP untimed ones, the order rotating from block to block so
# drift hits every condition alike; each condition's ratio is taken against
# the base block of the same round.
. /ksymtap/bench_lib.sh

note "$KTB_REPS rounds of base/kt/perf, $KTB_CYCLES cycles each after $KTB_WARMUP warm-up"
bench overhead.cycles "$KTB_CYCLES"
bench overhead.reps "$KTB_REPS"
: >ov.tsv
rep=1
while [ $rep -le "$KTB_REPS" ]; do
	case $((rep % 3)) in
	1) order="base kt perf" ;;
	2) order="kt perf base" ;;
	0) order="perf base kt" ;;
	esac
	for c in $order; do
		case $c in
		kt) ktb_start /dev/null kt.err ;;
		perf) perf_start ov.data ;;
		esac
		out=$(ktbload cycle -n "$KTB_CYCLES" -W "$KTB_WARMUP" -N ktb_cycle) || fail "ktbload: $out"
		case $c in
		kt)
			ktb_stop
			grep -i lost kt.err && fail "ksymtap lost records: $(cat kt.err)"
			;;
		perf)
			perf_stop
			rm -f ov.data
			;;
		esac
		note "round $rep $c: $out"
		echo "$rep $c $(field mean_ns "$out") $(field p50_ns "$out")" >>ov.tsv
		# Let deferred frees (RCU, workqueues) of this block settle.
		sleep 1
	done
	rep=$((rep + 1))
done

for c in base kt perf; do
	awk -v c=$c '$2 == c { print $3 }' ov.tsv | bench_stats overhead.$c.mean_ns
	awk -v c=$c '$2 == c { print $4 }' ov.tsv | bench_stats overhead.$c.p50_ns
done
for c in kt perf; do
	awk -v c=$c '$2 == "base" { b[$1] = $3 } $2 == c { x[$1] = $3 }
		END { for (r in x) printf "%.5f\n", x[r] / b[r] }' ov.tsv | bench_stats overhead.$c.ratio
	awk -v c=$c '$2 == "base" { b[$1] = $4 } $2 == c { x[$1] = $4 }
		END { for (r in x) printf "%.5f\n", x[r] / b[r] }' ov.tsv | bench_stats overhead.$c.ratio_p50
done
cat ov.tsv
