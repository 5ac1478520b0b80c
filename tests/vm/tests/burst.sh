# Issue 34: nothing lost in a burst.  BURST programs (default 1,000; 400 on
# arm64, whose emulation is 3-4 times slower) loaded
# and closed by 4 threads as fast as they go, while two busy loops keep both
# CPUs loaded, ksymtap at its defaults and the kernel's own records (perf
# record -e dummy -a) both listening: ksymtap reports no loss (no LOST record
# of any origin, no loss on stderr) and has every KSYMBOL and BPF_EVENT of
# those programs that perf has, once each.  On the kernels that preempt in
# kernel code (6.18 and 7.x: lazy), its hooks' skipped runs were all made up
# by their backup twins (user/backend/bpf_backend.c, -v at exit).
# vm-timeout: 420 (arm64: the burst and perf report -D under emulation)
. /ksymtap/lib.sh
need_bpf_backend
[ "$(uname -m)" = aarch64 ] && : "${BURST:=400}"
: "${BURST:=1000}"

kt_start ours.json -f json -v
perf_start native.data
busy() { while :; do :; done; }
busy &
H1=$!
busy &
H2=$!
out=$(ktbload burst -n "$BURST" -j 4 -N kt_burst) || fail "ktbload: $out"
kill $H1 $H2
wait $H1 $H2 2>/dev/null
note "$out"
sleep 0.5
perf_stop
kt_stop
grep -E 'hook runs|runs skipped|queue full|ring buffer full|backup' ours.json.err

loaded=$(echo "$out" | awk '{ print $2 }')
[ "$loaded" = "$BURST" ] || fail "ktbload loaded $loaded of $BURST"
json_has ours.json '.kind == "lost"' &&
	fail "lost records: $(json_sel ours.json '.kind == "lost"' | jq -c '{origin, lost}' | head)"
grep -qE 'records lost|are lost' ours.json.err && fail "a loss on stderr"

# The burst's programs: KSYMBOL by name; BPF_EVENT by the ids perf saw.
perf_records native.data | awk -F '\t' '$1 == "K" && $6 ~ /_kt_burst$/' | sort >native.k
perf_records native.data | awk -F '\t' '$1 == "B"' >native.b
json_sel ours.json '.snapshot != true' | kt_records - |
	awk -F '\t' '$1 == "K" && $6 ~ /_kt_burst$/' | sort >ours.k
json_sel ours.json '.snapshot != true' | kt_records - | awk -F '\t' '$1 == "B"' >ours.b
n=$(wc -l <native.k)
[ "$n" -eq $((BURST * 2)) ] || fail "perf itself has $n KSYMBOLs of the burst, not $((BURST * 2))"
diff native.k ours.k >k.diff || { head k.diff; fail "KSYMBOLs differ from the kernel's (< perf, > ksymtap)"; }
# Every BPF_EVENT of the burst's programs, once.
awk -F '\t' 'NR == FNR { ids[$4] = 1; next } ($4 in ids)' native.b ours.b | sort >ours.bb
awk -F '\t' 'NR == FNR { ids[$4] = 1; next } ($4 in ids)' ours.b native.b | sort >native.bb
grep -c . native.bb | grep -qx $((BURST * 2)) || fail "perf has $(grep -c . native.bb) BPF_EVENTs of the burst"
diff native.bb ours.bb >b.diff || { head b.diff; fail "BPF_EVENTs differ from the kernel's"; }
note "$((BURST * 4)) records, as perf; $(grep -c 'runs skipped' ours.json.err) hooks with skipped runs, all made up"
