# Every file path the documentation names exists (tests/lint/check-docs.sh), and
# the check sees a stale one planted in a copy of the docs.
. "${KT_TOP:-.}/tests/host/lib.sh"
top=${KT_TOP:-.}
check=$top/tests/lint/check-docs.sh
out=$("$check" --src "$top") || fail "the docs name paths that do not exist:
$out"
echo "# $out"

tmpdir
cp -r "$top/README.md" "$top/BENCHMARKS.md" "$top/docs" "$top/user" "$top/tests" "$top/bpf" \
	"$top/include" "$T/"
echo 'The table is in user/record/symtab_old.c and tests/unit/NAME/test_gone_*.c.' >>"$T/docs/serve.md"
out=$("$check" --src "$T")
rc=$?
[ $rc = 1 ] || fail "check-docs exit $rc on docs with stale paths, want 1:
$out"
grep -q '^docs/serve.md:[0-9]*: user/record/symtab_old.c$' <<<"$out" ||
	fail "check-docs does not report the stale file; it said:
$out"
grep -q '^docs/serve.md:[0-9]*: tests/unit/\*/test_gone_\*.c$' <<<"$out" ||
	fail "check-docs does not report the pattern that matches nothing; it said:
$out"
