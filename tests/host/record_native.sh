# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# ksymtap record -b native on this machine's kernel, read back by the real perf.
# The truth is the kernel's: bpf_prog_info of the program the test loads
# (tests/vm/progs/ktcode.c), and a `perf record -e dummy -a` running at the same
# time, whose every record must be in ksymtap's file.  Then the pipe format
# through `perf script -i -`, CMD mode, and the two output failures: a full
# disk (a tiny tmpfs) and a reader that goes away.
. "${KT_TOP:-.}/tests/vm/lib.sh" # perf_records, match_records
. "${KT_TOP:-.}/tests/host/lib.sh"
set -u

need_root
command -v perf >/dev/null || skip "perf not installed (make deps)"
B=${KT_TOP:-.}/build
OBJ=$B/tests/vm/subprogs.bpf.o
for f in "$KT" "$B/tests/vm/ktcode" "$B/tests/vm/ktload" "$OBJ"; do
	[ -e "$f" ] || fail "$f missing (make host-build)"
done
T=$(mktemp -d)
MNT=
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT


# Load the socket filter with two subprograms (three JITed images), read the
# kernel's bpf_prog_info while it is loaded, unload; then three quick rounds.
workload() { # tag
	"$B/tests/vm/ktload" -w "$T/go.$1" "$OBJ" >"$T/load.$1" 2>&1 &
	local l=$! id
	wait_for "$T/load.$1" '^loaded kt_sock_main' 30 || fail "workload did not load: $(cat "$T/load.$1")"
	id=$(awk '/^loaded kt_sock_main/ {print $4}' "$T/load.$1")
	"$B/tests/vm/ktcode" "$id" >"$T/info.$1" || fail "ktcode $id failed"
	touch "$T/go.$1"
	wait $l || fail "ktload exited $?"
	"$B/tests/vm/ktload" -t 20 -r 3 "$OBJ" >/dev/null || fail "ktload rounds failed"
}

# The program of info.TAG, register and unregister, in a perf_records table.
expect_prog() { # info tsv what
	local id tag addr len
	read -r _ id _ tag <"$1"
	grep -q "^B	1	0	$id	$tag\$" "$2" || fail "$3: no PROG_LOAD id $id tag $tag"
	grep -q "^B	2	0	$id	$tag\$" "$2" || fail "$3: no PROG_UNLOAD id $id tag $tag"
	while read -r _ addr len _; do
		grep -q "^K	$addr	$len	1	0	bpf_prog_" "$2" || fail "$3: no register of $addr len $len"
		grep -q "^K	$addr	$len	1	1	bpf_prog_" "$2" || fail "$3: no unregister of $addr len $len"
	done < <(grep '^func ' "$1")
}

# data.size from the header of a perf.data file.
data_size() {
	od -An -t u8 -j 48 -N 8 "$1" | tr -d ' '
}

# KSYMBOL + BPF_EVENT + LOST counts of perf's own summary.
perf_count() { # file
	perf report -D -i "$1" 2>/dev/null |
		awk '/^ *(KSYMBOL|BPF_EVENT|LOST) events:/ {n += $3} END {print n + 0}'
}

# --- file mode, beside perf record ------------------------------------------
# Live records only: snapshot records (time 0) look like perf's synthesized
# ones, which perf_records leaves out (the VM test record_perf checks them).
"$KT" record -b native --no-snapshot -o "$T/k.data" 2>"$T/k.err" &
K=$!
wait_for "$T/k.err" '^ksymtap: ready: backend native' 30 || fail "not ready: $(cat "$T/k.err")"
# Opened after ksymtap: see docs/formats.md on the kernel's header.size bug.
# Started with its events off (-D -1) and enabled through its control fifo:
# its "ack" says they are on.  A fixed sleep of 2 s was not enough beside the
# VM guests of make test (perf's own file lacked the PROG_LOAD, 2026-12-06).
mkfifo "$T/perf.ctl" "$T/perf.ack"
perf record -q -D -1 --control "fifo:$T/perf.ctl,$T/perf.ack" -e dummy -a -o "$T/perf.data" \
	>/dev/null 2>"$T/perf.err" &
P=$!
exec 8<>"$T/perf.ack"
timeout 30 sh -c 'echo enable >"$1"' - "$T/perf.ctl"
read -r -t 30 -u 8 ack && [ "$ack" = ack ] || fail "perf record did not enable its events: $(cat "$T/perf.err")"
exec 8<&-
workload 1
sleep 0.5
kill -INT $P
wait $P
sleep 0.2
kill -INT $K
wait $K || fail "ksymtap record exited $? after SIGINT: $(cat "$T/k.err")"
cat "$T/k.err"
n=$(sed -n 's/^ksymtap: wrote \([0-9]*\) records.*/\1/p' "$T/k.err")
[ -n "$n" ] || fail "no 'wrote N records' line"

perf script -i "$T/k.data" --show-bpf-events >"$T/script.txt" 2>"$T/script.err" ||
	fail "perf script failed: $(cat "$T/script.err")"
ns=$(grep -cE 'PERF_RECORD_(KSYMBOL|BPF_EVENT|LOST)' "$T/script.txt")
[ "$ns" = "$n" ] || fail "perf script lists $ns records, ksymtap wrote $n"
nd=$(perf_count "$T/k.data")
[ "$nd" = "$n" ] || fail "perf report -D counts $nd records, ksymtap wrote $n"
# After the data: the feature table and the three strings (docs/formats.md),
# which perf reads back.
end=$((256 + $(data_size "$T/k.data")))
[ "$(stat -c %s "$T/k.data")" -gt "$end" ] || fail "no feature sections after the data"
perf report --header-only -i "$T/k.data" 2>/dev/null | grep -q "^# os release : $(uname -r)\$" ||
	fail "perf reads no os release feature: $(perf report --header-only -i "$T/k.data" 2>&1 | head -5)"
perf report --header-only -i "$T/k.data" 2>/dev/null | grep -q "^# arch : $(uname -m)\$" ||
	fail "perf reads no arch feature: $(perf report --header-only -i "$T/k.data" 2>&1 | head -5)"
grep -q '^ *ktload .*PERF_RECORD_KSYMBOL' "$T/script.txt" || fail "perf script does not name ktload"

perf_records "$T/k.data" >"$T/ours.tsv"
perf_records "$T/perf.data" >"$T/ref.tsv"
[ "$(wc -l <"$T/ours.tsv")" = "$n" ] || fail "perf_records found $(wc -l <"$T/ours.tsv") of $n"
expect_prog "$T/info.1" "$T/ref.tsv" "perf record itself (the reference)"
expect_prog "$T/info.1" "$T/ours.tsv" "ksymtap's file"
match_records "$T/ref.tsv" "$T/ours.tsv" || fail "records perf recorded are missing from ksymtap's file"
echo "# file: $n records, $(wc -l <"$T/ref.tsv") in perf's own file, all found"

# File order is time order: perf report -D's offsets against its timestamps.
perf report -D -i "$T/k.data" 2>/dev/null |
	awk '$3 ~ /^0x/ && $5 ~ /^PERF_RECORD_(KSYMBOL|BPF_EVENT|COMM)/ {print $3, $2}' >"$T/order.txt"
[ "$(wc -l <"$T/order.txt")" -ge "$n" ] || fail "perf report -D gave $(wc -l <"$T/order.txt") timed records"
prev=-1
while read -r off time; do
	printf '%d %s\n' "$off" "$time"
done <"$T/order.txt" | sort -n | while read -r off time; do
	[ "$time" -ge "$prev" ] || { echo "out of order at offset $off: $time < $prev"; exit 1; }
	prev=$time
done || fail "records are not in time order in the file"

# --- pipe mode through perf script -i - --------------------------------------
(
	"$KT" record -b native -o - -d 8 2>"$T/p.err" | tee "$T/pipe.data" |
		perf script -i - --show-bpf-events >"$T/pipe.txt" 2>"$T/pipe.perr"
	echo "${PIPESTATUS[*]}" >"$T/p.rc"
) &
PL=$!
wait_for "$T/p.err" '^ksymtap: ready' 30 || fail "pipe: not ready: $(cat "$T/p.err")"
workload 2
wait $PL
[ "$(cat "$T/p.rc")" = "0 0 0" ] || fail "pipe: exit statuses $(cat "$T/p.rc"): $(cat "$T/p.err" "$T/pipe.perr")"
read -r _ id _ tag <"$T/info.2"
while read -r _ addr len _; do
	for fl in 0x0 0x1; do
		grep -q "ktload .*PERF_RECORD_KSYMBOL addr $addr len $len type 1 flags $fl " "$T/pipe.txt" ||
			fail "pipe: perf script lacks KSYMBOL $addr len $len flags $fl"
	done
done < <(grep '^func ' "$T/info.2")
grep -q "PERF_RECORD_BPF_EVENT type 1, flags 0, id $id\$" "$T/pipe.txt" || fail "pipe: no PROG_LOAD $id"
grep -q "PERF_RECORD_BPF_EVENT type 2, flags 0, id $id\$" "$T/pipe.txt" || fail "pipe: no PROG_UNLOAD $id"
np=$(perf report -D -i - <"$T/pipe.data" 2>/dev/null |
	awk '/^ *(KSYMBOL|BPF_EVENT|LOST) events:/ {n += $3} END {print n + 0}')
nw=$(sed -n 's/^ksymtap: wrote \([0-9]*\) records.*/\1/p' "$T/p.err")
[ "$np" = "$nw" ] || fail "pipe: perf report -D -i - counts $np, ksymtap wrote $nw"
echo "# pipe: $nw records through perf script -i - and perf report -D -i -"

# --- CMD mode -----------------------------------------------------------------
"$KT" record -b native -o "$T/c.data" -- "$B/tests/vm/ktload" -t 50 "$OBJ" >"$T/c.out" 2>"$T/c.err" ||
	fail "record -- CMD exited $?: $(cat "$T/c.err")"
id=$(awk '/^loaded kt_sock_main/ {print $4}' "$T/c.out")
perf script -i "$T/c.data" --show-bpf-events 2>/dev/null | grep -q "ktload .*BPF_EVENT type 2, flags 0, id $id\$" ||
	fail "record -- CMD: no unload of the CMD's program $id"
"$KT" record -b native -o "$T/c.data" -- sh -c 'exit 3' 2>/dev/null
[ $? = 3 ] || fail "record -- CMD does not pass CMD's exit status on"
"$KT" record -b native -o "$T/c.data" -- /nonexistent/cmd 2>"$T/c.err"
[ $? = 1 ] && grep -q "cannot run '/nonexistent/cmd'" "$T/c.err" || fail "unrunnable CMD: $(cat "$T/c.err")"

# --- usage errors ------------------------------------------------------------
"$KT" record 2>"$T/u.err"
[ $? = 2 ] && [ "$(wc -l <"$T/u.err")" = 1 ] || fail "missing -o: not one line and exit 2: $(cat "$T/u.err")"
"$KT" record -o "$T/u.data" --bogus 2>"$T/u.err"
[ $? = 2 ] || fail "unknown option: not exit 2"

# --- full disk: a tmpfs with one free page --------------------------------------
MNT=$T/mnt
mkdir "$MNT"
if mount -t tmpfs -o size=8k tmpfs "$MNT" 2>/dev/null; then
	dd if=/dev/zero of="$MNT/fill" bs=4096 count=1 2>/dev/null
	"$KT" record -b native -o "$MNT/k.data" 2>"$T/f.err" &
	K=$!
	wait_for "$T/f.err" '^ksymtap: ready' 30 || fail "full disk: not ready"
	for i in $(seq 40); do
		kill -0 $K 2>/dev/null || break
		"$B/tests/vm/ktload" "$OBJ" >/dev/null
	done
	wait $K
	rc=$?
	cat "$T/f.err"
	[ $rc = 1 ] || fail "full disk: exit $rc, expected 1"
	[ "$(grep -vc '^ksymtap: ready' "$T/f.err")" = 1 ] || fail "full disk: not exactly one line"
	grep -q 'error: writing .*: No space left on device; it holds the [0-9]* records' "$T/f.err" ||
		fail "full disk: the line does not name the problem"
	held=$(sed -n 's/.*it holds the \([0-9]*\) records.*/\1/p' "$T/f.err")
	[ "$(stat -c %s "$MNT/k.data")" = $((256 + $(data_size "$MNT/k.data"))) ] ||
		fail "full disk: file is not exactly header + data.size"
	nf=$(perf_count "$MNT/k.data")
	[ "$nf" = "$held" ] || fail "full disk: perf reads $nf records, the message says $held"
	perf script -i "$MNT/k.data" --show-bpf-events >/dev/null 2>&1 || fail "full disk: perf script fails"
	echo "# full disk: $held whole records kept, perf reads them all"
	umount "$MNT" && MNT=
else
	echo "# full disk: cannot mount a tmpfs here; covered by the unit test (RLIMIT_FSIZE)"
fi

# --- the reader goes away ------------------------------------------------------
(
	"$KT" record -b native -o - 2>"$T/cp.err" | head -c 200 >/dev/null
	echo "${PIPESTATUS[0]}" >"$T/cp.rc"
) &
wait_for "$T/cp.err" '^ksymtap: ready' 30 || fail "closed pipe: not ready"
for i in $(seq 40); do
	[ -s "$T/cp.rc" ] && break
	"$B/tests/vm/ktload" "$OBJ" >/dev/null
done
wait
cat "$T/cp.err"
[ "$(cat "$T/cp.rc")" = 1 ] || fail "closed pipe: exit $(cat "$T/cp.rc"), expected 1"
[ "$(grep -vc '^ksymtap: ready' "$T/cp.err")" = 1 ] || fail "closed pipe: not exactly one line"
grep -q 'error: writing stdout: Broken pipe (after [0-9]* records)' "$T/cp.err" || fail "closed pipe: the line does not name it"
echo "# closed pipe: one line, exit 1"
