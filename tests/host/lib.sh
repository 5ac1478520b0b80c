# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Helpers for host integration tests (bash).  Exit 0 pass, 77 skip, else fail.
KT=${KT_TOP:-.}/build/ksymtap
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root (perf_event_open system-wide, bpf())"; }
tmpdir() { T=$(mktemp -d); trap 'rm -rf "$T"' EXIT; }
