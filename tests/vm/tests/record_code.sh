# Issue 32, its first part: `ksymtap record` keeps each program's code (its
# bpf_prog_info with the JIT image, line and function info, and its BTF) in
# perf.data's HEADER_BPF_PROG_INFO and HEADER_BPF_BTF, and the real perf
# reads them back (perf report --header-only -I): for a program with
# subprograms and BTF line info that the test loads and unloads while
# recording, each function's name and address as /proc/kallsyms had them
# while it lived (its main function's tag aside: kallsyms names it by the
# program's tag or func[0]'s depending on the kernel, perf by func[0]'s),
# sizes that add up to the image bpftool reported (bytes_jited), its BTF
# object by the id bpftool reported, and the same lines as perf's own record
# of the same run.  Then `ksymtap disasm` of the file, after the program is
# gone: each function's bytes as the kernel's jited_prog_insns had them while
# it lived (ktcode), its source lines as bpftool prog dump xlated linum; and
# a BPF trampoline's bytes as /proc/kcore had them while it lived (where
# there are trampolines: not arm64 before 6.4); and the same from a `ksymtap
# serve` that ran beside it (disasm -s).
# vm-timeout: 420 (5.10 and arm64 under emulation: the loads and perf report)
. /ksymtap/lib.sh

kt_start rec.out record -o k.data -v
# A daemon beside it keeps the same code (disasm -s, at the end).
ksymtap serve -s "$PWD/code.sock" 2>serve.err &
SV=$!
wait_for serve.err '^ksymtap: ready' 60 || fail "serve: $(cat serve.err)"
perf_start native.data
ktload -w go $BIN/subprogs.bpf.o >load.txt &
LOADER=$!
wait_for load.txt '^loaded kt_sock_main' 30 || fail "workload: $(cat load.txt)"
id=$(awk '/^loaded kt_sock_main/ {print $4}' load.txt)
bpftool prog show id "$id" --json >prog.json || fail "bpftool prog show id $id"
jited=$(jq .bytes_jited prog.json)
btf=$(jq '.btf_id // 0' prog.json)
[ "$btf" -gt 0 ] || fail "prog $id has no BTF: $(cat prog.json)"
ktcode "$id" >code.txt || fail "ktcode $id"
bpftool prog dump xlated id "$id" linum >xlated.txt || fail "bpftool prog dump xlated id $id linum"
# The program's functions as the kernel names them: bpf_prog_TAG_FUNC.
grep -E ' bpf_prog_[0-9a-f]{16}_(kt_sock_main|kt_sub_one|kt_sub_two)\b' /proc/kallsyms |
	awk '{print $3, $1}' | sort >kallsyms.txt
sleep 0.5
touch go
wait $LOADER || fail "ktload failed"
# Programs visible for under a millisecond (the same object: the program
# above is their identical load kept alive, whose xlated linum is the
# oracle of their source lines), each read by ktshort in that window; up to
# 8, of at most 40 loads (under emulation a load and close take longer).
ktshort $BIN/subprogs.bpf.o kt_sock_main 8 1000 >short.txt 2>short.err ||
	fail "ktshort: $(cat short.err) $(tail -n 1 short.txt)"
# A BPF trampoline (fentry and fexit on one function): its bytes as
# /proc/kcore has them while it lives, a page from its start (its length
# comes from perf's own record below).
if ! no_fentry; then
	awk '$3 ~ /^bpf_trampoline_[0-9_]+$/ {print $1, $3}' /proc/kallsyms | sort >tramp.before
	ktload -a -w go.tramp $BIN/fentry.bpf.o >tramp.txt 2>&1 &
	TL=$!
	wait_for tramp.txt '^attached' 30 || fail "fentry workload: $(cat tramp.txt)"
	sleep 0.3
	# The trampolines the attach made (those new in kallsyms): ksymtap's
	# own hooks have trampolines too, which its daemon's attach rewrote.
	awk '$3 ~ /^bpf_trampoline_[0-9_]+$/ {print $1, $3}' /proc/kallsyms | sort >tramp.after
	awk 'NR == FNR { b[$0] = 1; next } !($0 in b) { print $1 }' tramp.before tramp.after >tramp.addrs
	[ -s tramp.addrs ] || fail "no new bpf_trampoline_ in /proc/kallsyms after the attach"
	while read -r a; do
		ktkcore "$a" 4096 >"tramp.$a.hex" || fail "ktkcore $a"
	done <tramp.addrs
	# The moment they were read, on perf's clock (printk's is the same
	# local_clock()): trampoline addresses are reused as hooks come and go.
	echo kt-tramp-mark >/dev/kmsg
	tt=$(dmesg | sed -n 's/^\[ *\([0-9.]*\)\] kt-tramp-mark$/\1/p' | tail -n 1)
	[ -n "$tt" ] || fail "no kt-tramp-mark in dmesg"
	touch go.tramp
	wait $TL || fail "ktload fentry failed"
fi
sleep 0.5
perf_stop
kt_stop
# On a failure, what the test gathered about the case at hand.
dump=
on_fail() { [ -z "$dump" ] || cat "$dump"; }
grep -q 'with the code of [1-9]' rec.out.err || fail "no code captured: $(cat rec.out.err)"
# The copy at unload lives in the program hooks: a hook the kernel refused
# would leave it to another path or to native records.
! grep 'kernel refused' rec.out.err || fail "a hook was refused"

# "# bpf_prog_info ID:" then "# <tab>sub_prog I: NAME addr 0xA size N".
prog_funcs() { # perf.data [id]
	perf report --header-only -I -i "$1" 2>/dev/null | awk -v id="${2:-$id}" '
	$2 == "bpf_prog_info" { on = ($3 == id ":") ; next }
	on && $2 == "sub_prog" { a = $6; sub("^0x", "", a); print $4, a, $8; next }
	{ on = 0 }'
}
perf report --header-only -I -i k.data >hdr.txt 2>hdr.err || fail "perf report: $(cat hdr.err)"
prog_funcs k.data >ours.txt
[ -s ours.txt ] || { grep -m5 bpf_prog_info hdr.txt; fail "perf lists no bpf_prog_info for prog $id"; }
cat ours.txt
prog_funcs native.data >native.txt
diff native.txt ours.txt >perf.diff || { cat perf.diff; fail "differs from perf's own record (< perf, > ksymtap)"; }
# Names without their tag, and addresses.
untag() { sed -E 's/^bpf_prog_[0-9a-f]{16}_//; s/ 0*/ /'; }
awk '{print $1, $2}' ours.txt | untag | sort >ours.ka
untag <kallsyms.txt | sort -u >kallsyms.ka  # before 6.4 the main image twice (drop_main_aliases)
diff kallsyms.ka ours.ka >ka.diff || { cat ka.diff; fail "functions differ from /proc/kallsyms (< kernel, > perf.data)"; }
sum=$(awk '{s += $3} END {print s}' ours.txt)
[ "$sum" = "$jited" ] || fail "function sizes add up to $sum, bpftool said bytes_jited $jited"
grep -q "^# btf info of id $btf\$" hdr.txt || fail "no BTF object $btf in the header: $(grep btf hdr.txt | head -3)"
note "prog $id: $(wc -l <ours.txt) functions, $sum bytes, BTF $btf, as the kernel said"
t=$(prog_load_time k.data "$id")
[ -n "$t" ] || fail "perf script shows no PROG_LOAD of $id in k.data"
code_check "-i k.data" code.txt xlated.txt "$t" .
note "disasm at $t: $(grep -c '^func ' code.txt) functions' bytes as the kernel's, $(wc -l <lines.txt) source lines as bpftool's"

# The short-lived programs: in the file's header as perf reads it (with
# their BTF), and their code at their load time, from the file and the
# daemon.  perf's own record mostly lacks them: its side-band thread reads
# a program by id after the event.
grep -i 'warning\|code of\|hook prog_del\|hook ksym_del' rec.out.err >dbg1.txt || :
dump=dbg1.txt
nshort=0 nlack=0
while read -r kind sid life; do
	[ "$kind" = short ] || continue
	sbtf=$(awk '/^prog / {print $6}' "short.$sid.txt")
	prog_funcs k.data "$sid" >"short.$sid.ours"
	[ -s "short.$sid.ours" ] || fail "short-lived prog $sid (visible $life us): no bpf_prog_info in perf report --header-only -I"
	grep -q "^# btf info of id $sbtf\$" hdr.txt || fail "short-lived prog $sid: no btf info of its BTF $sbtf"
	prog_funcs native.data "$sid" | grep -q . || nlack=$((nlack + 1))
	st=$(prog_mid_time k.data "$sid")
	[ -n "$st" ] || fail "perf script shows no PROG_LOAD and PROG_UNLOAD of $sid in k.data"
	mkdir -p "short.$sid.d" "short.$sid.s"
	code_check "-i k.data" "short.$sid.txt" xlated.txt "$st" "short.$sid.d"
	a0=$(awk '/^func / {print $2; exit}' "short.$sid.txt")
	{
		echo "prog $sid at $st, its first function at $a0: k.data, the daemon then and now, and perf's records there"
		ksymtap resolve -i k.data --at "$st" "$a0"
		ksymtap resolve -s "$PWD/code.sock" --at "$st" "$a0"
		ksymtap resolve -s "$PWD/code.sock" "$a0"
		perf script -i k.data --ns --show-bpf-events 2>/dev/null | grep -i "$a0\| $sid\$"
		grep -i 'lost\|resync\|warning' serve.err
	} >dbg2.txt 2>&1 || :
	dump=dbg2.txt
	code_check "-s $PWD/code.sock" "short.$sid.txt" xlated.txt "$st" "short.$sid.s"
	nshort=$((nshort + 1))
done <short.txt
[ "$nshort" -gt 0 ] || fail "ktshort kept no program: $(cat short.txt)"
note "$nshort programs visible under 1 ms ($(tail -n 1 short.txt) loads): bytes and source lines from the file and the daemon; perf's own record lacks $nlack of them; $(grep -o '[0-9]* of them copied at their unload' rec.out.err)"

# The trampoline, gone: disasm at the moment the test read /proc/kcore shows
# the bytes it had, as many as its symbol has (6.12+: its image; before, a
# page).
if ! no_fentry; then
	n=0
	{
		echo "trampolines read at $tt; record's words and the TEXT_POKEs there:"
		grep -i 'trampolines\|kcore\|warning' rec.out.err
		perf script -i k.data --ns --show-text-poke-events 2>/dev/null | grep -i "$(sed 's/^0*//' tramp.addrs | tr '\n' '|' | sed 's/|$//;s/|/\\|/g')"
	} >dbg3.txt 2>&1 || :
	dump=dbg3.txt
	while read -r a; do
		ksymtap disasm -i k.data --at "$tt" -f json "$a" >"tramp.$a.json" 2>tramp.err ||
			fail "disasm of trampoline $a: $(cat tramp.err)"
		len=$(jq .len "tramp.$a.json")
		[ "$len" -gt 0 ] && [ "$len" -le 4096 ] || fail "trampoline $a: length $len"
		jq -e '.symbol | startswith("bpf_trampoline_")' "tramp.$a.json" >/dev/null ||
			fail "trampoline $a: disasm names $(jq .symbol "tramp.$a.json")"
		got=$(jq -r '.insns[].bytes' "tramp.$a.json" | tr -d '\n')
		want=$(head -c $((2 * len)) "tramp.$a.hex")
		[ "$got" = "$want" ] || fail "trampoline $a: bytes differ from /proc/kcore's while it lived:
  kcore   $want
  disasm  $got"
		ksymtap disasm -s "$PWD/code.sock" --at "$tt" -f json "$a" >"tramp.$a.s.json" 2>tramp.err ||
			fail "disasm -s of trampoline $a: $(cat tramp.err)"
		got=$(jq -r '.insns[].bytes' "tramp.$a.s.json" | tr -d '\n')
		[ "$got" = "$want" ] || fail "trampoline $a from the daemon: bytes differ from /proc/kcore's:
  kcore   $want
  disasm  $got"
		n=$((n + 1))
	done <tramp.addrs
	note "disasm: $n trampoline(s), bytes as /proc/kcore had them, from the file and the daemon"
fi
# The program from the daemon too.
mkdir -p daemon
code_check "-s $PWD/code.sock" code.txt xlated.txt "$t" "$PWD/daemon"
note "disasm -s: the program's functions and source lines from the daemon as from the file"
kill -INT $SV
wait $SV || fail "serve exited $?: $(cat serve.err)"

# tests/host/data/ARCH-subprogs.data, for the host test disasm.sh (its
# llvm-objdump check of another arch's code): with KT_CODE_FILE=1 and
# vmtest.sh --verbose, a record of just this program, as base64 lines.
if [ -n "${KT_CODE_FILE:-}" ]; then
	kt_start fix.out record --no-snapshot -o fix.data
	ktload -t 100 $BIN/subprogs.bpf.o >/dev/null || fail "ktload failed"
	sleep 0.5
	kt_stop
	base64 fix.data | sed 's/^/CODEFILE /'
fi
