# Every unit test case passes when it runs alone (KT_UNIT_ONLY, as
# tests/run.sh --only selects it): no case relies on one before it, so one
# failure cannot drag later cases down with it.
. "${KT_TOP:-.}/tests/host/lib.sh"
n=0
for t in "${KT_TOP:-.}"/build/tests/unit/*/test_*; do
	[ -x "$t" ] || continue
	b=$(basename "$t")
	for c in $("$t" 2>/dev/null | awk '/^(PASS|SKIP) / {sub(":", "", $2); print $2}'); do
		out=$(KT_UNIT_ONLY="^$b/$c\$" "$t" 2>/dev/null)
		[ "$(grep -c '^PASS \|^SKIP ' <<<"$out")" = 1 ] && ! grep -q '^FAIL ' <<<"$out" ||
			fail "$b/$c fails alone: $(head -n 5 <<<"$out")"
		n=$((n + 1))
	done
done
[ $n -gt 50 ] || fail "only $n unit cases found"
echo "# $n cases, each alone"
