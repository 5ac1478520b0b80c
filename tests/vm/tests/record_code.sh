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
# of the same run.
. /ksymtap/lib.sh

kt_start rec.out record -o k.data -v
perf_start native.data
ktload -w go $BIN/subprogs.bpf.o >load.txt &
LOADER=$!
wait_for load.txt '^loaded kt_sock_main' 30 || fail "workload: $(cat load.txt)"
id=$(awk '/^loaded kt_sock_main/ {print $4}' load.txt)
bpftool prog show id "$id" --json >prog.json || fail "bpftool prog show id $id"
jited=$(jq .bytes_jited prog.json)
btf=$(jq '.btf_id // 0' prog.json)
[ "$btf" -gt 0 ] || fail "prog $id has no BTF: $(cat prog.json)"
# The program's functions as the kernel names them: bpf_prog_TAG_FUNC.
grep -E ' bpf_prog_[0-9a-f]{16}_(kt_sock_main|kt_sub_one|kt_sub_two)\b' /proc/kallsyms |
	awk '{print $3, $1}' | sort >kallsyms.txt
sleep 0.5
touch go
wait $LOADER || fail "ktload failed"
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
