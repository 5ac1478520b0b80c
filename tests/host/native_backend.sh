# Issue 4: on this machine's kernel (tracing programs refused, perf_event_open
# allowed) plain `ksymtap` falls back to the native backend, and it reports a
# program the test loads itself with the bpf syscall with the id, tag, address
# and len that bpf_prog_info gives.
. "$(dirname "$0")/lib.sh"
need_root
tmpdir
LOADER=${KT_TOP:-.}/build/tests/vm/ktprog

"$KT" -f json >"$T/out.json" 2>"$T/err" &
kt=$!
wait_for "$T/err" '^ksymtap: ready' 10 || { cat "$T/err"; fail "ksymtap not ready"; }
if grep -q 'backend bpf' "$T/err"; then
	kill -INT $kt; wait $kt
	skip "this kernel allows tracing programs: the fallback is not exercised here"
fi
grep -q '^ksymtap: bpf backend unavailable: .*; falling back to native perf records$' "$T/err" ||
	{ cat "$T/err"; fail "no one-line fallback notice"; }

"$LOADER" -w "$T/go" >"$T/info" || fail "loader failed"&
ld=$!
for i in $(seq 100); do [ -s "$T/info" ] && break; sleep 0.05; done
touch "$T/go"
wait $ld || fail "loader failed"
sleep 0.5

# A loader that has exited before ksymtap reads its records still gets its
# name, from the COMM record of its exec (attr.comm), not from /proc.
kill -STOP $kt
cp "$LOADER" "$T/ktgone"
"$T/ktgone" -n kt_gone >"$T/gone" || fail "loader failed"
kill -CONT $kt
read -r _ gid _ <"$T/gone"
wait_for "$T/out.json" "\"type\":2,.*\"id\":$gid," 10 || fail "no PROG_UNLOAD for id $gid"
grep "\"id\":$gid," "$T/out.json" | grep -q '"comm":"ktgone"' ||
	fail "the exited loader's name is not on its records: $(grep "\"id\":$gid," "$T/out.json")"
kill -INT $kt
wait $kt || fail "ksymtap exited $? after SIGINT"

read -r _ id _ tag _ addr _ len _ name <"$T/info"
echo "kernel says: id $id tag $tag addr $addr len $len name $name"
sym="bpf_prog_${tag}_$name"
grep -q "\"kind\":\"ksymbol\".*\"addr\":\"0x$addr\",\"len\":$len,.*\"flags\":0,.*\"name\":\"$sym\"" "$T/out.json" ||
	{ cat "$T/out.json"; fail "no KSYMBOL register for $addr $len $sym"; }
grep -q "\"kind\":\"ksymbol\".*\"addr\":\"0x$addr\",\"len\":$len,.*\"flags\":1,.*\"name\":\"$sym\"" "$T/out.json" ||
	fail "no KSYMBOL unregister for $sym"
grep -q "\"kind\":\"bpf_event\".*\"type\":1,.*\"id\":$id,\"tag\":\"$tag\"" "$T/out.json" ||
	fail "no PROG_LOAD for id $id tag $tag"
grep -q "\"kind\":\"bpf_event\".*\"type\":2,.*\"id\":$id,\"tag\":\"$tag\"" "$T/out.json" ||
	fail "no PROG_UNLOAD for id $id tag $tag"
grep "\"id\":$id," "$T/out.json" | grep -q '"origin":"native"' || fail "records not from the native backend"
