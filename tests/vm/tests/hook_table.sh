# Every hook on this kernel, attached or off and why, as "HOOK" lines that
# vmtest.sh keeps (build/vm/KERNEL.hooks) and tests/vm/hook_table.sh turns
# into docs/kernel-facts.md's table (make hook-table).  Fails if a hook is off
# for any other reason than a function this kernel does not have, or if a
# source is missing.
. /ksymtap/lib.sh

ksymtap -v -d 0.5 --no-snapshot -f json >/dev/null 2>err.txt || fail "ksymtap: $(cat err.txt)"
grep -E '^ksymtap: (hook|ready|kernel has no)' err.txt
legacy=no
grep -q "kernel has no bpf_loop()" err.txt && legacy=yes
sed -n 's/^ksymtap: hook \([a-z_]*\) *on \([a-z_0-9]*\) *\(.*\)$/\1 \2 \3/p' err.txt |
	while read -r hook target state; do
		echo "HOOK $hook|$target|$state|$legacy"
	done
echo "HOOK sources|$(sed -n 's/^ksymtap: ready: backend [a-z]*; sources: //p' err.txt)||$legacy"
[ "$(grep -c '^ksymtap: hook ' err.txt)" -ge 9 ] || fail "not every hook listed"
need_bpf_backend
! grep -E '^ksymtap: hook .* off: ' err.txt | grep -v 'off: kernel has no ' ||
	fail "a hook is off for another reason than a missing kernel function"
grep -q 'sources: .*(missing)' err.txt && fail "a source is missing"
exit 0
