# Issue 3: a full ring buffer loses records, but never silently: the count is
# reported on stderr and as a PERF_RECORD_LOST in the stream, and received +
# lost covers every record the kernel itself reported over the same window.
# A reader that stops reading makes the writer block, the ring fill up.
. /ksymtap/lib.sh
need_bpf_backend

mkfifo pipe
# The reader waits for the workload to end: ksymtap blocks on the full pipe,
# the 4 KiB ring fills.
(while [ ! -e go ]; do sleep 0.1; done; cat) <pipe >ours.json &
READER=$!
ksymtap -f json --ringbuf-size 4096 >pipe 2>ours.err &
KT_PID=$!
wait_for ours.err '^ksymtap: ready' 60 || { cat ours.err; fail "not ready"; }
perf_start native.data
ktprog -r 300 >/dev/null || fail "workload"
sleep 0.5
perf_stop
touch go
# SIGTERM, like SIGINT, drains, flushes and exits 0.
kill -TERM $KT_PID
wait $KT_PID
rc=$?
wait $READER
[ $rc -eq 0 ] || { cat ours.err; fail "ksymtap exited $rc after SIGTERM"; }
cat ours.err

native=$(perf_records native.data | wc -l)
received=$(json_count ours.json '.kind == "ksymbol" or .kind == "bpf_event"')
lost=$(json_sel ours.json '.kind == "lost"' | jq -s 'map(.lost) | add // 0')
note "native $native, received $received, lost $lost"
[ "$lost" -gt 0 ] || fail "no PERF_RECORD_LOST in the stream although the ring was tiny and blocked"
grep -q 'ring buffer full: [0-9]* records lost' ours.err || fail "no loss report on stderr"
[ "$received" -lt "$native" ] || fail "nothing was lost? received $received of $native"
[ $((received + lost)) -ge "$native" ] ||
	fail "received $received + lost $lost < $native the kernel reported: a silent loss"
