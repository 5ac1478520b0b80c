# Nothing wakes an idle ksymtap (issue 26): stream, and serve with a
# client, sleep in epoll until the kernel has a record for them.  Their
# context switches, every thread's, over 5 s in which this test does
# nothing but wait: 0.  The test neither forks nor execs in the window (its
# counts and its wait are shell builtins in this shell): with native records
# (arm64 before 6.4) ksymtap asks for COMM records, and with attr.comm the
# kernel also sends FORK and EXIT (perf_event_task_match()), so any process
# made or ended on the machine wakes it.  With sleep(1) and $(...) in the
# window, arm64 6.1 woke 6 times in make test on 2026-12-04; perf trace then
# showed the wake-ups at the window's subshells.  A window in which records
# did reach the output (something else made a symbol) is work, not idle:
# it is measured again, up to 3 times.
# Then a program loaded at the end of the window is streamed at once: the
# sleep is not a stall; and after a burst of 300 loads stream is idle again.
. /ksymtap/lib.sh

switches() { # pid: voluntary + involuntary, all threads, into $n (no fork)
	local t k v
	n=0
	for t in /proc/$1/task/*; do
		while read -r k v; do
			case $k in voluntary_ctxt_switches: | nonvoluntary_ctxt_switches:) n=$((n + v)) ;; esac
		done <"$t/status"
	done
}
rm -f idle.fifo
mkfifo idle.fifo
pause() { # seconds: no fork, no exec (a read of a fifo nobody writes)
	read -r -t "$1" _ <>idle.fifo
}
lines() { # file: into $n (no fork)
	n=0
	while read -r _; do n=$((n + 1)); done <"$1"
}

idle() { # name pid output-file
	local a b o try=1
	pause 2 # the start-up's last writes, the client's table, our last fork
	while :; do
		lines "$3"
		o=$n
		switches "$2"
		a=$n
		pause 5
		switches "$2"
		b=$n
		lines "$3"
		if [ "$n" != "$o" ] && [ $try -lt 3 ]; then
			note "$1: records reached $3 in the window ($o -> $n lines): again"
			try=$((try + 1))
			continue
		fi
		break
	done
	note "$1: $((b - a)) context switches in 5 s idle"
	[ $((b - a)) -eq 0 ] || fail "$1 woke $((b - a)) times in 5 s with nothing happening"
}

kt_start out.json -f json
idle stream "$KT_PID" out.json
ktprog >prog.txt || fail "ktprog"
id=$(awk '{print $2}' prog.txt)
wait_for out.json "\"type_name\":\"prog_load\",\"flags\":0,\"id\":$id," 5 ||
	fail "stream: program $id not streamed within 5 s after the idle window"
# After a burst (the reader busy, timers for the drop counters' reads) it
# must sleep again.
ktprog -r 300 >burst.txt || fail "ktprog -r 300"
id=$(awk '{print $2}' burst.txt)
wait_for out.json "\"type_name\":\"prog_load\",\"flags\":0,\"id\":$id," 30 ||
	fail "stream: the burst's last program $id not streamed within 30 s"
idle "stream after a burst" "$KT_PID" out.json
kt_stop

ksymtap serve -s /tmp/idle.sock 2>serve.err &
SRV=$!
wait_for serve.err '^ksymtap: ready' 60 || fail "serve not ready: $(cat serve.err)"
ksymtap tail -s /tmp/idle.sock -f json >tail.json 2>tail.err &
TAIL=$!
wait_for tail.json snapshot_end 10 || fail "tail got no table"
idle "serve (one client)" "$SRV" tail.json
idle "tail" "$TAIL" tail.json
ktprog >prog2.txt || fail "ktprog"
id=$(awk '{print $2}' prog2.txt)
wait_for tail.json "\"type_name\":\"prog_load\",\"flags\":0,\"id\":$id," 5 ||
	fail "serve: program $id not sent within 5 s after the idle window"
kill -INT $SRV
wait $SRV || fail "serve exited $?"
wait $TAIL
