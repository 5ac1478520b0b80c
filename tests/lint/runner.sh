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

# lint/functions: the quickest check of the tree (under a second).
run 0 unit --unit --only 'lint/functions|test_symtab/'
grep -q '^  PASS lint/functions (' "$T/unit.out" || fail "--unit --only lint/functions ran no lint/functions"
grep -q 'lint/runner' "$T/unit.out" && fail "--only did not leave the other checks out"
[ -d "$top/build/asan" ] && {
	run 0 san --san build/asan --only 'host/inject'
	grep -q '^  PASS asan/host/inject (' "$T/san.out" || fail "--san ran no asan/host/inject"
	grep -q '^  PASS fuzz/' "$T/san.out" || fail "--san replayed no fuzz corpus"
}
run 1 vm --vm no-such-line
grep -q 'FAIL vm: no kernel image for line no-such-line' "$T/vm.out" || fail "--vm: $(cat "$T/vm.out")"
run 1 pod --pod no-such-line
grep -q 'FAIL vm: no kernel image for line no-such-line' "$T/pod.out" || fail "--pod: $(cat "$T/pod.out")"
run 1 kernel --vm-kernel /nonexistent/vmlinuz --vm-arch amd64
grep -q 'vmtest could not run' "$T/kernel.out" || fail "--vm-kernel: $(cat "$T/kernel.out")"

# The guests' slots: KT_VM_JOBS at once, after the host tests' sessions
# (b1fd0d5 booted all of them together: bash's bare wait -n returned at
# once after them).  A stand-in for vmtest.sh logs its start and end.
cat >"$T/fakevm" <<'EOF'
#!/bin/bash
while [ $# -gt 0 ]; do case $1 in --counts) c=$2; shift 2 ;; --kernel) k=$2; shift 2 ;; *) shift ;; esac; done
echo "+ $(date +%s%N)" >>"$FAKEVM_LOG"
sleep "${FAKEVM_SLEEP:-1}"
echo "- $(date +%s%N)" >>"$FAKEVM_LOG"
if [ "$k" = /bad ]; then
	echo "  [fake $k] PASS one (1s)"
	echo "  [fake $k] FAIL two: what went wrong (2s)"
	echo "1 1 0" >"$c"
else
	echo "1 0 0" >"$c"
fi
EOF
chmod +x "$T/fakevm"
export FAKEVM_LOG=$T/fakevm.log
KT_VMTEST=$T/fakevm KT_VM_JOBS=2 run 0 slots --unit --only 'lint/functions' \
	--vm-kernel /k1 --vm-kernel /k2 --vm-kernel /k3 --vm-kernel /k4 --vm-kernel /k5
unset FAKEVM_LOG
[ "$(grep -c '^+' "$T/fakevm.log")" = 5 ] || fail "slots: $(grep -c '^+' "$T/fakevm.log") of 5 guests ran"
most=$(sort -k2,2n "$T/fakevm.log" | awk '{ n += ($1 == "+") ? 1 : -1; if (n > m) m = n } END { print m + 0 }')
[ "$most" = 2 ] || fail "slots: $most guests at once with KT_VM_JOBS=2"
tail -n 1 "$T/slots.out" | grep -q '^6 passed, 0 failed' || fail "slots: $(tail -n 1 "$T/slots.out")"
grep -q '^failed:' "$T/slots.out" && fail "slots: a failure list with nothing failed"

# Each failure is named again just above the summary, where the tail of a
# long run (all CI shows) still has it.
KT_VMTEST=$T/fakevm FAKEVM_LOG=/dev/null FAKEVM_SLEEP=0 run 1 failed \
	--vm-kernel /k1 --vm-kernel /bad
[ "$(tail -n 3 "$T/failed.out")" = "failed:
  [fake /bad] FAIL two: what went wrong
2 passed, 1 failed, 0 skipped" ] || fail "the failure list: $(tail -n 5 "$T/failed.out")"

"$R" --no-such-option >"$T/bad.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "unknown argument '--no-such-option'" "$T/bad.out" ||
	fail "an unknown option: exit $rc, $(cat "$T/bad.out")"
