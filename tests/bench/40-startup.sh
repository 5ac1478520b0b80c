# Memory and start-up with KTB_HOLD programs alive.  First ksymtap runs while
# the programs are loaded (its peak RSS then holds their symbols); then, with
# them alive, KTB_STARTUP_REPS rounds of: ksymtap's time from exec to its
# "ksymtap: ready" line (after the start-up snapshot, where there is one) and
# its peak RSS at that point, `bpftool prog show` to /dev/null, and perf's own
# start-up synthesis (`perf record -e dummy -a -- true`), each from fork to
# exit.  ksymtap's start-up with nothing loaded is the reference.
. /ksymtap/bench_lib.sh

r=$(ktbrun -r 'ksymtap: ready' -- ksymtap) || fail "ksymtap start-up: $r"
bench startup.empty.kt_ready_ns "$(field ready_ns "$r")"
bench memory.empty.hwm_kb "$(field hwm_kb "$r")"

ktb_start alive.json alive.err -f json
ktbload hold -n "$KTB_HOLD" -w go -N ktb_hold >hold.txt 2>&1 &
HP=$!
wait_for hold.txt '^holding|ktbload' 600 || fail "loading $KTB_HOLD programs hangs"
grep -q '^holding' hold.txt || fail "$(cat hold.txt)"
sleep 3
bench memory.alive.programs "$KTB_HOLD"
bench memory.alive.hwm_kb "$(status_kb $KT_PID VmHWM)"
bench memory.alive.rss_kb "$(status_kb $KT_PID VmRSS)"
kt_stop
note "records while loading: $(grep -c ktb_hold alive.json)"
rm -f alive.json
n=$(bpftool prog show | grep -c 'name ktb_hold')
[ "$n" -eq "$KTB_HOLD" ] || fail "bpftool lists $n of $KTB_HOLD programs"
bench startup.programs "$KTB_HOLD"

: >st.tsv
i=1
while [ $i -le "$KTB_STARTUP_REPS" ]; do
	r=$(ktbrun -r 'ksymtap: ready' -t 300 -- ksymtap) || fail "ksymtap: $r"
	note "round $i ksymtap: $r"
	echo "kt $(field ready_ns "$r") $(field hwm_kb "$r")" >>st.tsv
	r=$(ktbrun -t 300 -- bpftool prog show) || fail "bpftool: $r"
	note "round $i bpftool: $r"
	echo "bpftool $(field exit_ns "$r") $(field maxrss_kb "$r")" >>st.tsv
	r=$(ktbrun -t 300 -- perf record -q -e dummy -a -o st.data -- true) || fail "perf: $r"
	note "round $i perf: $r"
	echo "perf $(field exit_ns "$r") $(field maxrss_kb "$r")" >>st.tsv
	rm -f st.data
	i=$((i + 1))
done
# Where ksymtap's start-up goes (-vv: its phases, in ms since exec).
ktb_start trace.out trace.err -vv
kt_stop
grep ' ms: ' trace.err | while read -r l; do note "start-up phases: $l"; done
touch go
wait $HP
cat st.tsv
awk '$1 == "kt" { print $2 }' st.tsv | bench_stats startup.kt.ready_ns
awk '$1 == "kt" { print $3 }' st.tsv | bench_stats memory.startup.hwm_kb
awk '$1 == "bpftool" { print $2 }' st.tsv | bench_stats startup.bpftool.exit_ns
awk '$1 == "perf" { print $2 }' st.tsv | bench_stats startup.perf.exit_ns
awk '$1 == "bpftool" { print $3 }' st.tsv | bench_stats startup.bpftool.maxrss_kb
awk '$1 == "perf" { print $3 }' st.tsv | bench_stats startup.perf.maxrss_kb
