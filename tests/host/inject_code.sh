# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# ksymtap inject adds the code perf's own perf.data lacks (issue 32): a
# program with subprograms and BTF loaded and unloaded while perf record was
# stopped (SIGSTOP), so that perf's side-band thread, when it ran again, found
# it gone and kept no bpf_prog_info, as it does for any program that dies
# before it is fetched.  `ksymtap record` read it while it lived.  The real
# perf then lists it from OUT (perf report --header-only -I): its functions,
# addresses and sizes as the kernel's bpf_prog_info gave them (ktcode), and
# its BTF object; the programs perf did keep are still there, once.
. "${KT_TOP:-.}/tests/host/lib.sh"
set -u
need_root
command -v perf >/dev/null || skip "perf not installed (make deps)"
B=${KT_TOP:-.}/build
for f in "$KT" "$B/tests/vm/ktcode" "$B/tests/vm/ktload" "$B/tests/vm/subprogs.bpf.o"; do
	[ -e "$f" ] || fail "$f missing (make vm-build)"
done
tmpdir
cd "$T" || exit 1

"$KT" record -b native --no-snapshot -o k.data 2>k.err &
KP=$!
wait_for k.err '^ksymtap: ready' 30 || fail "record: $(cat k.err)"
mkfifo perf.ctl perf.ack
perf record -q -D -1 --control fifo:perf.ctl,perf.ack -e dummy -a -o p.data >/dev/null 2>p.err &
PP=$!
exec 8<>perf.ack
timeout 30 sh -c 'echo enable >perf.ctl'
read -r -t 30 -u 8 ack && [ "$ack" = ack ] || fail "perf record did not enable its events: $(cat p.err)"
exec 8<&-
# Kept before and after: perf fetches it, and OUT must keep perf's entry.
"$B/tests/vm/ktload" -w go.keep "$B/tests/vm/subprogs.bpf.o" >keep.txt 2>&1 &
LK=$!
wait_for keep.txt '^loaded kt_sock_main' 30 || fail "workload: $(cat keep.txt)"
keep=$(awk '/^loaded kt_sock_main/ {print $4}' keep.txt)
sleep 1
kill -STOP $PP
"$B/tests/vm/ktload" -w go "$B/tests/vm/subprogs.bpf.o" >load.txt 2>&1 &
L=$!
wait_for load.txt '^loaded kt_sock_main' 30 || { kill -CONT $PP; fail "workload: $(cat load.txt)"; }
id=$(awk '/^loaded kt_sock_main/ {print $4}' load.txt)
"$B/tests/vm/ktcode" "$id" >code.txt || { kill -CONT $PP; fail "ktcode $id"; }
btf=$(bpftool prog show id "$id" --json | jq '.btf_id // 0')
touch go
wait $L
kill -CONT $PP
sleep 1
touch go.keep
wait $LK
sleep 0.5
kill -INT $PP
wait $PP
kill -INT $KP
wait $KP || fail "record exited $?: $(cat k.err)"

progs() { # perf.data: "ID" per bpf_prog_info
	perf report --header-only -I -i "$1" 2>/dev/null | awk '$2 == "bpf_prog_info" {sub(":", "", $3); print $3}' | sort
}
funcs() { # perf.data id: "ADDR SIZE" per function
	perf report --header-only -I -i "$1" 2>/dev/null | awk -v id="$2" '
	$2 == "bpf_prog_info" { on = ($3 == id ":"); next }
	on && $2 == "sub_prog" { a = $6; sub("^0x", "", a); print a, $8; next }
	{ on = 0 }'
}
progs p.data >p.progs
grep -qx "$id" p.progs && skip "perf fetched program $id although stopped while it lived"
grep -qx "$keep" p.progs || fail "perf's own file lacks the program it could fetch ($keep): $(tr '\n' ' ' <p.progs)"
"$KT" inject -i p.data -o o.data --symbols k.data 2>inject.err || fail "inject: $(cat inject.err)"
cat inject.err
grep -q '^ksymtap: and the code of [1-9][0-9]* programs' inject.err || fail "inject says no code added: $(cat inject.err)"
progs o.data >o.progs
grep -qx "$id" o.progs || fail "OUT lists no bpf_prog_info of $id: $(tr '\n' ' ' <o.progs)"
[ "$(grep -cx "$keep" o.progs)" = 1 ] || fail "perf's own program $keep is not listed once in OUT"
comm -23 p.progs o.progs | grep -q . && fail "OUT lost perf's programs: $(comm -23 p.progs o.progs | tr '\n' ' ')"
funcs o.data "$id" | sort >o.funcs
awk '/^func / {print $2, $3}' code.txt | sort >kernel.funcs
diff kernel.funcs o.funcs >funcs.diff || { cat funcs.diff; fail "program $id's functions differ from the kernel's (< kernel, > OUT)"; }
perf report --header-only -I -i o.data 2>/dev/null | grep -q "^# btf info of id $btf\$" || fail "OUT has no BTF object $btf"
echo "INFO perf missed program $id ($(grep -c '^func ' code.txt) functions, BTF $btf); OUT has it, and perf's $keep once"
