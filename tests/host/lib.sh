# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Helpers for host integration tests (bash).  Exit 0 pass, 77 skip, else fail.
KT=${KT_BIN:-${KT_TOP:-.}/build/ksymtap}
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root (perf_event_open system-wide, bpf())"; }
tmpdir() { T=$(mktemp -d); trap 'rm -rf "$T"' EXIT; }

# Wait until FILE contains PATTERN (grep -E), up to SEC seconds.
wait_for() { # file pattern sec
	local i=0
	while [ $i -lt $(($3 * 10)) ]; do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
