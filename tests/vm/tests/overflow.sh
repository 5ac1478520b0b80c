# Issues 3 and 34: records are lost only where ksymtap cannot keep them, and
# never silently: the count is reported on stderr and as a PERF_RECORD_LOST
# in the stream, and received + lost covers every record the kernel itself
# reported over the same window.  Two places (user/backend/pump.h):
# - the reader's queue: the output blocked (a reader that stops reading), a
#   64K --queue-size fills while the reader thread still empties the ring;
#   the LOST record has origin "queue";
# - the BPF ring: the whole process stopped (SIGSTOP), so the reader thread
#   cannot run, and a 4K ring fills.
. /ksymtap/lib.sh
need_bpf_backend

# Received + lost against the kernel's own count for that window.
account() { # ours.json native.data what
	native=$(perf_records "$2" | wc -l)
	received=$(json_count "$1" '.kind == "ksymbol" or .kind == "bpf_event"')
	lost=$(json_sel "$1" '.kind == "lost"' | jq -s 'map(.lost) | add // 0')
	note "$3: native $native, received $received, lost $lost"
	[ "$lost" -gt 0 ] || fail "$3: no PERF_RECORD_LOST in the stream"
	[ "$received" -lt "$native" ] || fail "$3: nothing was lost? received $received of $native"
	[ $((received + lost)) -ge "$native" ] ||
		fail "$3: received $received + lost $lost < $native the kernel reported: a silent loss"
}

# 1. The output blocked: the queue fills, not the ring.
mkfifo pipe
(while [ ! -e go ]; do sleep 0.1; done; cat) <pipe >ours.json &
READER=$!
ksymtap -f json --queue-size 64K >pipe 2>ours.err &
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
account ours.json native.data "queue"
grep -q 'reader queue full: [0-9]* records lost' ours.err || fail "queue: no loss report on stderr"
json_has ours.json '.kind == "lost" and .origin == "queue"' ||
	fail "queue: no LOST record of origin queue"
grep -q 'ring buffer full' ours.err && fail "queue: the ring lost records though its reader ran"

# 2. The process stopped: its reader thread cannot empty the ring.
ksymtap -f json --ringbuf-size 4096 >ring.json 2>ring.err &
KT_PID=$!
wait_for ring.err '^ksymtap: ready' 60 || { cat ring.err; fail "not ready"; }
kill -STOP $KT_PID
perf_start ring.data
ktprog -r 100 >/dev/null || fail "workload"
sleep 0.5
perf_stop
kill -CONT $KT_PID
kill -TERM $KT_PID
wait $KT_PID
rc=$?
[ $rc -eq 0 ] || { cat ring.err; fail "ksymtap exited $rc after SIGTERM"; }
cat ring.err
account ring.json ring.data "ring"
grep -q 'ring buffer full: [0-9]* records lost' ring.err || fail "ring: no loss report on stderr"
