# ksymtap serve with the BPF backend: a client that stops reading does not
# delay another client's records, is told how many it missed (a LOST record
# of origin serve, then the table anew), and the metrics count it; a client
# still in overflow when the daemon stops, which starts reading as it stops,
# gets its lost record last (no table anew while stopping); SIGTERM
# exits 0 and removes the socket; a restart on the same path works.
. /ksymtap/lib.sh

S=/tmp/t/sock
# Small socket buffers and queue, so that a few hundred records overflow
# them (TCG makes every program load slow); the queue still holds a new
# client's table (ksymtap's own 21 programs with their backup twins, issue
# 34, are most of it).
wmem=$(cat /proc/sys/net/core/wmem_default)
echo 8192 >/proc/sys/net/core/wmem_default || fail "cannot shrink wmem_default"
trap 'echo $wmem >/proc/sys/net/core/wmem_default' EXIT
ksymtap serve -s $S -v --client-queue 96K --metrics-file /tmp/t/m.prom --metrics-interval 0.3 \
	>serve.out 2>serve.err &
SRV=$!
wait_for serve.err '^ksymtap: ready' 60 || { cat serve.err; fail "serve did not become ready"; }
wait_quiet /tmp/t/m.prom 20 || fail "the daemon never went quiet after its start"

ksymtap tail -s $S >fast.json 2>fast.err &
F=$!
# The slow one reads nothing until the file "read" exists.
ktstall $S read >slow.json 2>slow.err &
SLOW=$!
# This one reads only once the daemon is stopping.
ktstall $S read2 >slow2.json 2>slow2.err &
SLOW2=$!
wait_json fast.json '.kind == "snapshot_end"' 10 || fail "fast client: no snapshot"
wait_for slow.err 'not reading' 10 || fail "slow client did not connect"
wait_for slow2.err 'not reading' 10 || fail "second slow client did not connect"

ktload -r 40 $BIN/subprogs.bpf.o >burst.txt || fail "burst workload failed"
last=$(awk '/^loaded kt_sock_main/ {id = $4} END {print id}' burst.txt)
wait_json fast.json ".type_name == \"prog_unload\" and .id == $last" 10 ||
	fail "fast client: last unload ($last) not seen: held up by the slow one?"
json_sel fast.json '.kind == "bpf_event"' | jq -r '"\(.type_name) \(.id)"' >fast.ev
for i in $(awk '/^loaded kt_sock_main/ {print $4}' burst.txt); do
	grep -qx "prog_load $i" fast.ev || fail "fast client missed load of $i"
	grep -qx "prog_unload $i" fast.ev || fail "fast client missed unload of $i"
done
json_has fast.json '.kind == "lost"' && fail "fast client got a lost record"
wait_for serve.err 'client [0-9]+: queue full' 5 || fail "no overflow reported"
i=0
while [ "$(grep -cE 'client [0-9]+: queue full' serve.err)" -lt 2 ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done

touch read
wait_json slow.json '.kind == "snapshot_end" and .reason == "resync"' 20 || fail "slow client: no resync after catching up"
lost=$(json_sel slow.json '.kind == "lost" and .origin == "serve"' | head -n 1 | jq -r '.lost')
[ -n "$lost" ] && [ "$lost" -gt 0 ] || fail "slow client: no LOST record of origin serve"
note "slow client told it lost $lost records"
sleep 0.6
grep -q '^ksymtap_client_overflows_total 2$' /tmp/t/m.prom || fail "metrics: $(grep overflows /tmp/t/m.prom)"

kill -TERM $SRV
touch read2
wait $SRV
rc=$?
[ $rc -eq 0 ] || { cat serve.err; fail "serve exited $rc after SIGTERM"; }
[ -e $S ] && fail "socket left behind"
wait $F || fail "fast tail exited $?"
wait $SLOW || fail "slow client exited $?"
wait $SLOW2 || fail "second slow client exited $?"
# Still in overflow at the stop: its last record says what it missed, and
# with what it received that is every record the fast client got.
tail -n 1 slow2.json | jq -e '.kind == "lost" and .origin == "serve"' >/dev/null ||
	fail "second slow client: last record is not a lost record of origin serve: $(tail -n 1 slow2.json)"
lost2=$(tail -n 1 slow2.json | jq -r '.lost')
live() { json_count "$1" '(.kind == "ksymbol" or .kind == "bpf_event") and (.snapshot | not)'; }
fast_n=$(live fast.json)
slow2_n=$(live slow2.json)
note "fast client $fast_n records; second slow client $slow2_n and told it lost $lost2"
[ $((slow2_n + lost2)) -eq "$fast_n" ] ||
	fail "second slow client: $slow2_n received + $lost2 lost != $fast_n the fast client got"
grep -q "^ksymtap_lost_records_total{where=\"client\"} $((lost + lost2))\$" /tmp/t/m.prom ||
	fail "metrics: $(grep 'where="client"' /tmp/t/m.prom), clients told $lost + $lost2"

ksymtap serve -s $S >serve2.out 2>serve2.err &
SRV=$!
wait_for serve2.err '^ksymtap: ready' 60 || { cat serve2.err; fail "restart on the same path failed"; }
ksymtap tail -s $S --snapshot >d.json || fail "tail --snapshot on the restarted daemon"
json_has d.json '.kind == "snapshot_end"' || fail "restarted daemon sent no snapshot"
kill -TERM $SRV
wait $SRV || fail "restarted serve exited $?"
[ -e $S ] && fail "socket left behind after the restart"
exit 0
