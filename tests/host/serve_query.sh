#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The serve query (docs/serve.md, "Queries") on this machine's kernel with
# the native backend (root): a program this test loads is named as
# /proc/kallsyms names it, in text, JSON and raw; bad requests get an error
# answer in their place and the good ones around them are still answered;
# after the program is gone "now" answers unknown and its lifetime still
# names it; mode=kallsyms lists it as /proc/kallsyms does; a query client
# that never reads its answers does not hold up another; the metrics count
# the queries and the history.
. "${KT_TOP:-.}/tests/host/lib.sh"
serve_test_setup
HELLO=${KT_TOP:-.}/build/tests/host/kthello
[ -x "$HELLO" ] || skip "build/tests/host/kthello missing (make host-build)"

# The default history: programs other processes load and unload meanwhile
# must not evict this test's one.
"$KT" serve -b native -s "$S" -v --metrics-file "$T/m.prom" \
	--metrics-interval 0.2 2>"$T/serve.err" &
SERVE=$!
PIDS+=($SERVE)
wait_for "$T/serve.err" '^ksymtap: ready' 20 || { cat "$T/serve.err"; fail "serve did not become ready"; }

"$LOAD" -w "$T/go" "$OBJ" >"$T/load.txt" &
PIDS+=($!)
wait_for "$T/load.txt" '^loaded' 10 || fail "workload did not load"
id=$(awk '/^loaded kt_sock_main/ {print $4}' "$T/load.txt")
tag=$(bpftool prog show id "$id" | sed -n 's/.*tag \([0-9a-f]*\).*/\1/p')
# The kernel's own word: the program's /proc/kallsyms line.
line=$(grep -m1 " t bpf_prog_${tag}_kt_sock_main" /proc/kallsyms)
[ -n "$line" ] || fail "prog $id (tag $tag) not in /proc/kallsyms"
addr=${line%% *}
name=$(echo "$line" | awk '{print $3}')
inside=$(printf '%x' $((0x$addr + 3)))
echo "# prog $id: $line"
sleep 0.5

# --- text, with bad requests among good ones ---------------------------------
"$HELLO" "$S" "format=text mode=query\n$addr\nnot-hex\n$inside now\n$addr 12.x\n\n0x$inside" >"$T/text.out"
cat "$T/text.out"
[ "$(grep -c . "$T/text.out")" = 5 ] || fail "expected 5 answers (the blank line gets none)"
sed -n 1p "$T/text.out" | grep -qE "^$addr $name\+0x0/0x[0-9a-f]+ \[bpf\]$" || fail "text: line 1"
sed -n 2p "$T/text.out" | grep -q "^error: 'not-hex' is not an address" || fail "text: line 2"
sed -n 3p "$T/text.out" | grep -qE "^$inside $name\+0x3/" || fail "text: line 3"
sed -n 4p "$T/text.out" | grep -q "^error: '12.x' is not a time" || fail "text: line 4"
sed -n 5p "$T/text.out" | grep -qE "^0x$inside $name\+0x3/" ||
	fail "text: the last line, sent without its newline, was not answered"

# --- JSON ----------------------------------------------------------------------
"$HELLO" "$S" "format=json mode=query\n$inside\n" >"$T/json.out"
cat "$T/json.out"
[ "$(jq -r .name "$T/json.out")" = "$name" ] || fail "json: name"
[ "$(jq -r .start "$T/json.out")" = "0x$addr" ] || fail "json: start"
[ "$(jq -r .offset "$T/json.out")" = 3 ] || fail "json: offset"
[ "$(jq -r .death "$T/json.out")" = null ] || fail "json: it is alive"
[ "$(jq -r .module "$T/json.out")" = bpf ] || fail "json: module"

# --- raw: 16 bytes in (address, time ~0 = now), a KSYMBOL record out ------------
le() { # 64-bit hex value -> \xHH escapes, little-endian
	local v=$1 i out=
	for ((i = 0; i < 8; i++)); do
		out+=$(printf '\\x%02x' $(((0x$v >> (8 * i)) & 0xff)))
	done
	echo "$out"
}
"$HELLO" "$S" "format=raw mode=query\n$(le "$inside")$(le ffffffffffffffff)" >"$T/raw.out"
od -A d -t x1 "$T/raw.out" | head -4
[ "$(od -A n -t u4 -j 0 -N 4 "$T/raw.out" | tr -d ' ')" = 17 ] || fail "raw: not a KSYMBOL record (type 17)"
got=$(od -A n -t x8 -j 8 -N 8 "$T/raw.out" | tr -d ' ')
[ "$got" = "$addr" ] || fail "raw: addr $got, kallsyms says $addr"
[ "$(dd if="$T/raw.out" bs=1 skip=24 2>/dev/null | tr -d '\0')" = "$name" ] || fail "raw: name"

# --- kallsyms mode: the line /proc/kallsyms prints --------------------------------
"$HELLO" "$S" "mode=kallsyms\n" >"$T/ks.out"
grep -qxF "$(printf '%s t %s\t[bpf]' "$addr" "$name")" "$T/ks.out" ||
	fail "mode=kallsyms lacks: $line"

# --- a client that never reads its answers holds up nobody --------------------------
# 400,000 requests (~25 MB of answers): far more than its socket buffers and
# its 4 MiB queue.  It is still sending when the daemon stops reading it (its
# queue full), so it never reads.
yes "$addr" | head -n 400000 >"$T/many"
"$HELLO" "$S" "format=text mode=query\n" "$T/many" >/dev/null 2>&1 &
STUCK=$!
PIDS+=($STUCK)
sleep 2
kill -0 $STUCK 2>/dev/null || fail "the stuck client finished: it was not stuck"
start=$(date +%s%N)
"$KT" resolve -s "$S" "$addr" >"$T/other.out" || fail "another client: $(cat "$T/other.out")"
took=$((($(date +%s%N) - start) / 1000000))
grep -q "^$addr $name+0x0/" "$T/other.out" || fail "another client: $(cat "$T/other.out")"
echo "# another client answered in $took ms beside a stuck one"

# --- gone: unknown now, named in its lifetime -----------------------------------
born=$(date +%s)
touch "$T/go"
sleep 1.5
grep -q " bpf_prog_${tag}_kt_sock_main" /proc/kallsyms && fail "the kernel still lists it"
"$KT" resolve -s "$S" "$addr" >"$T/now.out"
grep -q "^$addr \[unknown\]$" "$T/now.out" || fail "after unload, now: $(cat "$T/now.out")"
# In its lifetime (its birth as the daemon gave it, plus 1 ns): still named.
birth=$(jq -r .birth "$T/json.out")
"$HELLO" "$S" "format=json mode=query\n$inside $((birth + 1))\n" >"$T/gone.json"
echo "# $(cat "$T/gone.json")"
[ "$(jq -r .name "$T/gone.json")" = "$name" ] || fail "in its lifetime: not named"
[ "$(jq -r '.death > .birth' "$T/gone.json")" = true ] || fail "its death is not after its birth"
"$KT" resolve -s "$S" --at 0 "$addr" | grep -q '\[unknown\]$' || fail "before its birth: named"
[ "$("$KT" kallsyms -s "$S" | grep -c "$name")" = 0 ] || fail "kallsyms now still lists $name"

# --- metrics ---------------------------------------------------------------------
sleep 0.5
q=$(sed -n 's/^ksymtap_queries_total \([0-9]*\)$/\1/p' "$T/m.prom")
[ -n "$q" ] && [ "$q" -ge 10 ] || fail "metrics: ksymtap_queries_total '$q'"
grep -q '^ksymtap_query_errors_total 2$' "$T/m.prom" || fail "metrics: $(grep query_errors "$T/m.prom")"
grep -qE '^ksymtap_history_symbols\{state="dead"\} [1-9]' "$T/m.prom" || fail "metrics: no dead symbol in the history"
grep -qE '^ksymtap_history_bytes [1-9]' "$T/m.prom" || fail "metrics: history bytes"
kill -TERM $SERVE
wait $SERVE || fail "serve exited $? after SIGTERM"
echo "ok"
