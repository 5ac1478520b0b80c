# Bad input gets one line on stderr naming the problem and a non-zero exit
# (2 for usage); every command's --help teaches and exits 0.
. "$(dirname "$0")/lib.sh"
tmpdir

# expect STATUS PATTERN -- ARGS...: exit status and a one-line stderr matching PATTERN
expect() {
	local want=$1 pat=$2 rc lines
	shift 3
	"$KT" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	lines=$(grep -vc '^Try ' "$T/err")
	[ "$rc" = "$want" ] || fail "ksymtap $*: exit $rc, expected $want: $(cat "$T/err")"
	[ "$lines" = 1 ] || fail "ksymtap $*: $lines lines on stderr, expected 1: $(cat "$T/err")"
	grep -q -- "$pat" "$T/err" || fail "ksymtap $*: stderr '$(cat "$T/err")' lacks '$pat'"
	[ ! -s "$T/out" ] || fail "ksymtap $*: wrote to stdout: $(head -c 200 "$T/out")"
}

expect 2 "--format: 'xml'" -- --format xml
expect 2 "--ringbuf-size: '3'" -- --ringbuf-size 3
expect 2 "--ringbuf-size: '12K'" -- stream --ringbuf-size 12K
expect 2 "--disable-hook: no hook named 'nosuch'" -- --disable-hook nosuch
expect 2 "--backend: 'ebpf'" -- -b ebpf
expect 2 "--duration: 'soon'" -- -d soon
expect 2 "unknown command 'bogus'" -- bogus
expect 2 "unexpected argument 'extra'" -- stream extra
expect 2 "compare always runs both backends" -- compare -b native
expect 2 "-o" -- record
expect 2 "socket" -- serve
expect 1 "/nonexistent/ksymtap.sock" -- tail --socket /nonexistent/ksymtap.sock
expect 2 "--history: 'many'" -- serve -s "$T/s" --history many
expect 2 "--history-age: '-1'" -- serve -s "$T/s" --history-age -1
expect 2 "one of -i FILE" -- resolve ffffffffc0000000
expect 2 "one of -i FILE" -- kallsyms -i "$T/x" -s "$T/s"
expect 1 "is 'ksymtap serve' running there" -- resolve -s /nonexistent/ksymtap.sock ffffffffc0000000
expect 1 "is 'ksymtap serve' running there" -- kallsyms -s /nonexistent/ksymtap.sock
expect 1 "is 'ksymtap serve' running there" -- symbolize -s /nonexistent/ksymtap.sock
expect 2 "--at 'later'" -- resolve -s /nonexistent/ksymtap.sock --at later

for c in "" stream snapshot record compare serve tail; do
	"$KT" $c --help >"$T/out" 2>"$T/err" || fail "ksymtap $c --help exited $?"
	grep -q '^Usage: ksymtap' "$T/out" || fail "ksymtap $c --help: no usage on stdout"
	[ ! -s "$T/err" ] || fail "ksymtap $c --help wrote to stderr"
done

# On a kernel that refuses tracing programs, -b bpf says so in one line.
if [ "$(id -u)" = 0 ] && ! "$KT" -b bpf -d 0.1 >/dev/null 2>"$T/err"; then
	grep -q 'tracing programs refused by this kernel (lockdown or LSM?)' "$T/err" ||
		grep -q 'kernel has no BTF' "$T/err" || fail "-b bpf failure unexplained: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" = 1 ] || fail "-b bpf: more than one line: $(cat "$T/err")"
fi
