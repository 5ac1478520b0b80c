# Wake-ups of an idle ksymtap (issue 26): stream to /dev/null, and serve with
# one tail client, while nothing happens for KTB_IDLE_S seconds (default
# 60).  The figure is each process's context switches over the window, all
# threads, voluntary and involuntary (/proc/PID/task/*/status); the window
# starts 2 s after the client has its table.  The script itself only sleeps.
. /ksymtap/bench_lib.sh
: "${KTB_IDLE_S:=60}"

ktb_start /dev/null stream.err
STREAM=$KT_PID
ksymtap serve -s /tmp/idle.sock 2>serve.err &
SRV=$!
wait_for serve.err '^ksymtap: ready' 120 || fail "serve not ready: $(cat serve.err)"
ksymtap tail -s /tmp/idle.sock -f json >tail.json 2>tail.err &
TAIL=$!
wait_for tail.json snapshot_end 30 || fail "tail got no table"
sleep 2
a1=$(task_switches $STREAM) a2=$(task_switches $SRV) a3=$(task_switches $TAIL)
sleep "$KTB_IDLE_S"
b1=$(task_switches $STREAM) b2=$(task_switches $SRV) b3=$(task_switches $TAIL)
bench idle.seconds "$KTB_IDLE_S"
bench idle.stream.ctxsw $((b1 - a1))
bench idle.serve.ctxsw $((b2 - a2))
bench idle.tail.ctxsw $((b3 - a3))
note "idle ${KTB_IDLE_S}s: stream $((b1 - a1)), serve $((b2 - a2)), tail $((b3 - a3)) context switches"
kill -INT $SRV
wait $SRV
wait $TAIL
kt_stop
