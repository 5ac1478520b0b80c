# ksymtap serve with the BPF backend: a client that stops reading does not
# delay another client's records, is told how many it missed (a LOST record
# of origin serve, then the table anew), and the metrics count it; SIGTERM
# exits 0 and removes the socket; a restart on the same path works.
. /ksymtap/lib.sh

S=/tmp/t/sock
# Small socket buffers and queue, so that a hundred records overflow them
# (TCG makes every program load slow).
wmem=$(cat /proc/sys/net/core/wmem_default)
echo 8192 >/proc/sys/net/core/wmem_default || fail "cannot shrink wmem_default"
trap 'echo $wmem >/proc/sys/net/core/wmem_default' EXIT
ksymtap serve -s $S -v --client-queue 16K --metrics-file /tmp/t/m.prom --metrics-interval 0.3 \
	>serve.out 2>serve.err &
SRV=$!
wait_for serve.err '^ksymtap: ready' 60 || { cat serve.err; fail "serve did not become ready"; }

ksymtap tail -s $S >fast.json 2>fast.err &
F=$!
# The slow one reads nothing until the file "read" exists.
ktstall $S read >slow.json 2>slow.err &
SLOW=$!
wait_json fast.json '.kind == "snapshot_end"' 10 || fail "fast client: no snapshot"
wait_for slow.err 'not reading' 10 || fail "slow client did not connect"

ktload -r 20 $BIN/subprogs.bpf.o >burst.txt || fail "burst workload failed"
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

touch read
wait_json slow.json '.kind == "snapshot_end" and .reason == "resync"' 20 || fail "slow client: no resync after catching up"
lost=$(json_sel slow.json '.kind == "lost" and .origin == "serve"' | head -n 1 | jq -r '.lost')
[ -n "$lost" ] && [ "$lost" -gt 0 ] || fail "slow client: no LOST record of origin serve"
note "slow client told it lost $lost records"
sleep 0.6
grep -q '^ksymtap_client_overflows_total 1$' /tmp/t/m.prom || fail "metrics: $(grep overflows /tmp/t/m.prom)"
grep -q "^ksymtap_lost_records_total{where=\"client\"} $lost\$" /tmp/t/m.prom ||
	fail "metrics: $(grep 'where="client"' /tmp/t/m.prom), client told $lost"

kill -TERM $SRV
wait $SRV
rc=$?
[ $rc -eq 0 ] || { cat serve.err; fail "serve exited $rc after SIGTERM"; }
[ -e $S ] && fail "socket left behind"
wait $F || fail "fast tail exited $?"
wait $SLOW || fail "slow client exited $?"

ksymtap serve -s $S >serve2.out 2>serve2.err &
SRV=$!
wait_for serve2.err '^ksymtap: ready' 60 || { cat serve2.err; fail "restart on the same path failed"; }
ksymtap tail -s $S --snapshot >d.json || fail "tail --snapshot on the restarted daemon"
json_has d.json '.kind == "snapshot_end"' || fail "restarted daemon sent no snapshot"
kill -TERM $SRV
wait $SRV || fail "restarted serve exited $?"
[ -e $S ] && fail "socket left behind after the restart"
exit 0
