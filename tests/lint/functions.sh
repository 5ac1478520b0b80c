#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# No function in user/ or bpf/ over 80 lines; over 60 only with its reason
# above it (tests/lint/check-functions.sh); and the check sees each kind of
# breach planted in a copy.
. "${KT_TOP:-.}/tests/host/lib.sh"
top=${KT_TOP:-.}
out=$("$top/tests/lint/check-functions.sh" --src "$top") || fail "$out"
echo "# $out"

tmpdir
mkdir -p "$T/user/util" "$T/bpf"
body() { # lines
	local i
	for ((i = 0; i < $1; i++)); do echo "	x += $i;"; done
}
{
	echo "static int long_one(int x)"; echo "{"; body 85; echo "	return x;"; echo "}"
	echo; echo "static int sixty_five(int x)"; echo "{"; body 62; echo "	return x;"; echo "}"
	echo; echo "/* Over 60 lines: a table, read whole. */"
	echo "static int with_reason(int x)"; echo "{"; body 62; echo "	return x;"; echo "}"
} >"$T/user/util/planted.c"
: >"$T/bpf/none.c"
out=$("$top/tests/lint/check-functions.sh" --src "$T")
rc=$?
[ $rc = 1 ] || fail "exit $rc on planted breaches, want 1: $out"
grep -q '^user/util/planted.c:1: long_one: 89 lines: over 80' <<<"$out" || fail "missed long_one: $out"
grep -q '^user/util/planted.c:[0-9]*: sixty_five: 66 lines: over 60 without its reason' <<<"$out" ||
	fail "missed sixty_five: $out"
grep -q with_reason <<<"$out" && fail "flagged a function with its reason: $out"
true
