# Nothing wakes an idle ksymtap (issue 26): stream, and serve with a
# client, sleep in epoll until the kernel has a record for them.  Their
# context switches, every thread's, over 5 s in which this test does
# nothing but wait: 0 on the BPF backend.  With native records (arm64
# before 6.4) the reader sits in epoll_wait on its perf rings and uevent
# socket and still woke 6 times in 5 s on arm64 6.1 in make test
# (2026-12-04), more than the one exec of the window explains: records or
# uevents the kernel sends there, not yet identified (issue 26).  The bound
# there, 20 in 5 s, still fails the old 10 ms poll (~500).
# Then a program loaded at the end of the window is streamed at once: the
# sleep is not a stall.
. /ksymtap/lib.sh

switches() { # pid: voluntary + involuntary, all threads (builtins only)
	local t k v n=0
	for t in /proc/$1/task/*; do
		while read -r k v; do
			case $k in voluntary_ctxt_switches: | nonvoluntary_ctxt_switches:) n=$((n + v)) ;; esac
		done <"$t/status"
	done
	echo $n
}
max=0
no_fentry && max=20

idle() { # name pid
	local a b
	sleep 1 # the start-up's last writes and the client's table
	a=$(switches "$2")
	sleep 5
	b=$(switches "$2")
	note "$1: $((b - a)) context switches in 5 s idle"
	[ $((b - a)) -le $max ] || fail "$1 woke $((b - a)) times in 5 s with nothing happening (at most $max)"
}

kt_start out.json -f json
idle stream "$KT_PID"
ktprog >prog.txt || fail "ktprog"
id=$(awk '{print $2}' prog.txt)
wait_for out.json "\"type_name\":\"prog_load\",\"flags\":0,\"id\":$id," 5 ||
	fail "stream: program $id not streamed within 5 s after the idle window"
kt_stop

ksymtap serve -s /tmp/idle.sock 2>serve.err &
SRV=$!
wait_for serve.err '^ksymtap: ready' 60 || fail "serve not ready: $(cat serve.err)"
ksymtap tail -s /tmp/idle.sock -f json >tail.json 2>tail.err &
TAIL=$!
wait_for tail.json snapshot_end 10 || fail "tail got no table"
idle "serve (one client)" "$SRV"
idle "tail" "$TAIL"
ktprog >prog2.txt || fail "ktprog"
id=$(awk '{print $2}' prog2.txt)
wait_for tail.json "\"type_name\":\"prog_load\",\"flags\":0,\"id\":$id," 5 ||
	fail "serve: program $id not sent within 5 s after the idle window"
kill -INT $SRV
wait $SRV || fail "serve exited $?"
wait $TAIL
