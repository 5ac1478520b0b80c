#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# resolve, kallsyms and symbolize from what a collector stored (issue 33;
# docs/otlp.md, "Resolve from the collector's file"), native backend (root):
# serve exports to the test receiver, which writes every request it takes as
# a line of OTLP/JSON, as a Collector's file exporter does.  A program is
# loaded, named by serve's query while it lives (its addresses from
# /proc/kallsyms), and unloaded.  From the file, after serve has stopped:
#  - resolve names each address at that time exactly as serve's query did,
#    and [unknown] at the end, as serve did then;
#  - kallsyms --at that time lists what serve's kallsyms --at listed;
#  - symbolize names a line's address as serve's symbolize did;
#  - with a second node in the file (another host.name), no node is guessed:
#    one line lists them, exit 1; --host (and --boot) choose;
#  - --host on a record file, or with -s, is refused with one line.
. "${KT_TOP:-.}/tests/host/lib.sh"
otlp_test_setup
export OTEL_BLRP_SCHEDULE_DELAY=200
F=$T/r/otlp.jsonl

start_receiver "$T/r"
start_serve "$T/serve.err" --otlp-endpoint "$URL"
start_tail "$T/tail.json" 10

load_prog res
# The kernel's own word on where it lives: its symbols in /proc/kallsyms,
# and an address inside each.
ADDRS=$(awk -v t="bpf_prog_$TAG" 'index($3, t) == 1 { print $1 }' /proc/kallsyms)
[ -n "$ADDRS" ] || fail "/proc/kallsyms has no bpf_prog_$TAG"
ADDRS="$ADDRS $(for a in $ADDRS; do printf '%x ' $((0x$a + 1)); done)"
wait_for "$T/tail.json" "\"type_name\":\"prog_load\",\"flags\":0,\"id\":$ID," 10 ||
	fail "serve sent no PROG_LOAD of $ID"
AT=$(jq -r "select(.kind == \"bpf_event\" and .id == $ID and .type_name == \"prog_load\") | .time" \
	"$T/tail.json")
# shellcheck disable=SC2086
"$KT" resolve -s "$S" --at "$AT" $ADDRS >"$T/serve.resolve" || fail "resolve -s: $(cat "$T/serve.resolve")"
grep -q "bpf_prog_$TAG" "$T/serve.resolve" || fail "serve's query does not name it: $(cat "$T/serve.resolve")"
"$KT" kallsyms -s "$S" --at "$AT" >"$T/serve.kallsyms" || fail "kallsyms -s"
first=${ADDRS%% *}
# A dmesg line at that time: [seconds.micro], rounded up (the program lives on).
us=$(((AT + 999) / 1000))
LINE=$(printf '[%5d.%06d] 0x%s in a line' $((us / 1000000)) $((us % 1000000)) "$first")
echo "$LINE" | "$KT" symbolize -s "$S" >"$T/serve.symbolize" ||
	fail "symbolize -s"
touch "$T/go.res"
wait_for "$T/tail.json" "\"type_name\":\"prog_unload\",\"flags\":0,\"id\":$ID," 10 ||
	fail "serve sent no PROG_UNLOAD of $ID"
# shellcheck disable=SC2086
"$KT" resolve -s "$S" $ADDRS >"$T/serve.now"
kill -TERM $SERVE
wait $SERVE || fail "serve exited $?: $(cat "$T/serve.err")"
[ -s "$F" ] || fail "the receiver wrote no $F"

# shellcheck disable=SC2086
"$KT" resolve -i "$F" --at "$AT" $ADDRS >"$T/file.resolve" 2>"$T/file.err" ||
	fail "resolve -i: $(cat "$T/file.err")"
diff "$T/serve.resolve" "$T/file.resolve" >"$T/d" || fail "resolve at $AT, serve (<) and the file (>): $(cat "$T/d")"
# shellcheck disable=SC2086
"$KT" resolve -i "$F" $ADDRS >"$T/file.now" || fail "resolve -i (now)"
diff "$T/serve.now" "$T/file.now" >"$T/d" || fail "resolve at the end, serve (<) and the file (>): $(cat "$T/d")"
grep -q 'bpf_prog' "$T/file.now" && fail "the unloaded program is named at the end: $(cat "$T/file.now")"
"$KT" kallsyms -i "$F" --at "$AT" >"$T/file.kallsyms" || fail "kallsyms -i"
diff "$T/serve.kallsyms" "$T/file.kallsyms" >"$T/d" || fail "kallsyms at $AT, serve (<) and the file (>): $(cat "$T/d")"
echo "$LINE" | "$KT" symbolize -i "$F" >"$T/file.symbolize" || fail "symbolize -i"
grep -q "bpf_prog_$TAG" "$T/file.symbolize" || fail "symbolize -i does not name it: $(cat "$T/file.symbolize")"
diff "$T/serve.symbolize" "$T/file.symbolize" >"$T/d" || fail "symbolize, serve (<) and the file (>): $(cat "$T/d")"
note "$(wc -l <"$T/file.resolve") addresses named as serve named them, from $(wc -l <"$F") requests"

# --- a second node in the same file -------------------------------------------------
OTEL_RESOURCE_ATTRIBUTES=host.name=kt-other-node "$KT" stream -b native -d 0.5 \
	--otlp-endpoint "$URL" >/dev/null 2>"$T/other.err" || fail "stream (other node): $(cat "$T/other.err")"
"$KT" resolve -i "$F" --at "$AT" "$first" >/dev/null 2>"$T/two.err"
rc=$?
[ $rc = 1 ] && [ "$(wc -l <"$T/two.err")" = 1 ] && grep -q "more than one node.*--host NAME or --boot ID.*kt-other-node" "$T/two.err" ||
	fail "two nodes: exit $rc, expected 1 and one line listing them: $(cat "$T/two.err")"
# shellcheck disable=SC2086
"$KT" resolve -i "$F" --host "$(uname -n)" --boot "$(cat /proc/sys/kernel/random/boot_id)" \
	--at "$AT" $ADDRS >"$T/host.resolve" || fail "resolve --host --boot"
diff "$T/serve.resolve" "$T/host.resolve" >"$T/d" || fail "resolve --host: $(cat "$T/d")"
"$KT" resolve -i "$F" --host no-such-host "$first" >/dev/null 2>"$T/none.err"
[ $? = 1 ] && grep -q "no node's records match" "$T/none.err" || fail "--host no-such-host: $(cat "$T/none.err")"

# --- refused ------------------------------------------------------------------------
"$KT" record -b native -d 0.2 -o "$T/k.data" 2>/dev/null || fail "record"
"$KT" resolve -i "$T/k.data" --host x "$first" >/dev/null 2>"$T/rec.err"
[ $? = 1 ] && grep -q -- '--host and --boot choose a node of an OTLP/JSON file' "$T/rec.err" ||
	fail "--host on a record file: $(cat "$T/rec.err")"
"$KT" resolve -s "$S" --host x "$first" >/dev/null 2>"$T/sock.err"
[ $? = 2 ] && grep -q -- '--host and --boot choose a node of an OTLP file' "$T/sock.err" ||
	fail "--host with -s: $(cat "$T/sock.err")"
echo '{"resourceLogs": 3}' >"$T/bad.jsonl"
"$KT" resolve -i "$T/bad.jsonl" "$first" >/dev/null 2>"$T/bad.err"
[ $? = 1 ] && grep -q 'bad.jsonl:1: not an ExportLogsServiceRequest' "$T/bad.err" ||
	fail "a bad line: $(cat "$T/bad.err")"
exit 0
