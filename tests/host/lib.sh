# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Helpers for host integration tests (bash).  Exit 0 pass, 77 skip, else fail.
KT=${KT_BIN:-${KT_TOP:-.}/build/ksymtap}
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
need_root() { [ "$(id -u)" = 0 ] || skip "needs root (perf_event_open system-wide, bpf())"; }
tmpdir() { T=$(mktemp -d); trap 'rm -rf "$T"' EXIT; }

# For tests of the daemon: ksymtap built with its helpers (ktload, a program
# to load), a native backend that opens, a temporary directory, and PIDS: the
# background processes killed on exit.
serve_test_setup() {
	need_root
	LOAD=${KT_TOP:-.}/build/tests/vm/ktload
	OBJ=${KT_TOP:-.}/build/tests/vm/subprogs.bpf.o
	[ -x "$LOAD" ] && [ -f "$OBJ" ] || skip "build/tests/vm/ktload missing (make vm-build)"
	command -v bpftool >/dev/null || skip "bpftool missing (make deps)"
	"$KT" -b native -d 0.1 >/dev/null 2>&1 || skip "native backend does not open here"
	tmpdir
	S=$T/sock
	PIDS=()
	trap serve_test_cleanup EXIT
}
serve_test_cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		{ kill -9 "$p" && wait "$p"; } 2>/dev/null
	done
	rm -rf "$T"
}

# `ksymtap serve` on $S (native backend) with ARGS, stderr to ERR, once it is
# ready; SERVE its pid.  Settings the caller puts before it (OTEL_*=...) are
# in serve's environment; SERVE_WRAP=FUNC runs it as FUNC KT ARGS... (FUNC
# must exec it).
start_serve() { # err args...
	local err=$1
	shift
	${SERVE_WRAP:-} "$KT" serve -b native -s "$S" "$@" 2>"$err" &
	SERVE=$!
	PIDS+=($SERVE)
	wait_for "$err" '^ksymtap: ready' 20 || fail "serve not ready: $(cat "$err")"
}

# A `ksymtap tail -f json` client of $S into OUT (stderr OUT.err), once it
# has the table.
start_tail() { # out [timeout-s]
	"$KT" tail -s "$S" -f json >"$1" 2>"$1.err" &
	PIDS+=($!)
	wait_for "$1" snapshot_end "${2:-5}" || fail "the client got no table: $(cat "$1.err")"
}

# The OTLP tests (tests/otlp): serve_test_setup's, and the receiver.
otlp_test_setup() {
	serve_test_setup
	RECV=${KT_TOP:-.}/tests/otlp
	command -v node >/dev/null || skip "node missing"
	[ -d "$RECV/node_modules/@opentelemetry/otlp-transformer" ] ||
		skip "the receiver's packages are missing (make deps)"
	command -v promtool >/dev/null || skip "promtool missing (make deps: prometheus)"
}

# tests/otlp/receiver.js into DIR, answering as MODE says; URL its address.
start_receiver() { # dir [mode]
	mkdir -p "$1"
	[ -z "$2" ] || echo "$2" >"$1/mode"
	node "$RECV/receiver.js" "$1" 2>"$1/node.err" &
	PIDS+=($!)
	wait_until 10 test -s "$1/port" || fail "the receiver did not start: $(cat "$1/node.err")"
	URL=http://127.0.0.1:$(cat "$1/port")
}

# Load the test's program (serve_test_setup's), which lives until
# $T/go.NAME exists: ID and TAG from bpftool while it lives.
load_prog() { # name
	"$LOAD" -w "$T/go.$1" "$OBJ" >"$T/load.$1" &
	PIDS+=($!)
	wait_for "$T/load.$1" '^loaded' 10 || fail "$1: the workload did not load"
	ID=$(awk '/^loaded kt_sock_main/ {print $4}' "$T/load.$1")
	TAG=$(bpftool prog show id "$ID" | sed -n 's/.*tag \([0-9a-f]*\).*/\1/p')
	[ -n "$TAG" ] || fail "$1: bpftool does not know prog $ID"
}

# The same, and let it go at once.
load_one() { # name
	load_prog "$1"
	touch "$T/go.$1"
}

# The receiver in DIR got the program load_one loaded last, by id and tag.
has_prog() { # dir
	grep -qs "\"eventName\":\"ksymtap.bpf.prog_load\".*\"ksymtap.bpf.prog.id\":\"$ID\",\"ksymtap.bpf.prog.tag\":\"$TAG\"" \
		"$1/records.jsonl"
}
