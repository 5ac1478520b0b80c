# ksymtap record (bpf backend) writes a perf.data file and a pipe stream that
# the real perf reads, and both list every record the kernel's own
# `perf record -e dummy -a` recorded over the same workload, in time order, on
# perf's clock.
. /ksymtap/lib.sh
need_bpf_backend

# KSYMBOL + BPF_EVENT + LOST counts of perf's own summary (stdin for "-").
perf_count() { # file
	perf report -D -i "$1" 2>/dev/null |
		awk '/^ *(KSYMBOL|BPF_EVENT|LOST) events:/ {n += $3} END {print n + 0}'
}

# perf report -D prints each record as "cpu time 0xOFFSET [size]: TYPE"; in
# file order (by offset) the times must not go back.
check_time_order() { # file
	perf report -D -i "$1" 2>/dev/null | awk '
	function hex(s,   v, i) {
		sub("^0x", "", s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	$3 ~ /^0x/ && $5 ~ /^PERF_RECORD_(KSYMBOL|BPF_EVENT|COMM)/ { print hex($3), $2 }' |
		sort -n | awk '
	{ n++; if ($2 < prev) { print "out of order: offset " $1 " time " $2 " < " prev; bad++ } prev = $2 }
	END { print "# " n " records in time order: " (bad ? "no" : "yes"); exit bad > 0 || n == 0 }'
}

# Time of the BPF_EVENT of prog ID, type T, in a perf.data file.
bpf_event_time() { # file type id
	perf report -D -i "$1" 2>/dev/null |
		awk -v t="$2" -v id="$3" '$5 == "PERF_RECORD_BPF_EVENT" && $7 == t "," && $11 == id { print $2; exit }'
}

kt_start rec.out record -o k.data -v
grep -q '^ksymtap: ready: backend bpf' rec.out.err || fail "not the bpf backend: $(grep ready rec.out.err)"
FILE_PID=$KT_PID

# The pipe format, through perf script as it happens (and kept for perf report -D -i -).
mkfifo pfifo
tee pipe.data <pfifo | perf script -i - --show-bpf-events >pipe.txt 2>pipe.perr &
READER=$!
ksymtap record -o - >pfifo 2>pipe.err &
PIPE_PID=$!
wait_for pipe.err '^ksymtap: ready' 60 || fail "pipe instance not ready: $(cat pipe.err)"

perf_start native.data
run_workload
perf_stop
sleep 0.5

kill -INT $PIPE_PID
wait $PIPE_PID || fail "record -o - exited $? after SIGINT: $(cat pipe.err)"
wait $READER || fail "perf script -i - failed: $(cat pipe.perr)"
KT_PID=$FILE_PID
kt_stop
grep -v '^ksymtap: \(hook\|  \)' rec.out.err | tail -n 3
cat pipe.err

n_file=$(sed -n 's/^ksymtap: wrote \([0-9]*\) records.*/\1/p' rec.out.err)
n_pipe=$(sed -n 's/^ksymtap: wrote \([0-9]*\) records.*/\1/p' pipe.err)
[ -n "$n_file" ] && [ -n "$n_pipe" ] || fail "no 'wrote N records' lines"

# perf reads both, and counts exactly what ksymtap wrote.
perf script -i k.data --show-bpf-events >script.txt 2>script.err || fail "perf script: $(cat script.err)"
[ "$(grep -cE 'PERF_RECORD_(KSYMBOL|BPF_EVENT|LOST)' script.txt)" = "$n_file" ] ||
	fail "perf script lists $(grep -cE 'PERF_RECORD_(KSYMBOL|BPF_EVENT|LOST)' script.txt), ksymtap wrote $n_file"
[ "$(perf_count k.data)" = "$n_file" ] || fail "perf report -D counts $(perf_count k.data), ksymtap wrote $n_file"
[ "$(grep -cE 'PERF_RECORD_(KSYMBOL|BPF_EVENT|LOST)' pipe.txt)" = "$n_pipe" ] ||
	fail "perf script -i - lists $(grep -cE 'PERF_RECORD_(KSYMBOL|BPF_EVENT|LOST)' pipe.txt), ksymtap wrote $n_pipe"
[ "$(perf_count - <pipe.data)" = "$n_pipe" ] || fail "perf report -D -i - counts $(perf_count - <pipe.data), ksymtap wrote $n_pipe"

# Every record of the kernel's own perf record is in both.
# perf_records leaves out perf's start-up synthesis (time 0): those describe
# programs loaded before perf started, which the kernel never sent.
perf_records native.data >native.tsv
perf_records k.data >ours.tsv
perf_records - <pipe.data >pipe.tsv
[ -s native.tsv ] || fail "perf record recorded nothing"
note "native $(wc -l <native.tsv), file $(wc -l <ours.tsv), pipe $(wc -l <pipe.tsv) records"
match_records native.tsv ours.tsv || fail "file: records of perf record missing"
match_records native.tsv pipe.tsv || fail "pipe: records of perf record missing"
for f in native.tsv ours.tsv pipe.tsv; do
	! ftrace_tramps || grep -q '^K	.*	2	0	ftrace_trampoline$' $f ||
		fail "no ftrace_trampoline record in $f"
done

check_time_order k.data || fail "file not in time order"
check_time_order - <pipe.data || fail "pipe not in time order"

# Same clock as perf: a PROG_LOAD both recorded, stamped in both files.
id=$(awk -F '\t' '$1 == "B" && $2 == 1 { print $4; exit }' native.tsv)
tn=$(bpf_event_time native.data 1 "$id")
to=$(bpf_event_time k.data 1 "$id")
[ -n "$tn" ] && [ -n "$to" ] || fail "PROG_LOAD of $id: native time '$tn', ours '$to'"
d=$(awk -v a="$tn" -v b="$to" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "%d", d }')
note "PROG_LOAD $id: native $tn, ksymtap $to: $d ns apart"
[ "$d" -lt 20000000 ] || fail "ksymtap's time is $d ns off perf's"
