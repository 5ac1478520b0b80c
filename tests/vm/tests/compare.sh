# Issue 4: `ksymtap compare` over the whole workload finds nothing unexplained,
# and catches a real difference: with the bpf_ksym_add hook off, trampolines
# appear as only-native and compare exits 1.
. /ksymtap/lib.sh
need_bpf_backend

cat >wl.sh <<'WL'
. /ksymtap/lib.sh
run_workload >wl.log 2>&1 || { cat wl.log; exit 1; }
WL
ksymtap compare -f json -- sh wl.sh >report.json 2>report.err
rc=$?
cat report.err
sed 's/},{/},\n{/g' report.json | head -40
[ $rc -eq 0 ] || fail "compare over the workload exited $rc"
matched=$(json_field "$(cat report.json)" matched)
[ "${matched:-0}" -ge 40 ] || fail "only ${matched:-0} records matched: workload not seen?"
grep -q '"unexplained":false' report.json || fail "report says unexplained differences"

# The text report, same run kind.
ksymtap compare -d 2 >report.txt 2>&1 || { cat report.txt; fail "idle compare exited $?"; }
grep -q '^  only-native      0$' report.txt || { cat report.txt; fail "text report"; }

# A real difference must be caught.
ksymtap compare -f json --disable-hook bpf_ksym_add -- ktload -a -t 300 $BIN/fentry.bpf.o \
	>bad.json 2>bad.err
rc=$?
sed 's/},{/},\n{/g' bad.json | grep only-native | head
[ $rc -eq 1 ] || { cat bad.err; fail "compare with bpf_ksym_add off exited $rc, expected 1"; }
grep -q '"kind":"only-native".*"name":"bpf_trampoline_' bad.json ||
	fail "the missing trampoline records are not listed as only-native"
