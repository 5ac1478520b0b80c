# Programs loaded before ksymtap starts, and others loaded and unloaded in a
# loop while it starts: the snapshot plus the stream describe exactly what the
# kernel has once the workload is quiet (/proc/kallsyms's dynamic entries,
# bpftool prog show), with no symbol or program registered twice.
. /ksymtap/lib.sh

ktload -w go $BIN/subprogs.bpf.o $(fentry_obj) -a >pre.txt &
PRE=$!
wait_for pre.txt "$(no_fentry && echo '^loaded kt_sock_main' || echo '^attached kt_fexit_probe')" 30 ||
	fail "workload did not load: $(cat pre.txt)"
pre_id=$(awk '/^loaded kt_sock_main/ {print $4}' pre.txt)

# Loads racing with the start-up: attach, snapshot, first polls.
(
	while [ ! -e stop ]; do
		ktload -t 20 $BIN/subprogs.bpf.o >/dev/null 2>&1
	done
) &
LOOP=$!
sleep 0.3
kt_start out.json -f json -v
sleep 0.5
touch stop
wait $LOOP
sleep 1 # ksymtap polls every 100 ms: let it take the last unloads

# Programs first, then a pause, so that anything the listing itself makes and
# removes has reached ksymtap's output before it is read.
bpftool_progs >kernel.txt
sleep 1
kallsyms_dyn | sed 's/^/S /' >>kernel.txt
sort -o kernel.txt kernel.txt
# A loss ksymtap reported (hook runs the kernel skipped: preempted on that
# CPU, docs/reliability.md "Soak") is followed by a resync within seconds,
# which mends the difference (user/run/resync.c): wait for it.
i=0
while kt_replay out.json >ours.txt; ! diff kernel.txt ours.txt >diff.txt; do
	i=$((i + 1))
	[ $i -lt 50 ] || break
	sleep 0.2
done
touch go
wait $PRE
kt_stop

grep 'snapshot:' out.json.err
snap=$(json_count out.json '.snapshot')
live_loads=$(json_count out.json '(.snapshot | not) and .prog_name == "kt_sock_main"')
note "$snap snapshot records, $live_loads live kt_sock_main load/unload events"
[ "$snap" -gt 0 ] || fail "no snapshot records"
json_has out.json ".snapshot and .kind == \"bpf_event\" and .type == 1 and .id == $pre_id" ||
	fail "program $pre_id, loaded before the start, is not in the snapshot"
no_fentry || json_has out.json '.snapshot and .source == "bpf_image" and (.name | startswith("bpf_trampoline_"))' ||
	fail "the fentry trampoline loaded before the start is not in the snapshot"
# Every snapshot record comes before the first live one.
jq -r 'select(.snapshot != null) | .snapshot' out.json 2>/dev/null |
	awk '$0 == "false" { live = 1 } $0 == "true" && live { bad = 1 } END { exit bad }' ||
	fail "snapshot records after live ones"
if grep '^TWICE' ours.txt; then
	fail "reported twice (above)"
fi
if ! diff kernel.txt ours.txt >diff.txt; then
	cat diff.txt
	# What ksymtap said of each difference.
	sed -n 's/^[-+]S \([0-9a-f]*\) t \([^	]*\).*/\1 \2/p; s/^[-+]P \([0-9]*\) .*/\1/p' diff.txt |
		while read -r a n; do
			if [ -n "$n" ]; then
				json_sel out.json ".addr == \"0x$a\" and .name == \"$n\""
			else
				json_sel out.json ".id == $a"
			fi
		done
	# A program only ksymtap still has: the live records from its load on.
	for id in $(sed -n 's/^+P \([0-9]*\) .*/\1/p' diff.txt); do
		t0=$(jq -r "select(.kind == \"bpf_event\" and .id == $id and .type == 1) | .time" out.json | head -n 1)
		echo "# live records from the load of $id (time, tid, kind, type or flags, id, addr, name):"
		jq -r "select(.time >= ${t0:-0} and (.snapshot | not)) | [.time, .tid, .kind, .type // .flags, .id // .prog_id, .addr, .name // .prog_name] | @tsv" out.json |
			head -n 40
	done
	grep -E 'lost|skipped|resync' out.json.err
	fail "snapshot + stream differ from the kernel (< kernel, > ksymtap), no loss reported"
fi
note "$(grep -c '^S' kernel.txt) symbols and $(grep -c '^P' kernel.txt) programs agree"
