#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# tests/run.sh itself, with each documented option: --unit, --only, --san,
# --vm, --pod and --vm-kernel (the last three with a line or image that
# cannot boot, so that no VM runs here: each must count as a failure, never
# vanish).  Every run ends with the one summary line and the exit status
# that line implies; an unknown option is a usage error.
. "${KT_TOP:-.}/tests/host/lib.sh"
top=${KT_TOP:-.}
R=$top/tests/run.sh
tmpdir

run() { # expected-exit name args...
	local want=$1 name=$2 rc last
	shift 2
	"$R" "$@" >"$T/$name.out" 2>&1
	rc=$?
	last=$(tail -n 1 "$T/$name.out")
	grep -q 'unbound variable\|syntax error\|command not found' "$T/$name.out" &&
		fail "run.sh $*: $(grep -m1 'unbound variable\|syntax error\|command not found' "$T/$name.out")"
	[[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]] ||
		fail "run.sh $*: the last line is not the summary: '$last'"
	[ $rc = "$want" ] || fail "run.sh $*: exit $rc, want $want ($last)"
	[ $rc = 0 ] && [ "${BASH_REMATCH[2]}" != 0 ] && fail "run.sh $*: exit 0 with failures"
	[ $rc != 0 ] && [ "${BASH_REMATCH[2]}" = 0 ] && fail "run.sh $*: exit $rc without a failure"
	echo "# run.sh $*: $last"
}

run 0 unit --unit --only 'layers|test_symtab/'
grep -q '^  PASS host/layers$' "$T/unit.out" || fail "--unit --only layers ran no host/layers"
grep -q 'host/runner' "$T/unit.out" && fail "--only did not leave the other host tests out"
[ -d "$top/build/asan" ] && {
	run 0 san --san build/asan --only 'functions'
	grep -q '^  PASS asan/host/functions$' "$T/san.out" || fail "--san ran no asan/host/functions"
	grep -q '^  PASS fuzz/' "$T/san.out" || fail "--san replayed no fuzz corpus"
}
run 1 vm --vm no-such-line
grep -q 'FAIL vm: no kernel image for line no-such-line' "$T/vm.out" || fail "--vm: $(cat "$T/vm.out")"
run 1 pod --pod no-such-line
grep -q 'FAIL vm: no kernel image for line no-such-line' "$T/pod.out" || fail "--pod: $(cat "$T/pod.out")"
run 1 kernel --vm-kernel /nonexistent/vmlinuz --vm-arch amd64
grep -q 'vmtest could not run' "$T/kernel.out" || fail "--vm-kernel: $(cat "$T/kernel.out")"

"$R" --no-such-option >"$T/bad.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "unknown argument '--no-such-option'" "$T/bad.out" ||
	fail "an unknown option: exit $rc, $(cat "$T/bad.out")"
