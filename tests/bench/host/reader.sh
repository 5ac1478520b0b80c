#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The reader's user-space instructions per load+close cycle (issue 26):
# tests/bench/reader/ktbreader replays the BPF hooks' events of CYCLES cycles
# (4 records each) through decode, pipeline and stdout's sink, one flush per
# cycle, under valgrind's callgrind, which counts instructions: the same
# figure whatever else the machine does.  Text and JSON to /dev/null.  What
# the kernel spends for the reader (wake-up, epoll, write) is not in it: the
# VM bench's listener CPU has that.  Prints BENCH lines
#   reader.FORMAT.insn_per_cycle  user-space instructions per cycle
#   reader.FORMAT.top             the five functions with most instructions
# and keeps the profiles as build/bench/reader.FORMAT.callgrind.
#
#   tests/bench/host/reader.sh [KTBREADER] [OUTDIR]
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
bin=${1:-$top/build/tests/bench/ktbreader}
out=${2:-$top/build/bench}
cycles=${KTB_READER_CYCLES:-20000}
[ -x "$bin" ] || { echo "host-reader: $bin missing (make bench builds it)" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "host-reader: valgrind missing (make deps)" >&2; exit 2; }
mkdir -p "$out"
for f in text json; do
	cg=$out/reader.$f.callgrind
	valgrind --tool=callgrind --callgrind-out-file="$cg" "$bin" -n "$cycles" -f $f \
		>/dev/null 2>"$out/reader.$f.err" || { cat "$out/reader.$f.err" >&2; exit 1; }
	total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/reader.$f.err")
	echo "BENCH reader.$f.cycles=$cycles"
	echo "BENCH reader.$f.insn_per_cycle=$((total / cycles))"
	echo "BENCH reader.$f.top=$(callgrind_annotate "$cg" 2>/dev/null |
		sed -n '/file:function/,$ s/^ *[0-9,][0-9,]* ( *\([0-9.]*\)%)  *[^ ]*:\([^ ]*\).*/\2 \1%/p' |
		head -n 5 | paste -sd ';' | sed 's/;/; /g')"
done
