# The OTLP export (issue 33, docs/otlp.md) from this kernel's BPF hooks: the
# test receiver (tests/otlp/receiver.js, the official OpenTelemetry
# JavaScript packages' messages, run by node inside this guest) decodes every
# request `ksymtap -f json --otlp-endpoint` sends while the workload makes
# every kind of dynamic symbol, and gets every record the JSON stream shows,
# field for field, in order (tests/otlp/compare.js); among them the
# workload's program by the id and tag bpftool gives.  amd64 lines only: the
# arm64 roots hold no node (Debian's arm64 nodejs is not the host's).
. /ksymtap/lib.sh
need_bpf_backend
command -v node >/dev/null && [ -f /ksymtap/otlp/receiver.js ] ||
	skip "no node and receiver in this guest (amd64 roots only; make deps on the host)"

mkdir r
node /ksymtap/otlp/receiver.js r 2>r.err &
RECV=$!
wait_for r/port '^[0-9]' 30 || fail "the receiver did not start: $(cat r.err)"
URL=http://127.0.0.1:$(cat r/port)
OTEL_BLRP_SCHEDULE_DELAY=200 kt_start out.json -f json --otlp-endpoint "$URL"
ktload -w go $BIN/subprogs.bpf.o >load.txt &
LOAD=$!
wait_for load.txt '^loaded' 30 || fail "workload did not load"
id=$(awk '/^loaded kt_sock_main/ {print $4}' load.txt)
tag=$(bpftool prog show id "$id" | sed -n 's/.*tag \([0-9a-f]*\).*/\1/p')
[ -n "$tag" ] || fail "bpftool does not know prog $id"
touch go
wait $LOAD
run_workload
kt_stop
grep -q 'otlp: .*records not sent' out.json.err && fail "records not sent: $(cat out.json.err)"
[ ! -s r/errors ] || fail "the receiver could not decode: $(head -3 r/errors)"
grep -q "\"eventName\":\"ksymtap.bpf.prog_load\".*\"ksymtap.bpf.prog.id\":\"$id\",\"ksymtap.bpf.prog.tag\":\"$tag\"" \
	r/records.jsonl || fail "the receiver has no PROG_LOAD of $id tag $tag"
node /ksymtap/otlp/compare.js out.json r/records.jsonl >cmp.txt || fail "$(cat cmp.txt)"
note "$(cat cmp.txt) ($(grep -c . r/requests.jsonl) requests)"
kill $RECV
