# Issue 3: every source of dynamic symbols, created and destroyed while the
# kernel's own records are recorded alongside (perf record -e dummy -a).  Every
# native KSYMBOL and BPF_EVENT must appear in ksymtap's output with the same
# addr, type, flags and name (and len, but for 6.12's page-sized trampolines,
# docs/kernel-facts.md), every BPF_EVENT with the same id and tag.  Sources the
# kernel does not report to perf (struct_ops images) are checked against
# /proc/kallsyms instead.  Runs before the other tests: the first kprobe page
# and bpf_dispatcher_xdp are born once per boot.
. /ksymtap/lib.sh

# Two taps at once: JSON for the fields, raw for the bytes.
kt_start ours.raw -f raw
RAW_PID=$KT_PID
kt_start ours.json -f json -v
perf_start native.data
run_workload
perf_stop
sleep 0.5
kt_stop
KT_PID=$RAW_PID
kt_stop
grep -E 'hook|ready' ours.json.err

perf_records native.data >native.tsv
kt_records ours.json >ours.tsv
note "native records: $(wc -l <native.tsv), ksymtap: $(wc -l <ours.tsv)"

# The workload must have made every source natively, or the test proves nothing.
for want in 'K	.*	1	0	bpf_prog_[0-9a-f]*_kt_sock_main$' \
	'K	.*	1	0	bpf_prog_[0-9a-f]*_kt_sub_two$' \
	'K	.*	1	1	bpf_prog_[0-9a-f]*_kt_sub_two$' \
	'K	.*	1	0	bpf_dispatcher_xdp$' \
	'K	.*	2	0	kprobe_insn_page$' \
	'B	1	0	' 'B	2	0	'; do
	grep -q "$want" native.tsv || fail "the kernel's own records lack $want: workload broken?"
done
if no_fentry; then
	note "arm64 before 6.4: no BPF trampolines"
else
	for want in 'K	.*	1	0	bpf_trampoline_[0-9_]*$' 'K	.*	1	1	bpf_trampoline_[0-9_]*$'; do
		grep -q "$want" native.tsv || fail "the kernel's own records lack $want: workload broken?"
	done
fi
if ftrace_tramps; then
	for want in 'K	.*	2	0	ftrace_trampoline$' 'K	.*	2	1	ftrace_trampoline$'; do
		grep -q "$want" native.tsv || fail "the kernel's own records lack $want: workload broken?"
	done
else
	note "arm64: no ftrace trampolines (the source is absent there)"
fi

grep "	2	" native.tsv | sed "s/^/native: /"
match_records native.tsv ours.tsv >match.txt || {
	echo "-- native"; cat native.tsv
	echo "-- ours"; cat ours.tsv
	# Last, so that the report's tail shows it.
	echo "-- problems"; cat match.txt
	fail "native records missing from ksymtap's output"
}
cat match.txt

# Programs: ids and tags as bpftool would say are in the BPF_EVENTs above;
# each load must come with its KSYMBOLs before it, as natively.
awk -F '\t' '$1 == "B" && $2 == 1 && $5 !~ /^[0-9a-f]{16}$/ {bad = 1} END {exit bad}' ours.tsv ||
	fail "a PROG_LOAD without a 16-hex-digit tag"

# struct_ops images (6.10+): no native records; kallsyms while registered.
if [ -s structops.kallsyms ]; then
	while read -r addr t name mod; do
		grep -q "^K	$addr	[0-9]*	1	0	$name\$" ours.tsv ||
			fail "struct_ops image $addr $name (kallsyms) not reported"
		grep -q "^K	$addr	[0-9]*	1	1	$name\$" ours.tsv ||
			fail "struct_ops image $addr $name not reported as unregistered"
	done <structops.kallsyms
	note "struct_ops images: $(wc -l <structops.kallsyms), as kallsyms lists them"
fi
# Unloads run by kernel workers carry the loader's identity.
no_fentry ||
	json_has ours.json '.unregister and .source == "bpf_prog" and .identity == "loader"' ||
	fail "program unloads are not attributed to their loader"

# Byte for byte: each native record's header and body equal one of ours.
ktrawdump <ours.raw >ours.hex || fail "ksymtap -f raw is not a clean record stream"
perf_records_hex native.data >native.hex
[ -s native.hex ] || fail "no native records in hex"
# A record is at least header (8) + body (16) bytes: an empty dump must not match.
awk 'length($2) < 48 || length($2) % 16 {bad = 1} END {exit bad}' native.hex ours.hex ||
	fail "hex dumps too short: parsing broken"
match_hex native.hex ours.hex || fail "raw records differ from the kernel's"
