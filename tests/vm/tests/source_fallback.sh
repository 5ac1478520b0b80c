# Per-source fallback (issue 11): a source whose hooks cannot work comes from
# the kernel's native records while the others stay on the hooks; the ready
# line says where each comes from, one warning line says why, and with
# -b bpf a source the hooks cannot watch is named as missing.  Checked
# against the kernel's own records (perf record -e dummy -a).
. /ksymtap/lib.sh
need_bpf_backend

# 1. prog_add off: programs from native records, images from the hooks.
kt_start ours.json -f json --disable-hook prog_add
grep -q '^ksymtap: ready: backend bpf; sources: bpf_prog(native) bpf_image ' ours.json.err ||
	fail "ready line: $(grep ready ours.json.err)"
[ "$(grep -c '^ksymtap: warning: from native records: bpf_prog (hook prog_add: disabled by --disable-hook)' ours.json.err)" = 1 ] ||
	fail "not one warning naming bpf_prog and why: $(cat ours.json.err)"
perf_start native.data
ktload $BIN/subprogs.bpf.o || fail "ktload subprogs"
ktload -a -t 300 $BIN/fentry.bpf.o >/dev/null || fail "ktload fentry"
sleep 1
perf_stop
sleep 0.5
kt_stop
perf_records native.data >native.tsv
kt_records ours.json >ours.tsv
grep -q '	bpf_prog_[0-9a-f]*_kt_sub_two$' native.tsv || fail "workload made no native program records"
grep -q '	bpf_trampoline_[0-9_]*$' native.tsv || fail "workload made no native trampoline records"
match_records native.tsv ours.tsv || fail "native records missing with bpf_prog from native records"
# Each source from its side, and nothing twice.
json_has ours.json '.source == "bpf_prog" and (.snapshot | not) and .origin == "bpf"' &&
	fail "a program record from the (disabled) hooks"
json_has ours.json '.source == "bpf_prog" and (.snapshot | not) and .origin == "native"' ||
	fail "no program record from native records"
json_has ours.json '.source == "bpf_image" and (.snapshot | not) and .origin == "bpf"' ||
	fail "no image record from the hooks"
n_nat=$(grep -c '	1	0	bpf_prog_[0-9a-f]*_kt_sub_two$' native.tsv)
n_ours=$(grep -c '	1	0	bpf_prog_[0-9a-f]*_kt_sub_two$' ours.tsv)
[ "$n_nat" = "$n_ours" ] || fail "kt_sub_two registered $n_ours times, natively $n_nat"

# 2. -b bpf: the source is named as missing, the rest runs.
kt_start bpf.json -f json -b bpf --disable-hook ksym_add
grep -q '^ksymtap: ready: backend bpf; sources: bpf_prog bpf_image(missing) ' bpf.json.err ||
	fail "ready line with -b bpf: $(grep ready bpf.json.err)"
grep -q '^ksymtap: warning: missing: bpf_image (hook ksym_add: disabled by --disable-hook)' bpf.json.err ||
	fail "no warning naming the missing source: $(cat bpf.json.err)"
kt_stop

# 3. Both allocator hooks off: ftrace trampolines and kprobe pages from
# native records.
kt_start text.json -f json --disable-hook module_alloc --disable-hook execmem_alloc
if ! ftrace_tramps; then
	grep -q '^ksymtap: ready: backend bpf; sources: bpf_prog bpf_image ftrace(absent) kprobe(native)$' text.json.err ||
		fail "ready line: $(grep ready text.json.err)"
	kt_stop
	note "arm64: ftrace absent (no per-ops trampolines), kprobe pages from native records"
	exit 0
fi
grep -q '^ksymtap: ready: backend bpf; sources: bpf_prog bpf_image ftrace(native) kprobe(native)$' text.json.err ||
	fail "ready line: $(grep ready text.json.err)"
T=/sys/kernel/tracing
mkdir $T/instances/ktf || fail "ftrace instance"
echo schedule >$T/instances/ktf/set_ftrace_filter
echo function >$T/instances/ktf/current_tracer
sleep 0.3
awk '$3 == "ftrace_trampoline" { print $1 }' /proc/kallsyms >tramps.txt
echo nop >$T/instances/ktf/current_tracer
rmdir $T/instances/ktf
sleep 0.5
kt_stop
[ -s tramps.txt ] || fail "no ftrace trampoline in kallsyms"
found=
while read -r addr; do
	json_has text.json ".source == \"ftrace\" and .origin == \"native\" and .unregister and
		.addr == \"0x$addr\"" && found=$addr
done <tramps.txt
[ -n "$found" ] || fail "no trampoline of the instance ($(cat tramps.txt)) reported from native records"
note "per-source fallback: programs, images, ftrace trampolines each from the side the ready line names"
