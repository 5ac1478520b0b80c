# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The daemon keeps the programs' code (issue 32): `ksymtap disasm -s`
# answers from it while the program lives and after it is gone, with each
# function's bytes as the kernel's bpf_prog_info gave them (ktcode) and the
# source lines of bpftool prog dump xlated linum (code_check); its memory
# and counts are metrics; and it is bounded as the history is: with
# --history-age 0 an unloaded program's code is dropped (evicted, and
# disasm -s then finds nothing there); and by --code-size: with 0, its code
# goes at once while its symbols stay.
. "${KT_TOP:-.}/tests/vm/lib.sh" 2>/dev/null # code_check
. "${KT_TOP:-.}/tests/host/lib.sh"
set -u
serve_test_setup
B=${KT_TOP:-.}/build
[ -x "$B/tests/vm/ktcode" ] || fail "$B/tests/vm/ktcode missing (make vm-build)"

# load OBJ, hold until $T/go.TAG: the program's id in ID, its code in
# $T/code.TAG, bpftool's linum dump in $T/xlated.TAG.
hold() { # tag
	"$LOAD" -w "$T/go.$1" "$OBJ" >"$T/load.$1" 2>&1 &
	PIDS+=($!)
	wait_for "$T/load.$1" '^loaded kt_sock_main' 30 || fail "workload: $(cat "$T/load.$1")"
	ID=$(awk '/^loaded kt_sock_main/ {print $4}' "$T/load.$1")
	"$B/tests/vm/ktcode" "$ID" >"$T/code.$1" || fail "ktcode $ID"
	bpftool prog dump xlated id "$ID" linum >"$T/xlated.$1" || fail "bpftool prog dump xlated id $ID"
}

start_serve "$T/serve.err" --metrics-file "$T/m.prom" --metrics-interval 0.2
hold a
mkdir "$T/live" "$T/gone"
code_check "-s $S" "$T/code.a" "$T/xlated.a" "" "$T/live"
touch "$T/go.a"
sleep 1
# Gone: the last code at each address is still this program's.
code_check "-s $S" "$T/code.a" "$T/xlated.a" "" "$T/gone"
jq -e '.death != null' "$T"/gone/disasm.*.json >/dev/null || fail "disasm -s after the unload: no death time"
wait_for "$T/m.prom" '^ksymtap_code_answers_total [1-9]' 5 || fail "no code answers counted"
grep -Eq '^ksymtap_code_programs [1-9]' "$T/m.prom" || fail "metrics: $(grep code_programs "$T/m.prom")"
grep -Eq '^ksymtap_code_bytes [1-9]' "$T/m.prom" || fail "metrics: $(grep code_bytes "$T/m.prom")"
kill -INT "$SERVE"
wait "$SERVE" || fail "serve exited $?"

# A daemon with ARGS: the program's code while it lives; after its unload
# (once the daemon has seen it and trimmed, at its next tick) disasm -s
# fails with WANT, and an eviction is counted.
gone_case() { # tag want args...
	local tag=$1 want=$2 a
	shift 2
	start_serve "$T/serve.$tag.err" "$@" --metrics-file "$T/m.$tag.prom" --metrics-interval 0.2
	hold "$tag"
	a=$(awk '/^func / {print $2; exit}' "$T/code.$tag")
	"$KT" disasm -s "$S" "$a" >"$T/$tag.live" 2>"$T/$tag.err" ||
		fail "$*: disasm -s while it lives: $(cat "$T/$tag.err")"
	touch "$T/go.$tag"
	for _ in $(seq 50); do
		"$KT" disasm -s "$S" "$a" >"$T/$tag.out" 2>"$T/$tag.err" || break
		sleep 0.2
	done
	grep -q "^ksymtap: error: $a$want" "$T/$tag.err" || fail "$*: $(cat "$T/$tag.err")"
	wait_for "$T/m.$tag.prom" '^ksymtap_code_evicted_total [1-9]' 5 ||
		fail "$*: no eviction counted: $(grep code_ "$T/m.$tag.prom")"
	kill -INT "$SERVE"
	wait "$SERVE" || fail "serve exited $?"
}
# --history-age 0: nothing dead is kept, code included.
gone_case b ': no symbol held it' --history-age 0
# --code-size 0: the code of what is gone goes at once, its symbols stay.
gone_case c ' .*holds no code for it' --code-size 0
echo "INFO program $ID: code kept while alive and after, evicted with --history-age 0 and --code-size 0"
