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
# A BPF trampoline (fentry and fexit on one function): its bytes as
# /proc/kcore has them while it lives, a page from its start (its length
# comes from perf's own record below).
if ! no_fentry; then
	ktload -a -w go.tramp $BIN/fentry.bpf.o >tramp.txt 2>&1 &
	TL=$!
	wait_for tramp.txt '^attached' 30 || fail "fentry workload: $(cat tramp.txt)"
	sleep 0.3
	awk '$3 ~ /^bpf_trampoline_[0-9_]+$/ {print $1}' /proc/kallsyms >tramp.addrs
	[ -s tramp.addrs ] || fail "no bpf_trampoline_ in /proc/kallsyms"
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
grep -q 'with the code of [1-9]' rec.out.err || fail "no code captured: $(cat rec.out.err)"

# "# bpf_prog_info ID:" then "# <tab>sub_prog I: NAME addr 0xA size N".
prog_funcs() { # perf.data
	perf report --header-only -I -i "$1" 2>/dev/null | awk -v id="$id" '
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

# The trampoline, gone: disasm at the moment the test read /proc/kcore shows
# the bytes it had, as many as its symbol has (6.12+: its image; before, a
# page).
if ! no_fentry; then
	n=0
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
