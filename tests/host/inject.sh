# ksymtap inject on this host (native records; the VM test inject_frames checks
# frames against /proc/kallsyms): perf reads OUT as it reads IN, with the same
# samples and FILE's records added; pipe format in and out; and every bad
# input gets one error line, exit 1 and no OUT.
. "$(dirname "$0")/lib.sh"
need_root
command -v perf >/dev/null || skip "no perf"
tmpdir
cd "$T" || exit 1

"$KT" record -b native -o k.data 2>k.err &
KP=$!
wait_for k.err '^ksymtap: ready' 30 || fail "record: $(cat k.err)"
perf record -q -a -g -F 199 -o p.data -- sleep 0.5 >/dev/null 2>p.err || fail "perf record: $(cat p.err)"
perf record -q -a -F 199 -o - -- sleep 0.3 >p.pipe 2>/dev/null || fail "perf record -o -"
kill -INT $KP
wait $KP || fail "record exited $?: $(cat k.err)"

"$KT" inject -i p.data -o o.data --symbols k.data 2>inject.err || fail "inject: $(cat inject.err)"
grep -q '^ksymtap: injected [0-9]* records' inject.err || fail "no summary: $(cat inject.err)"
for f in p o; do
	perf script -i $f.data --show-bpf-events >$f.txt 2>$f.serr || fail "perf script $f.data: $(cat $f.serr)"
	perf report -D -i $f.data 2>/dev/null | awk '/^ *SAMPLE events:/ {print $3}' >$f.samples
	grep -iE 'warn|error|below|out of order' $f.serr | sort -u >$f.warn
done
[ -z "$(grep -vxFf p.warn o.warn)" ] || fail "perf warns about OUT only: $(grep -vxFf p.warn o.warn)"
cmp -s p.samples o.samples || fail "samples: IN $(cat p.samples), OUT $(cat o.samples)"
# What ksymtap recorded is in OUT: every KSYMBOL of FILE, by address and name.
perf script -i k.data --show-bpf-events 2>/dev/null |
	awk '/PERF_RECORD_KSYMBOL/ && $0 ~ /flags 0x0/ {print $(NF - 8), $NF}' | sort -u >k.syms
awk '/PERF_RECORD_KSYMBOL/ && $0 ~ /flags 0x0/ {print $(NF - 8), $NF}' o.txt | sort -u >o.syms
[ -s k.syms ] || echo "# no dynamic symbol on this host: only the file format is checked"
missing=$(grep -vxFf o.syms k.syms | head -3)
[ -z "$missing" ] || fail "FILE's symbols missing from OUT: $missing"
# OUT is IN plus records: its feature sections are still read.
perf report --header-only -i o.data 2>/dev/null | grep -q '^# hostname' || fail "OUT lost its features"

# The pipe format, in and out.
"$KT" inject -i - -o - --symbols k.data <p.pipe >o.pipe 2>pinj.err || fail "inject -i - -o -: $(cat pinj.err)"
perf script -i - --show-bpf-events <o.pipe >o.ptxt 2>o.pserr || fail "perf script -i - on OUT: $(cat o.pserr)"
[ "$(grep -c PERF_RECORD_KSYMBOL o.ptxt)" -ge "$(wc -l <k.syms)" ] || fail "pipe OUT lacks FILE's symbols"

# Bad input: one line, exit 1, no OUT.
bad() { # pattern -- args...
	local pat=$1 rc
	shift 2
	rm -f out.data
	"$KT" inject "$@" >/dev/null 2>bad.err <"${STDIN:-/dev/null}"
	rc=$?
	[ "$rc" = 1 ] || fail "inject $*: exit $rc, expected 1: $(cat bad.err)"
	[ "$(wc -l <bad.err)" = 1 ] || fail "inject $*: $(wc -l <bad.err) lines: $(cat bad.err)"
	grep -q "^ksymtap: error: .*$pat" bad.err || fail "inject $*: '$(cat bad.err)' lacks '$pat'"
	[ ! -e out.data ] || fail "inject $*: left out.data behind"
	[ -z "$(ls out.data.* 2>/dev/null)" ] || fail "inject $*: left a temporary file"
}
head -c 3000 p.data >trunc.data
bad "truncated" -- -i trunc.data -o out.data --symbols k.data
head -c 200 p.data >short.data
bad "truncated\|corrupt" -- -i short.data -o out.data --symbols k.data
head -c 4096 /dev/urandom >junk.data
bad "not a perf.data file" -- -i junk.data -o out.data --symbols k.data
bad "pipe format" -- -i p.pipe -o out.data --symbols k.data
STDIN=p.data bad "file format" -- -i - -o out.data --symbols k.data
bad "No such file" -- -i nonexistent.data -o out.data --symbols k.data
bad "not a ksymtap record file" -- -i p.data -o out.data --symbols p.data
head -c 400 k.data >ktrunc.data
bad "truncated" -- -i p.data -o out.data --symbols ktrunc.data
# A newer perf: a feature this ksymtap does not know (bit 40 of
# adds_features, byte 72 + 5 of the header).
cp p.data new.data
printf '\001' | dd of=new.data bs=1 seek=77 conv=notrunc 2>/dev/null
bad "newer perf" -- -i new.data -o out.data --symbols k.data
# Another machine: FILE's hostname feature says so.
host=$(uname -n)
cp k.data other.data
pos=$(grep -boa "$host" other.data | tail -1 | cut -d: -f1)
[ -n "$pos" ] || fail "no hostname feature in the record file"
printf 'X' | dd of=other.data bs=1 seek="$pos" conv=notrunc 2>/dev/null
bad "another machine" -- -i p.data -o out.data --symbols other.data
"$KT" inject -i p.data -o out.data --symbols other.data --force 2>/dev/null || fail "--force refused"
# An unwritable OUT: nothing half-written.
bad "No such file" -- -i p.data -o /nonexistent/out.data --symbols k.data
echo "# inject: IN and pipe formats, $(wc -l <k.syms) symbols, 11 bad inputs"
