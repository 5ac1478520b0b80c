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
