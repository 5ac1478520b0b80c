# Wake-ups of an idle ksymtap (issue 26): stream to /dev/null, and serve with
# one tail client, while nothing happens for KTB_IDLE_S seconds (default
# 60).  The figure is each process's context switches over the window, all
# threads, voluntary and involuntary (/proc/PID/task/*/status); the window
# starts 2 s after the client has its table.  The script itself only sleeps.
. /ksymtap/bench_lib.sh
: "${KTB_IDLE_S:=60}"

switches() { # pid
	cat /proc/"$1"/task/*/status 2>/dev/null |
		awk '/^(non)?voluntary_ctxt_switches:/ { s += $2 } END { print s + 0 }'
}

ktb_start /dev/null stream.err
STREAM=$KT_PID
ksymtap serve -s /tmp/idle.sock 2>serve.err &
SRV=$!
wait_for serve.err '^ksymtap: ready' 120 || fail "serve not ready: $(cat serve.err)"
ksymtap tail -s /tmp/idle.sock -f json >tail.json 2>tail.err &
TAIL=$!
wait_for tail.json snapshot_end 30 || fail "tail got no table"
sleep 2
a1=$(switches $STREAM) a2=$(switches $SRV) a3=$(switches $TAIL)
sleep "$KTB_IDLE_S"
b1=$(switches $STREAM) b2=$(switches $SRV) b3=$(switches $TAIL)
bench idle.seconds "$KTB_IDLE_S"
bench idle.stream.ctxsw $((b1 - a1))
bench idle.serve.ctxsw $((b2 - a2))
bench idle.tail.ctxsw $((b3 - a3))
note "idle ${KTB_IDLE_S}s: stream $((b1 - a1)), serve $((b2 - a2)), tail $((b3 - a3)) context switches"
kill -INT $SRV
wait $SRV
wait $TAIL
kt_stop
