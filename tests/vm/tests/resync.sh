# Issue 15: lost records no longer leave ksymtap's picture wrong.  A program
# seen loaded is unloaded while the output is blocked and the reader's queue
# (and the ring) full (its unregisters are lost), among a burst of others.  Once the loss is reported ksymtap
# enumerates again (user/run/resync.c): the --kallsyms file and the stream
# replayed (registers minus unregisters) equal /proc/kallsyms and bpftool prog
# show again, and the held program's end comes as records of origin "resync".
# Where the BPF backend cannot attach (arm64 before 6.4) the same with the
# native backend: its rings are per CPU, so the workload and the held program
# run on CPU 0 and its ring is one page.  Either way the reader thread moves
# records into its queue (user/backend/pump.c), so the queue is small too.
. /ksymtap/lib.sh
if no_fentry; then
	backend="-b native --native-pages 1 --queue-size 64K"
	pin="taskset -c 0"
else
	backend="--ringbuf-size 4096 --queue-size 64K"
	pin=
fi

mkfifo pipe
# The reader waits: ksymtap blocks on the full pipe, the small queue fills.
(while [ ! -e go ]; do sleep 0.1; done; cat) <pipe >out.json &
READER=$!
ksymtap -f json $backend --kallsyms kf >pipe 2>out.json.err &
KT_PID=$!
wait_for out.json.err '^ksymtap: ready' 60 || { cat out.json.err; fail "not ready"; }
$pin ktload -w go1 $BIN/subprogs.bpf.o >held.txt &
HELD=$!
wait_for held.txt '^loaded kt_sock_main' 30 || fail "workload did not load: $(cat held.txt)"
held_id=$(awk '/^loaded kt_sock_main/ {print $4}' held.txt)
wait_for kf 'kt_sock_main' 20 || fail "the held program never reached the kallsyms file"
# Fills the pipe, then the queue: from here on records are dropped, the held
# program's unload among them.
$pin ktprog -r 300 >/dev/null || fail "workload"
touch go1
wait $HELD
touch go
wait_for out.json.err 'resync after lost records' 60 || {
	cat out.json.err
	fail "no resync after the loss"
}

bpftool_progs >kernel.txt
kallsyms_dyn | sed 's/^/S /' >>kernel.txt
sort -o kernel.txt kernel.txt
i=0
while :; do
	kt_replay out.json >ours.txt
	sort kf >kf.sorted
	kallsyms_dyn >kernel.kf
	diff kernel.txt ours.txt >diff.txt && cmp -s kernel.kf kf.sorted && break
	i=$((i + 1))
	if [ $i -ge 50 ]; then
		cat out.json.err
		cat diff.txt
		diff kernel.kf kf.sorted
		fail "stream or --kallsyms file differ from the kernel after the resync (< kernel, > ksymtap)"
	fi
	sleep 0.2
done
kill -TERM $KT_PID
wait $KT_PID
rc=$?
wait $READER
[ $rc -eq 0 ] || { cat out.json.err; fail "ksymtap exited $rc after SIGTERM"; }
grep -E 'lost|resync' out.json.err

lost=$(json_sel out.json '.kind == "lost"' | jq -s 'map(.lost) | add // 0')
[ "$lost" -gt 0 ] || fail "nothing was lost: the test's premise failed"
if grep '^TWICE' ours.txt; then
	fail "reported twice (above)"
fi
json_has out.json ".origin == \"resync\" and .kind == \"bpf_event\" and .type == 2 and .id == $held_id" ||
	fail "no PROG_UNLOAD of origin resync for the held program $held_id"
json_has out.json '.origin == "resync" and .kind == "ksymbol" and .unregister and (.name | endswith("_kt_sock_main"))' ||
	fail "no unregister of origin resync for kt_sock_main's image"
note "lost $lost; resync: $(json_count out.json '.origin == "resync"') records; $(grep -c '^S' kernel.txt) symbols and $(grep -c '^P' kernel.txt) programs agree"
