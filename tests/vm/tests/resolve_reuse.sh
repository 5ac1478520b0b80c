# Issue 14: what held an address at a time, from a record file and from a
# running daemon (ksymtap serve's query, -s SOCKET).  Program A
# lives and dies, program B (the same size) is loaded after it and may take
# (part of) its address; the kernel's own records (perf record -e dummy -a)
# say when each lived and what each was called (the name /proc/kallsyms
# shows).  `ksymtap resolve` at a time in A's life names A, between them
# answers unknown, in B's life names B (also at A's old address, if B took
# it); `ksymtap kallsyms` at those times lists each; `ksymtap symbolize`
# names their addresses in dmesg-style lines stamped with those times.  The
# same questions go to the daemon, which saw it all live, while it runs.
# vm-timeout: 400
. /ksymtap/lib.sh

kt_start serve.out serve -s "$PWD/q.sock" --history 1000
KT_SERVE=$KT_PID
kt_start rec.out record -o k.data
KT_REC=$KT_PID
perf_start native.data
ktload -t 3000 $BIN/reuse_a.bpf.o >a.out 2>&1 &
LA=$!
wait_for a.out '^loaded|ktload:' 30 || fail "reuse_a: $(cat a.out)"
wait $LA
sleep 1.5 # the image is freed after an RCU grace period
ktload -t 3000 $BIN/reuse_b.bpf.o >b.out 2>&1 &
LB=$!
wait_for b.out '^loaded|ktload:' 30 || fail "reuse_b: $(cat b.out)"
wait $LB
sleep 1.5
perf_stop
KT_PID=$KT_REC
kt_stop

# The kernel's records: "time addr len flags name" of A and B.
perf script -i native.data --show-bpf-events 2>/dev/null | awk '
/PERF_RECORD_KSYMBOL/ && /kt_reuse_/ {
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^[0-9]+\.[0-9]+:$/) t = substr($i, 1, length($i) - 1)
		if ($i == "addr") a = $(i + 1)
		if ($i == "len") l = $(i + 1)
		if ($i == "flags") f = $(i + 1)
		if ($i == "name") n = $(i + 1)
	}
	print t, a, l, f, n
}' >kernel.txt
cat kernel.txt
[ "$(grep -c . kernel.txt)" = 4 ] || fail "expected 4 native records of A and B"
# Seconds with 6 decimals to ns, and the midpoint of two times.
ns() { echo "$1" | awk '{ split($1, p, "."); printf "%d%s\n", p[1], substr(p[2] "000000000", 1, 9) }'; }
mid() { awk -v a="$(ns "$1")" -v b="$(ns "$2")" 'BEGIN { printf "%.0f\n", (a + b) / 2 }'; }
aborn=$(awk '/kt_reuse_a/ && $4 == "0x0" {print $1}' kernel.txt)
adie=$(awk '/kt_reuse_a/ && $4 == "0x1" {print $1}' kernel.txt)
bborn=$(awk '/kt_reuse_b/ && $4 == "0x0" {print $1}' kernel.txt)
bdie=$(awk '/kt_reuse_b/ && $4 == "0x1" {print $1}' kernel.txt)
aaddr=$(awk '/kt_reuse_a/ && $4 == "0x0" {print $2}' kernel.txt)
baddr=$(awk '/kt_reuse_b/ && $4 == "0x0" {print $2}' kernel.txt)
alen=$(awk '/kt_reuse_a/ && $4 == "0x0" {print $3}' kernel.txt)
aname=$(awk '/kt_reuse_a/ && $4 == "0x0" {print $5}' kernel.txt)
bname=$(awk '/kt_reuse_b/ && $4 == "0x0" {print $5}' kernel.txt)
# Their /proc/kallsyms lines (kernel/kallsyms.c s_show, [bpf] entries).
printf '%s t %s\t[bpf]\n' "$aaddr" "$aname" >a.kallsyms
printf '%s t %s\t[bpf]\n' "$baddr" "$bname" >b.kallsyms
ta=$(mid "$aborn" "$adie") tgap=$(mid "$adie" "$bborn") tb=$(mid "$bborn" "$bdie")
blen=$(awk '/kt_reuse_b/ && $4 == "0x0" {print $3}' kernel.txt)
# Where B took (part of) A's range, A's first byte inside B must be B's then.
reused=
if [ $((0x$baddr)) -le $((0x$aaddr)) ] && [ $((0x$aaddr)) -lt $((0x$baddr + blen)) ]; then
	reused=$aaddr
	note "B [$baddr, +$blen) took A's address $aaddr"
else
	note "B at $baddr, A was at $aaddr: this kernel did not reuse it"
fi

secs() { awk -v n="$1" 'BEGIN { printf "%d.%06d\n", n / 1e9, (n % 1e9) / 1e3 }'; }
last=$(printf '%x' $((0x$aaddr + alen - 1)))

check() { # -i FILE | -s SOCKET
# Each address at each time, and one inside A (its last byte).
note "--- from ksymtap $*"
ksymtap resolve "$@" --at "$ta" "$aaddr" "$last" >r.a || fail "resolve at $ta: $(cat r.a)"
ksymtap resolve "$@" --at "$tgap" "$aaddr" "$baddr" >r.gap || fail "resolve at $tgap"
ksymtap resolve "$@" --at "$tb" "$baddr" >r.b || fail "resolve at $tb"
cat r.a r.gap r.b
grep -q "^$aaddr $aname+0x0/0x$(printf %x "$alen") \[bpf\]$" r.a || fail "in A's life: $(head -1 r.a), A is $aname"
grep -q "^$last $aname+0x$(printf %x $((alen - 1)))/" r.a || fail "A's last byte: $(tail -1 r.a)"
[ "$(grep -c '\[unknown\]$' r.gap)" = 2 ] || fail "between them: $(cat r.gap)"
grep -q "^$baddr $bname+0x0/" r.b || fail "in B's life: $(cat r.b), B is $bname"
if [ -n "$reused" ]; then
	off=$(printf '%x' $((0x$aaddr - 0x$baddr)))
	ksymtap resolve "$@" --at "$tb" "$aaddr" >r.reuse
	cat r.reuse
	grep -q "^$aaddr $bname+0x$off/" r.reuse || fail "A's address in B's life: $(cat r.reuse), B is $bname"
fi
# From stdin, "ADDR TIME" lines, a bad line among them: answered, exit 1.
printf '%s %s\nnot-an-address\n%s %s\n' "$aaddr" "$ta" "$baddr" "$tb" |
	ksymtap resolve "$@" >r.in 2>r.err && fail "a bad line must give exit 1"
[ "$(grep -c . r.in)" = 2 ] && grep -q "$aname" r.in && grep -q "$bname" r.in ||
	fail "stdin lines: $(cat r.in)"
[ "$(grep -c 'ksymtap: error:' r.err)" = 1 ] || fail "bad line: $(cat r.err)"

# kallsyms of each moment: A's line, then B's, as /proc/kallsyms printed them.
ksymtap kallsyms "$@" --at "$ta" >k.a
ksymtap kallsyms "$@" --at "$tb" >k.b
grep -qxF "$(cat a.kallsyms)" k.a || fail "kallsyms at A's time lacks '$(cat a.kallsyms)'"
grep -q kt_reuse_b k.a && fail "kallsyms at A's time lists B"
grep -qxF "$(cat b.kallsyms)" k.b || fail "kallsyms at B's time lacks '$(cat b.kallsyms)'"
grep -q kt_reuse_a k.b && fail "kallsyms at B's time lists A"

# symbolize: dmesg lines stamped with each time ([seconds] is printk's clock,
# perf's), the addresses of programs long gone.
printf '[%s] WARNING: at [<%s>] x\n[%s]  ? 0x%s\n' "$(secs "$ta")" "$aaddr" "$(secs "$tb")" "$baddr" |
	ksymtap symbolize "$@" >s.out
cat s.out
grep -q "\[<$aaddr>\] $aname+0x0/" s.out || fail "symbolize: A's frame"
grep -q "0x$baddr $bname+0x0/" s.out || fail "symbolize: B's frame"
}

check -i k.data
check -s "$PWD/q.sock"
# Now (the default): A and B are gone.  What holds their addresses now, if
# anything (the trampolines of record's hooks are remade when it stops), is
# what /proc/kallsyms lists there.
ksymtap resolve -s "$PWD/q.sock" "$aaddr" "$baddr" >r.now || fail "resolve now: $(cat r.now)"
cat r.now
grep -q kt_reuse_ r.now && fail "A or B named now: $(cat r.now)"
while read -r a sym; do
	[ "$sym" = "[unknown]" ] && continue
	n=${sym%%+*} off=${sym#*+}
	off=${off%%/*}
	start=$(printf '%016x' $((0x$a - off)))
	grep -q "^$start [tT] $n\b" /proc/kallsyms || fail "now: $a is $sym, not in /proc/kallsyms at $start"
done <r.now
KT_PID=$KT_SERVE
kt_stop
# A daemon gone: one line, exit 1.
ksymtap resolve -s "$PWD/q.sock" "$aaddr" >r.dead 2>&1 && fail "resolve on a dead socket exited 0"
[ "$(grep -c . r.dead)" = 1 ] && grep -q 'ksymtap serve' r.dead || fail "dead socket: $(cat r.dead)"
