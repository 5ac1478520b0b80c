# serve names each client by SO_PEERCRED: logged with -v ("client N:
# connected, pid P uid U gid G") and counted by uid in the metrics.
. "$(dirname "$0")/lib.sh"
need_root
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
tmpdir
chmod 0755 "$T" # nobody must reach the socket
S=$T/s.sock
"$KT" serve -b native -s "$S" --socket-mode 0666 --metrics-file "$T/m.prom" \
	--metrics-interval 0.2 -d 4 -v 2>"$T/serve.err" &
SP=$!
wait_for "$T/serve.err" '^ksymtap: ready' 30 || fail "serve: $(cat "$T/serve.err")"
"$KT" tail -s "$S" -d 0.3 >/dev/null || fail "tail as root"
setpriv --reuid=65534 --regid=65534 --clear-groups "$KT" tail -s "$S" -d 0.3 >/dev/null ||
	fail "tail as uid 65534"
"$KT" tail -s "$S" -d 0.3 >/dev/null || fail "tail as root, again"
sleep 0.6
grep -q '^ksymtap_clients_accepted_by_uid_total{uid="0"} 2$' "$T/m.prom" ||
	fail "root's count: $(grep by_uid "$T/m.prom")"
grep -q '^ksymtap_clients_accepted_by_uid_total{uid="65534"} 1$' "$T/m.prom" ||
	fail "uid 65534's count: $(grep by_uid "$T/m.prom")"
grep -Eq '^ksymtap: client [0-9]+: connected, pid [0-9]+ uid 65534 gid 65534$' "$T/serve.err" ||
	fail "no log line for uid 65534: $(grep connected "$T/serve.err")"
wait $SP || fail "serve exited $?"
