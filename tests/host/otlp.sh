#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The OTLP export (docs/otlp.md) on this machine's kernel, native backend
# (root), into the test receiver (tests/otlp/receiver.js), which decodes
# every request with the official OpenTelemetry JavaScript packages:
#  - http/protobuf: every record `stream -f json` printed reaches the
#    receiver field for field, in order, the program this test loaded (its
#    id and tag from bpftool) among them;
#  - http/json with gzip, configured by the OTEL_* variables alone: the same;
#  - https:// with OTEL_EXPORTER_OTLP_CERTIFICATE: the same; a certificate
#    that does not verify is said, with OpenSSL's reason;
#  - serve: two 503s with Retry-After are retried and counted, a 400 is not
#    (its records counted as dropped, said once), each sequence number
#    arrives once, promtool accepts the metrics;
#  - a collector that never answers delays neither a serve client nor the
#    daemon's stop, which says how many records it could not send;
#  - bad settings: one line naming the variable, exit 1.
. "${KT_TOP:-.}/tests/host/lib.sh"
otlp_test_setup

# stream -f json and the export of the same run, one program loaded.
stream_run() { # name dir
	local n=$1 d=$2
	"$KT" stream -b native -f json "${EXTRA[@]}" >"$T/$n.json" 2>"$T/$n.err" &
	local sp=$!
	PIDS+=($sp)
	wait_for "$T/$n.err" '^ksymtap: ready' 20 || fail "$n: stream not ready: $(cat "$T/$n.err")"
	load_one "$n"
	wait_for "$T/$n.json" "\"type_name\":\"prog_unload\",\"flags\":0,\"id\":$ID," 10 ||
		fail "$n: no PROG_UNLOAD of $ID on stdout"
	kill -INT $sp
	wait $sp || fail "$n: stream exited $?: $(cat "$T/$n.err")"
	[ ! -s "$d/errors" ] || fail "$n: the receiver could not decode: $(head -3 "$d/errors")"
	has_prog "$d" || fail "$n: the receiver has no PROG_LOAD of $ID tag $TAG"
	node "$RECV/compare.js" "$T/$n.json" "$d/records.jsonl" >"$T/$n.cmp" ||
		fail "$n: $(cat "$T/$n.cmp")"
	note "$n: $(cat "$T/$n.cmp")"
}

# --- http/protobuf, --otlp-endpoint -------------------------------------------
start_receiver "$T/r1"
EXTRA=(--otlp-endpoint "$URL")
stream_run pb "$T/r1"
grep -q '"type":"application/x-protobuf"' "$T/r1/requests.jsonl" || fail "pb: not protobuf"
grep -q "ksymtap: otlp: exporting to $URL/v1/logs (http/protobuf)" "$T/pb.err" ||
	fail "pb: no line saying where it exports: $(cat "$T/pb.err")"

# --- http/json, gzip, the variables alone ---------------------------------------
start_receiver "$T/r2"
EXTRA=()
OTEL_EXPORTER_OTLP_LOGS_ENDPOINT=$URL/v1/logs OTEL_EXPORTER_OTLP_PROTOCOL=http/json \
	OTEL_EXPORTER_OTLP_COMPRESSION=gzip OTEL_SERVICE_NAME=kt-test \
	OTEL_RESOURCE_ATTRIBUTES='deployment.environment.name=test,team=a%20b' \
	stream_run json "$T/r2"
grep -q '"encoding":"gzip","type":"application/json"' "$T/r2/requests.jsonl" ||
	fail "json: not gzipped JSON: $(head -1 "$T/r2/requests.jsonl")"
head -1 "$T/r2/records.jsonl" | grep -q '"service.name":"kt-test".*"team":"a b"' ||
	fail "json: the resource lacks OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES"
head -1 "$T/r2/records.jsonl" | grep -q "\"host.name\":\"$(uname -n)\",\"os.version\":\"$(uname -r)\"" ||
	fail "json: the resource does not name this host: $(head -c 400 "$T/r2/records.jsonl")"

# --- TLS ---------------------------------------------------------------------------
command -v openssl >/dev/null || fail "openssl missing (make deps)"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 1 \
	-subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" 2>/dev/null ||
	fail "openssl could not make a certificate"
mkdir -p "$T/r5"
node "$RECV/receiver.js" "$T/r5" --tls "$T/key.pem" "$T/cert.pem" 2>"$T/r5.err" &
PIDS+=($!)
wait_until 10 test -s "$T/r5/port" || fail "the TLS receiver did not start: $(cat "$T/r5.err")"
EXTRA=(--otlp-endpoint "https://localhost:$(cat "$T/r5/port")")
OTEL_EXPORTER_OTLP_CERTIFICATE=$T/cert.pem stream_run tls "$T/r5"
OTEL_EXPORTER_OTLP_TIMEOUT=1000 "$KT" stream -b native -d 1 --otlp-endpoint \
	"https://127.0.0.1:$(cat "$T/r5/port")" >/dev/null 2>"$T/unverified.err"
grep -q 'no answer (.*TLS: .*certificate verify failed' "$T/unverified.err" ||
	fail "tls: an unverified certificate is not said: $(cat "$T/unverified.err")"

# --- serve: retried, refused, counted -----------------------------------------
start_receiver "$T/r3" "status 503 2 1"
OTEL_BLRP_SCHEDULE_DELAY=200 start_serve "$T/serve.err" --otlp-endpoint "$URL" \
	--metrics-file "$T/m.prom" --metrics-interval 0.2
wait_for "$T/r3/requests.jsonl" '"status":200' 15 || fail "serve: no request taken after the 503s"
[ "$(grep -c '"status":503' "$T/r3/requests.jsonl")" = 2 ] || fail "serve: expected two 503s first"
load_one serve
wait_until 10 has_prog "$T/r3" || fail "serve: the receiver has no PROG_LOAD of $ID"
echo "status 400 1" >"$T/r3/mode"
load_one refused
wait_for "$T/serve.err" 'answered 400; [0-9]+ records dropped' 10 || fail "serve: the 400 was not said"
wait_for "$T/m.prom" 'ksymtap_otlp_dropped_records_total\{reason="refused"\} [1-9]' 5 ||
	fail "serve: the refused records are not counted: $(grep otlp "$T/m.prom")"
grep -q '^ksymtap_otlp_retries_total 2$' "$T/m.prom" || fail "serve: retries: $(grep otlp_retries "$T/m.prom")"
promtool check metrics <"$T/m.prom" >"$T/lint" 2>&1 || fail "promtool check metrics: $(cat "$T/lint")"
kill -TERM $SERVE
wait $SERVE || fail "serve exited $?"
dups=$(grep -o '"ksymtap.seq":"[0-9]*"' "$T/r3/records.jsonl" | sort | uniq -d | head -3)
[ -z "$dups" ] || fail "serve: sequence numbers received twice: $dups"
[ "$(grep -c 'answered 400' "$T/serve.err")" = 1 ] || fail "serve: the 400 said more than once"

# --- a collector that never answers -------------------------------------------
start_receiver "$T/r4" hang
OTEL_EXPORTER_OTLP_TIMEOUT=1000 OTEL_BLRP_SCHEDULE_DELAY=100 start_serve "$T/hang.err" \
	--otlp-endpoint "$URL"
start_tail "$T/hang.tail"
load_one hang
wait_for "$T/hang.tail" "\"type_name\":\"prog_load\",\"flags\":0,\"id\":$ID," 3 ||
	fail "hang: the client waited on the collector"
start=$(date +%s%N)
kill -TERM $SERVE
wait $SERVE || fail "hang: serve exited $?"
ms=$((($(date +%s%N) - start) / 1000000))
[ $ms -lt 5000 ] || fail "hang: serve took $ms ms to stop (OTEL_EXPORTER_OTLP_TIMEOUT=1000)"
grep -q 'otlp: [0-9]* records not sent before the end' "$T/hang.err" ||
	fail "hang: what was not sent is not said: $(cat "$T/hang.err")"

# --- bad settings -----------------------------------------------------------------
bad() { # pattern env...
	local p=$1
	shift
	env "$@" "$KT" stream -b native -d 1 >/dev/null 2>"$T/bad.err"
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$T/bad.err")" = 1 ] && grep -q "$p" "$T/bad.err" ||
		fail "$*: exit $rc, expected 1 and one line with '$p': $(cat "$T/bad.err")"
}
bad 'OTEL_EXPORTER_OTLP_PROTOCOL.*grpc is not supported' OTEL_EXPORTER_OTLP_ENDPOINT=$URL \
	OTEL_EXPORTER_OTLP_PROTOCOL=grpc
bad "OTEL_EXPORTER_OTLP_ENDPOINT: 'nope' is not a URL" OTEL_EXPORTER_OTLP_ENDPOINT=nope
bad 'OTEL_EXPORTER_OTLP_TIMEOUT' OTEL_EXPORTER_OTLP_ENDPOINT=$URL OTEL_EXPORTER_OTLP_TIMEOUT=-3
bad 'OTEL_RESOURCE_ATTRIBUTES' OTEL_EXPORTER_OTLP_ENDPOINT=$URL OTEL_RESOURCE_ATTRIBUTES=novalue
exit 0
