# On demand (run.sh --only burstwhy): the burst of 30-burst.sh once more, with
# ksymtap at -vv and ktbringwatch sampling its ring and its threads, for the
# timeline of a loss (issue 34: what the reader was doing, how long it was
# off the CPU, the ring's fill over time).  Prints the timeline and ksymtap's
# stderr, both timed from the watcher's start, and the burst's figures.
. /ksymtap/bench_lib.sh

ktb_start why.json why.err -f json -vv
ktbringwatch -p $KT_PID -i 100 -s 500 -w why.stop >why.ring 2>&1 &
W=$!
t0=$(cut -d' ' -f1 /proc/uptime)
out=$(ktbload burst -n "$KTB_BURST" -j "$KTB_BURST_THREADS" -N ktb_burst) || fail "ktbload: $out"
t1=$(cut -d' ' -f1 /proc/uptime)
note "burst: $out (uptime $t0 .. $t1)"
sleep 3
touch why.stop
wait $W
kt_stop
note "ring timeline (t_ms from the watcher's start, just before the burst):"
sed 's/^/  ring: /' why.ring
note "ksymtap stderr:"
sed 's/^/  kt: /' why.err | grep -v 'verifier' | tail -n 60
lost=$(awk '/"kind":"lost"/ { sub(/.*"lost":/, ""); sub(/[,}].*/, ""); n += $0 } END { print n + 0 }' why.json)
bench burstwhy.kt.lost "$lost"
bench burstwhy.kt.received "$(grep -v '"snapshot":true' why.json | grep -c ktb_burst)"
