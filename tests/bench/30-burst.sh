# Burst: KTB_BURST programs loaded and closed as fast as KTB_BURST_THREADS
# threads go (2 KSYMBOL + 2 BPF_EVENT records each), once with ksymtap at
# default settings (JSON to a tmpfs file) and once with perf at default buffers
# (perf record -e dummy -a to a tmpfs file).  Expected, received and lost
# records for each: ksymtap's from its JSON (lost records are in the stream),
# perf's from perf report -D (PERF_RECORD_LOST and the records themselves,
# leaving out the ones perf synthesizes at start).  ksymtap's peak RSS after
# streaming the burst is reported too.
. /ksymtap/bench_lib.sh

bench burst.programs "$KTB_BURST"
bench burst.threads "$KTB_BURST_THREADS"

# -v: ksymtap says at exit how many runs each hook skipped and its backup
# twins made up (user/backend/bpf_backend.c), which costs nothing before.
ktb_start burst.json burst.err -f json -v
out=$(ktbload burst -n "$KTB_BURST" -j "$KTB_BURST_THREADS" -N ktb_burst) || fail "ktbload: $out"
note "ksymtap run: $out"
# Let the consumer catch up before asking for its peak RSS.
sleep 3
bench memory.stream_burst.hwm_kb "$(status_kb $KT_PID VmHWM)"
bench memory.stream_burst.rss_kb "$(status_kb $KT_PID VmRSS)"
kt_stop
loaded=$(field loaded "$out")
recv=$(grep -v '"snapshot":true' burst.json | grep -c 'ktb_burst')
lost=$(awk '/"kind":"lost"/ { sub(/.*"lost":/, ""); sub(/[,}].*/, ""); n += $0 } END { print n + 0 }' burst.json)
bench burst.kt.expected $((loaded * 4))
bench burst.kt.received "$recv"
bench burst.kt.lost "$lost"
bench burst.kt.elapsed_ns "$(field elapsed_ns "$out")"
grep -i lost burst.err
# Why records were lost, as ksymtap said it (user/backend/bpf_backend.c): a
# full ring, a full reader queue, or hook runs the kernel skipped (a hook
# preempted on its CPU) that no backup twin made up; and the skipped runs,
# made up or not.
sum_of() { # sed-expression
	sed -n "$1" burst.err | awk '{ n += $1 } END { print n + 0 }'
}
bench burst.kt.lost_ring_full "$(sum_of 's/.*ring buffer full: \([0-9]*\) records lost.*/\1/p')"
bench burst.kt.lost_queue_full "$(sum_of 's/.*reader queue full: \([0-9]*\) records lost.*/\1/p')"
bench burst.kt.hook_runs_lost "$(sum_of 's/.*the kernel skipped \([0-9]*\) hook runs.*/\1/p')"
bench burst.kt.hook_runs_skipped "$(sum_of 's/.*: \([0-9]*\) runs skipped, .*/\1/p')"
bench burst.kt.hook_runs_made_up "$(sum_of 's/.*runs skipped, \([0-9]*\) made up.*/\1/p')"
sleep 1

ktb_perf_start burst.data
out=$(ktbload burst -n "$KTB_BURST" -j "$KTB_BURST_THREADS" -N ktb_burst) || fail "ktbload: $out"
note "perf run: $out"
sleep 1
ktb_perf_stop
cat burst.data.err
loaded=$(field loaded "$out")
perf report -D -i burst.data >burst.dump 2>burst.dump.err || fail "perf report: $(cat burst.dump.err)"
# "CPU TIME OFFSET [SIZE]: PERF_RECORD_..." ; synthesized records have time 0.
recv=$(awk '/PERF_RECORD_KSYMBOL .*ktb_burst/ && $2 != "0" { n++ }
	/PERF_RECORD_BPF_EVENT/ && $2 != "0" { n++ } END { print n + 0 }' burst.dump)
lost=$(awk '/PERF_RECORD_LOST / { for (i = 1; i < NF; i++) if ($i == "lost") n += $(i + 1) }
	END { print n + 0 }' burst.dump)
grep PERF_RECORD_LOST burst.dump | head -n 3
bench burst.perf.expected $((loaded * 4))
bench burst.perf.received "$recv"
bench burst.perf.lost "$lost"
bench burst.perf.elapsed_ns "$(field elapsed_ns "$out")"
rm -f burst.data burst.dump
