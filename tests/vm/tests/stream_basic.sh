# ksymtap attaches its BPF programs in this kernel, and a program loaded
# afterwards is reported with the address and name /proc/kallsyms gives it and
# the id and tag bpftool (bpf_prog_info) gives it, then its unload.
. /ksymtap/lib.sh
need_bpf_backend

kt_start out.json -f json -v
grep -q '^ksymtap: ready: backend bpf; sources: bpf_prog' out.json.err ||
	fail "ready line does not name the bpf backend: $(grep ready out.json.err)"
cat out.json.err
# A hook may be off only because this kernel lacks its function, never because
# the kernel refused our program (that would be our bug).
! grep -E '^ksymtap: hook .* off: ' out.json.err | grep -v 'off: kernel has no ' ||
	fail "hooks off for another reason than a missing kernel function"

ktload -w go $BIN/subprogs.bpf.o >load.txt &
LOAD=$!
wait_for load.txt '^loaded' 30 || fail "workload did not load"
id=$(awk '/^loaded kt_sock_main/ {print $4}' load.txt)
bpftool prog show id "$id" >prog.txt || fail "bpftool does not know prog $id"
tag=$(sed -n 's/.*tag \([0-9a-f]*\).*/\1/p' prog.txt)
grep -E '_kt_(sock_main|sub_one|sub_two)' /proc/kallsyms | drop_main_aliases >ksyms.txt
touch go
wait $LOAD
sleep 0.5
kt_stop
cat ksyms.txt prog.txt
kt_records out.json >ours.tsv
cat ours.tsv

[ "$(wc -l <ksyms.txt)" -ge 3 ] || fail "kallsyms lists $(wc -l <ksyms.txt) images, expected 3"
while read -r addr t name mod; do
	grep -q "^K	$addr	[0-9]*	1	0	$name\$" ours.tsv || fail "no register record for $addr $name"
	grep -q "^K	$addr	[0-9]*	1	1	$name\$" ours.tsv || fail "no unregister record for $addr $name"
done <ksyms.txt
grep -q "^B	1	0	$id	$tag\$" ours.tsv || fail "no PROG_LOAD with id $id tag $tag"
grep -q "^B	2	0	$id	$tag\$" ours.tsv || fail "no PROG_UNLOAD with id $id tag $tag"
# Each image names its program (the module-like name per program).
n=$(json_count out.json ".kind == \"ksymbol\" and (.name | test(\"_kt_(sock_main|sub_one|sub_two)$\")) and
	.module == \"bpf\" and .prog_id == $id")
[ "$n" = 6 ] || fail "$n of 6 image records name program $id"
note "prog $id tag $tag and its $(wc -l <ksyms.txt) images reported"
