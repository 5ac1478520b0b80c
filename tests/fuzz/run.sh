#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The libFuzzer harnesses of tests/fuzz/ against their corpora.
#
#   tests/fuzz/run.sh --replay DIR        every input of every corpus once
#                                         (make test): "PASS fuzz/NAME" or FAIL
#   tests/fuzz/run.sh --seconds N DIR     fuzz each harness N seconds (make fuzz);
#                                         new inputs go into corpus/NAME/,
#                                         crashes into build/fuzz-crashes/
# DIR holds the harness binaries (build/asan/tests/fuzz).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mode=$1 secs=0
case $mode in
--replay) dir=$2 ;;
--seconds) secs=$2 dir=$3 ;;
*) echo "run.sh: --replay DIR | --seconds N DIR" >&2; exit 2 ;;
esac
rc=0
for bin in "$dir"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	name=${name#fuzz_}
	corpus=$here/corpus/$name
	[ -d "$corpus" ] || { echo "  FAIL fuzz/$name: no corpus at tests/fuzz/corpus/$name"; rc=1; continue; }
	if [ "$mode" = --replay ]; then
		# -runs=0 with a directory: each file once, then exit.
		out=$("$bin" -runs=0 "$corpus" 2>&1)
	else
		crashes=$here/../../build/fuzz-crashes/$name
		mkdir -p "$crashes"
		out=$("$bin" -max_total_time="$secs" -artifact_prefix="$crashes/" \
			-max_len=4096 "$corpus" 2>&1)
	fi
	if [ $? -eq 0 ]; then
		echo "  PASS fuzz/$name ($(ls "$corpus" | wc -l) inputs$([ "$mode" = --seconds ] && echo ", ${secs}s"))"
	else
		echo "  FAIL fuzz/$name"
		grep -E 'ERROR|runtime error|SUMMARY|Test unit written' <<<"$out" | head -n 8 | sed 's/^/    | /'
		rc=1
	fi
done
exit $rc
