# `ksymtap snapshot` lists what the kernel has: the same symbols as
# /proc/kallsyms's dynamic entries and the same programs (id, tag) as bpftool;
# lengths as the kernel's own records (native perf) gave them when the symbols
# were born; image lengths from the walker, not estimates; and program names
# built without kallsyms equal kallsyms's.
. /ksymtap/lib.sh
T=/sys/kernel/tracing

perf_start native.data
ktload -w go -a $BIN/subprogs.bpf.o $(fentry_obj) >load.txt &
P1=$!
ktload -w go -x lo $BIN/xdp.bpf.o >xdp.txt &
P2=$!
wait_for load.txt "$(no_fentry && echo '^loaded kt_sock_main' || echo '^attached kt_fexit_probe')" 30 ||
	fail "workload did not load: $(cat load.txt)"
wait_for xdp.txt '^xdp attached' 30 || fail "xdp did not attach: $(cat xdp.txt)"
mkdir $T/instances/kt && echo schedule >$T/instances/kt/set_ftrace_filter &&
	echo function >$T/instances/kt/current_tracer || fail "ftrace instance"
kprobe=$(kprobe_add kt_k1) || fail "no int3 kprobe offset in vfs_read accepted"
echo 1 >$T/events/kprobes/kt_k1/enable
sleep 1
perf_stop

ksymtap snapshot -f json -v >snap.json 2>snap.err || fail "ksymtap snapshot failed: $(cat snap.err)"
KSYMTAP_KALLSYMS=/dev/null ksymtap snapshot -f json >built.json 2>built.err ||
	fail "ksymtap snapshot without kallsyms failed: $(cat built.err)"
kallsyms_dyn | sed 's/^/S /' >kernel.txt
# Every name kallsyms gives a program image, aliases included (5.10 lists
# a main image under two names: lib.sh, drop_main_aliases).
awk '$4 == "[bpf]" { print $1 "\t" $3 }' /proc/kallsyms >prog_names.kallsyms
bpftool_progs >>kernel.txt
sort -o kernel.txt kernel.txt
jited=$(bpftool prog show name kt_sock_main | sed -n 's/.*jited \([0-9]*\)B.*/\1/p')
cat snap.err

echo nop >$T/instances/kt/current_tracer
rmdir $T/instances/kt
if [ -n "$kprobe" ]; then
	echo 0 >$T/events/kprobes/kt_k1/enable
	echo '-:kt_k1' >>$T/kprobe_events
fi
touch go
wait $P1 $P2

kt_replay snap.json >ours.txt
if ! diff kernel.txt ours.txt; then
	fail "snapshot differs from the kernel (< kernel, > ksymtap)"
fi
grep -q '^TWICE' ours.txt && fail "snapshot lists something twice"
! ftrace_tramps || grep -q 'ftrace_trampoline' ours.txt || fail "no ftrace trampoline in the snapshot"
if [ -n "$kprobe" ]; then
	grep -q 'kprobe_insn_page' ours.txt || fail "no kprobe page in the snapshot"
fi
# The walker finds its lists through kallsyms: a kernel without
# CONFIG_KALLSYMS_ALL has no static data there (Debian's arm64 6.1).
if ! grep -q ' bpf_kallsyms$' /proc/kallsyms; then
	note "no bpf_kallsyms in kallsyms (CONFIG_KALLSYMS_ALL off): lengths estimated"
else
	grep -q 'snapshot: .*BPF images (walked).*ftrace trampolines (walked)' snap.err ||
		fail "image lengths were not walked on this kernel"
fi

# Program names as the kernel builds them, without kallsyms.
json_sel snap.json '.source == "bpf_prog"' | kt_records - | sort >names.kallsyms
json_sel built.json '.source == "bpf_prog"' | kt_records - | sort >names.built
# Built without kallsyms, a main image's name may be the other name kallsyms
# gives that address (where there are two), not the one perf reports.
if ! diff names.kallsyms names.built >names.diff; then
	awk -F '\t' 'FNR == NR { known[$1 "|" $2] = 1; next }
		/^> K/ { split(substr($0, 3), f, "\t"); if (!((f[2] "|" f[6]) in known)) { print; bad++ } }
		END { exit bad > 0 }' prog_names.kallsyms names.diff ||
		fail "built program names are not names kallsyms gives (< kallsyms)"
	note "built names that are kallsyms aliases: $(grep -c '^>' names.diff)"
fi

# The images of kt_sock_main add up to what bpftool says was JITed.
sum=$(json_sel snap.json '.name | test("^bpf_prog_[0-9a-f]+_kt_s")' | kt_records - |
	awk -F '\t' '{ s += $3 } END { print s }')
[ "$sum" = "$jited" ] || fail "kt_sock_main images add up to $sum bytes, bpftool says $jited"

# Lengths against the kernel's own records of the births.
perf_records native.data >native.tsv
kt_records snap.json >snap.tsv
awk -F '\t' '
FNR == NR { if ($1 == "K" && $5 == 0) nat[$2 "|" $6] = $3; next }
$1 == "K" {
	k = $2 "|" $6
	if (!(k in nat)) next
	if (nat[k] == $3) ok++
	else if (nat[k] == 4096 && $3 < 4096 && $6 !~ /^bpf_prog_/) explained++
	else { print "len differs: " $6 " native " nat[k] " ours " $3; bad++ }
}
END { printf "# lengths: %d equal, %d packed (native says a page), %d differ\n", ok, explained, bad; exit bad > 0 || ok == 0 }
' native.tsv snap.tsv || fail "lengths differ from the kernel's records"
