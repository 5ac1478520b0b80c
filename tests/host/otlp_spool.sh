#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Nothing lost across a collector outage and a restart (issue 33, --otlp-spool;
# docs/otlp.md), native backend (root), into the test receiver
# (tests/otlp/receiver.js):
#  - the receiver answers 503 with Retry-After, then is down for 20 s; a
#    stream started before it and stopped during it, and a second stream
#    started during it with the same spool, each load a program;
#  - afterwards the receiver holds every record the two streams printed,
#    field for field, in order, each sequence number once, and the spool is
#    empty;
#  - serve's metrics account for it: retries, records spooled, the spool's
#    bytes and records while the collector is down, none once it is back;
#    promtool accepts them;
#  - a second process on the same spool, a spool without an export and a
#    bad size are refused with one line.
. "${KT_TOP:-.}/tests/host/lib.sh"
otlp_test_setup
SP=$T/spool
export OTEL_BLRP_SCHEDULE_DELAY=200

spooled() { ls "$SP" | grep -q '^[0-9]*-[0-9]*\.pb$'; }

stream_start() { # name
	"$KT" stream -b native -f json --otlp-endpoint "$URL" --otlp-spool "$SP" \
		>"$T/$1.json" 2>"$T/$1.err" &
	SP_PID=$!
	PIDS+=($SP_PID)
	wait_for "$T/$1.err" '^ksymtap: ready' 20 || fail "$1: stream not ready: $(cat "$T/$1.err")"
}

load_seen() { # name stream
	load_one "$1"
	wait_for "$T/$2.json" "\"type_name\":\"prog_unload\",\"flags\":0,\"id\":$ID," 10 ||
		fail "$1: no PROG_UNLOAD of $ID on stdout"
}

# --- a 503, an outage of 20 s, a restart during it ------------------------------
start_receiver "$T/r" "status 503 1 2"
stream_start a
wait_for "$T/r/requests.jsonl" '"status":503' 10 || fail "a: no request answered 503"
echo "down 20" >"$T/r/mode" # at the retry, 2 s after the 503
wait_for "$T/a.err" 'otlp: .*: no answer' 10 || fail "a: the outage is not said: $(cat "$T/a.err")"
load_seen a1 a
spooled || fail "a: nothing in the spool during the outage: $(ls -l "$SP")"
kill -TERM $SP_PID
wait $SP_PID || fail "a: stream exited $?: $(cat "$T/a.err")"
grep -q 'otlp: [0-9]* records wait in the spool' "$T/a.err" ||
	fail "a: what waits in the spool is not said: $(cat "$T/a.err")"
grep -q 'not sent before the end' "$T/a.err" && fail "a: records lost at the stop: $(cat "$T/a.err")"

stream_start b
grep -q "otlp: spool $SP holds [1-9][0-9]* records" "$T/b.err" ||
	fail "b: the spool's records from before are not said: $(cat "$T/b.err")"
load_seen b1 b
# Back after 20 s; the next retry (backoff up to 30 s) empties the spool.
wait_until 60 has_prog "$T/r" || fail "b: the receiver never got program $ID (outage over)"
wait_until 10 eval '! spooled' || fail "b: the spool still holds: $(ls "$SP")"
kill -INT $SP_PID
wait $SP_PID || fail "b: stream exited $?: $(cat "$T/b.err")"
[ ! -s "$T/r/errors" ] || fail "the receiver could not decode: $(head -3 "$T/r/errors")"
dups=$(grep -o '"ksymtap.seq":"[0-9]*"' "$T/r/records.jsonl" | sort | uniq -d | head -3)
[ -z "$dups" ] || fail "sequence numbers received twice: $dups"
cat "$T/a.json" "$T/b.json" >"$T/ab.json"
node "$RECV/compare.js" "$T/ab.json" "$T/r/records.jsonl" >"$T/ab.cmp" || fail "$(cat "$T/ab.cmp")"
note "outage and restart: $(cat "$T/ab.cmp")"

# --- serve's metrics while down and once back ---------------------------------
rm -rf "$SP"
start_receiver "$T/m" "down 6"
start_serve "$T/serve.err" --otlp-endpoint "$URL" --otlp-spool "$SP" \
	--metrics-file "$T/m.prom" --metrics-interval 0.2
load_one m1
wait_for "$T/m.prom" '^ksymtap_otlp_spool_records [1-9]' 10 ||
	fail "serve: the spool's records are not in the metrics: $(grep otlp "$T/m.prom")"
grep -q '^ksymtap_otlp_spool_bytes [1-9]' "$T/m.prom" || fail "serve: spool bytes: $(grep otlp_spool "$T/m.prom")"
grep -q '^ksymtap_otlp_spool_bound_bytes 67108864$' "$T/m.prom" ||
	fail "serve: spool bound: $(grep otlp_spool "$T/m.prom")"
promtool check metrics <"$T/m.prom" >"$T/lint" 2>&1 || fail "promtool check metrics: $(cat "$T/lint")"
wait_until 40 has_prog "$T/m" || fail "serve: the receiver never got program $ID"
wait_for "$T/m.prom" '^ksymtap_otlp_spool_records 0$' 10 ||
	fail "serve: the spool is not empty once the collector is back: $(grep otlp "$T/m.prom")"
grep -q '^ksymtap_otlp_retries_total [1-9]' "$T/m.prom" || fail "serve: retries: $(grep otlp "$T/m.prom")"
spooled_n=$(sed -n 's/^ksymtap_otlp_spooled_records_total //p' "$T/m.prom")
sent_n=$(sed -n 's/^ksymtap_otlp_log_records_total{outcome="sent"} //p' "$T/m.prom")
[ "${spooled_n:-0}" -gt 0 ] && [ "${sent_n:-0}" -ge "$spooled_n" ] ||
	fail "serve: spooled $spooled_n, sent $sent_n: $(grep otlp "$T/m.prom")"
grep -q 'ksymtap_otlp_dropped_records_total{reason="[a-z_]*"} [1-9]' "$T/m.prom" &&
	fail "serve: records dropped: $(grep dropped "$T/m.prom")"

# --- refused ----------------------------------------------------------------------
one_line() { # exit pattern args...
	local want=$1 p=$2
	shift 2
	"$KT" "$@" >/dev/null 2>"$T/bad.err"
	rc=$?
	[ $rc = "$want" ] && [ "$(wc -l <"$T/bad.err")" = 1 ] && grep -q -- "$p" "$T/bad.err" ||
		fail "$*: exit $rc, expected $want and one line with '$p': $(cat "$T/bad.err")"
}
one_line 1 "--otlp-spool: $SP: another ksymtap uses this spool" stream -b native -d 1 \
	--otlp-endpoint "$URL" --otlp-spool "$SP"
kill -TERM $SERVE
wait $SERVE || fail "serve exited $?"
one_line 1 '--otlp-spool: no OTLP export' stream -b native -d 1 --otlp-spool "$SP"
# A bad value of an option is a usage error, as for every option (exit 2).
one_line 2 "--otlp-spool-size: '3x' is not a size" stream -b native -d 1 --otlp-endpoint "$URL" \
	--otlp-spool "$SP" --otlp-spool-size 3x
exit 0
