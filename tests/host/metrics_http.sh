#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# serve --metrics-listen (native backend, root): GET /metrics passes
# Prometheus's own `promtool check metrics`; a scrape sees what just
# happened (a program this test loads); HEAD, another path, another method
# and a bad address are answered as HTTP and the CLI say; loopback unless
# told otherwise.  Then slow, huge and many HTTP clients at once: the socket
# clients still get this test's program within a second, a new client still
# gets its table at once, and the stream loses nothing.
. "${KT_TOP:-.}/tests/host/lib.sh"
serve_test_setup
command -v curl >/dev/null || skip "curl missing (make deps)"
command -v promtool >/dev/null || skip "promtool missing (make deps: prometheus)"

# A bad address: one line, exit 2 (usage) or 1, before any BPF work.
"$KT" serve -b native -s "$S" --metrics-listen 'localhost:x' 2>"$T/bad.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/bad.err")" = 1 ] &&
	grep -q "^ksymtap: error: --metrics-listen: 'localhost:x' is not PORT" "$T/bad.err" ||
	fail "a bad --metrics-listen: exit $rc, $(cat "$T/bad.err")"

"$KT" serve -b native -s "$S" --metrics-listen 0 2>"$T/serve.err" &
PIDS+=($!)
wait_for "$T/serve.err" '^ksymtap: ready' 20 || fail "serve not ready: $(cat "$T/serve.err")"
url=$(grep -o 'metrics on http://[^ ]*' "$T/serve.err" | cut -d' ' -f3)
case $url in http://127.0.0.1:[0-9]*/metrics) ;; *) fail "not on loopback by default: '$url'" ;; esac
port=${url#http://127.0.0.1:} port=${port%/metrics}

# --- what a scrape gets --------------------------------------------------------
curl -sS -D "$T/h1" -o "$T/m1" "$url" || fail "GET $url failed"
grep -q '^HTTP/1.1 200' "$T/h1" || fail "GET: $(head -n 1 "$T/h1")"
grep -qi '^Content-Type: text/plain; version=0.0.4' "$T/h1" || fail "content type: $(cat "$T/h1")"
promtool check metrics <"$T/m1" >"$T/lint" 2>&1 || fail "promtool check metrics: $(cat "$T/lint")"
for m in ksymtap_records_total ksymtap_clients_connected ksymtap_build_info ksymtap_backend_info; do
	grep -q "^$m" "$T/m1" || fail "no $m in the scrape"
done
grep -q '^ksymtap_backend_info{backend="native"} 1$' "$T/m1" || fail "backend_info"

count() { # file -> BPF_EVENT records passed on
	awk -F' ' '/^ksymtap_records_total\{kind="bpf_event"/ {print $2}' "$1"
}
"$KT" tail -s "$S" -f json >"$T/a.json" 2>"$T/a.err" &
PIDS+=($!)
wait_for "$T/a.json" snapshot_end 5 || fail "client got no snapshot_end"
before=$(count "$T/m1")
"$LOAD" -w "$T/go1" "$OBJ" >"$T/load1.txt" &
PIDS+=($!)
wait_for "$T/load1.txt" '^loaded' 10 || fail "workload did not load"
id=$(awk '/^loaded kt_sock_main/ {print $4}' "$T/load1.txt")
wait_for "$T/a.json" "\"type_name\":\"prog_load\",\"flags\":0,\"id\":$id," 5 ||
	fail "client: no PROG_LOAD of $id"
curl -sS -o "$T/m2" "$url" || fail "second GET failed"
after=$(count "$T/m2")
[ "$after" -gt "$before" ] || fail "the scrape after a load still says $after BPF_EVENTs (before: $before)"
grep -q '^ksymtap_clients_connected 1$' "$T/m2" || fail "clients_connected: $(grep clients_connected "$T/m2")"

[ "$(curl -sS -o /dev/null -w '%{http_code}' -I "$url")" = 200 ] || fail "HEAD /metrics"
[ "$(curl -sS -o /dev/null -w '%{http_code}' "${url%/metrics}/")" = 404 ] || fail "GET / is not 404"
code=$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$url")
case $code in 405 | 501) ;; *) fail "POST answered $code" ;; esac

# --- slow, huge and many HTTP clients, while the stream runs --------------------
# 100 connections that send half a request and stop, a request with a
# 100 KB header, 300 scrapes (6 rounds of 50 at once), a client that asks
# and never reads.
slow=()
for i in $(seq 100); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$port" || fail "connect $i"
	printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >&$fd
	slow+=($fd)
done
big=$(head -c 100000 /dev/zero | tr '\0' b)
curl -sS -o /dev/null -w '%{http_code}' --max-time 20 -H "X-Huge: $big" "$url" >"$T/huge.code" 2>&1 &
PIDS+=($!)
(for r in $(seq 6); do
	for i in $(seq 50); do curl -s -o /dev/null --max-time 20 "$url" & done
	wait
done) &
STORM=$!
PIDS+=($STORM)
exec {noread}<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n' >&$noread

# The stream and the socket clients, meanwhile.
t0=$(date +%s%N)
"$LOAD" -w "$T/go2" "$OBJ" >"$T/load2.txt" &
PIDS+=($!)
wait_for "$T/load2.txt" '^loaded' 10 || fail "second workload did not load"
id2=$(awk '/^loaded kt_sock_main/ {print $4}' "$T/load2.txt")
wait_for "$T/a.json" "\"type_name\":\"prog_load\",\"flags\":0,\"id\":$id2," 1 ||
	fail "during the HTTP storm, the client had no PROG_LOAD of $id2 within 1 s of the load"
timeout 2 "$KT" tail -s "$S" --snapshot -f json >"$T/late.json" 2>"$T/late.err" ||
	fail "during the HTTP storm, a new client got no table within 2 s: $(cat "$T/late.err")"
grep -q "\"type_name\":\"prog_load\",\"flags\":0,\"id\":$id2," "$T/late.json" ||
	fail "the new client's table lacks program $id2"
echo "# program $id2 reached the client $((($(date +%s%N) - t0) / 1000000)) ms after its load began, during the storm"
wait $STORM
grep -q '^4[0-9][0-9]$' "$T/huge.code" || fail "a 100 KB header was answered $(cat "$T/huge.code")"
for fd in "${slow[@]}"; do exec {fd}>&-; done
exec {noread}>&-

# After it: the metrics still answer, and nothing was lost on the way.
curl -sS --max-time 5 -o "$T/m3" "$url" || fail "GET after the storm failed"
promtool check metrics <"$T/m3" >"$T/lint" 2>&1 || fail "promtool after the storm: $(cat "$T/lint")"
grep -q '^ksymtap_lost_records_total{where="client"} 0$' "$T/m3" ||
	fail "records lost: $(grep lost_records "$T/m3")"
touch "$T/go1" "$T/go2"
wait_for "$T/a.json" "\"type_name\":\"prog_unload\",\"flags\":0,\"id\":$id2," 5 ||
	fail "client: no PROG_UNLOAD of $id2"
