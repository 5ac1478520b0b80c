# Every command, made to fail at run time as users meet it (a missing
# directory, a full disk, a closed reader, a dead socket, a kernel that
# refuses tracing programs): exactly one line "ksymtap: error: ..." on stderr,
# naming what failed, and the documented exit status (README: 1; compare 2).
. "$(dirname "$0")/lib.sh"
need_root
tmpdir

# fails STATUS PATTERN -- ARGS...: exit status, one error line matching PATTERN
# (stdout to $OUT if set)
fails() {
	local want=$1 pat=$2 rc n
	shift 3
	timeout -s KILL 60 "$KT" "$@" >"${OUT:-$T/out}" 2>"$T/err" </dev/null
	rc=$?
	n=$(grep -c 'error' "$T/err")
	[ "$rc" = "$want" ] || fail "ksymtap $*: exit $rc, expected $want: $(cat "$T/err")"
	[ "$n" = 1 ] || fail "ksymtap $*: $n error lines, expected 1: $(cat "$T/err")"
	grep -q '^ksymtap: error: ' "$T/err" || fail "ksymtap $*: no 'ksymtap: error:' line: $(cat "$T/err")"
	grep -q -- "$pat" "$T/err" || fail "ksymtap $*: stderr '$(cat "$T/err")' lacks '$pat'"
}

# A small file system, full.
mkdir "$T/full"
mount -t tmpfs -o size=64k tmpfs "$T/full" || skip "cannot mount a tmpfs"
trap 'umount "$T/full" 2>/dev/null; rm -rf "$T"' EXIT
dd if=/dev/zero of="$T/full/filler" bs=4k count=64 2>/dev/null

fails 1 "--kallsyms /nonexistent/d/k: No such file or directory" -- \
	stream -b native -d 0.3 --kallsyms /nonexistent/d/k
fails 1 "--kallsyms /nonexistent/k: No such file or directory" -- snapshot --kallsyms /nonexistent/k
# Full disks need something to write: this host's own BPF programs.
if [ "$("$KT" snapshot 2>/dev/null | wc -l)" -gt 0 ]; then
	OUT=/dev/full fails 1 "writing to stdout: No space left on device" -- snapshot
	OUT=/dev/full fails 1 "writing to stdout: No space left on device" -- stream -b native -d 0.3
	fails 1 "--kallsyms $T/full/k: No space left on device" -- snapshot --kallsyms "$T/full/k"
else
	echo "# no BPF program on this host: snapshot's full-disk cases left out"
fi
fails 1 "cannot create /nonexistent/x.data: No such file or directory" -- \
	record -b native -d 0.2 -o /nonexistent/x.data
fails 1 "writing $T/full/r.data: No space left on device" -- record -b native -d 0.5 -o "$T/full/r.data"
fails 1 "writing /dev/full: No space left on device" -- record -b native -d 0.2 -o /dev/full
fails 1 "/nonexistent/s: No such file or directory" -- serve -b native -d 0.2 -s /nonexistent/s
mkdir "$T/dir.sock"
fails 1 "$T/dir.sock: exists and is not a socket" -- serve -b native -d 0.2 -s "$T/dir.sock"
# A read-only file system under each output.
mkdir "$T/ro"
mount -t tmpfs -o ro tmpfs "$T/ro" || skip "cannot mount a read-only tmpfs"
trap 'umount "$T/full" "$T/ro" 2>/dev/null; rm -rf "$T"' EXIT
fails 1 "--kallsyms $T/ro/k: Read-only file system" -- snapshot --kallsyms "$T/ro/k"
fails 1 "--kallsyms $T/ro/k: Read-only file system" -- stream -b native -d 0.3 --kallsyms "$T/ro/k"
fails 1 "cannot create $T/ro/k.data: Read-only file system" -- record -b native -d 0.2 -o "$T/ro/k.data"
fails 1 "$T/ro/s: Read-only file system" -- serve -b native -d 0.2 -s "$T/ro/s"
# --metrics-file may not stop the stream: one warning, serve goes on, exit 0.
"$KT" serve -b native -d 1 -s "$T/m.sock" --metrics-file "$T/ro/m.prom" --metrics-interval 0.2 \
	>/dev/null 2>"$T/err" || fail "serve with a read-only --metrics-file exited $?"
[ "$(grep -c 'metrics-file' "$T/err")" = 1 ] && grep -q "$T/ro/m.prom: Read-only file system (will keep trying)" "$T/err" ||
	fail "read-only --metrics-file: $(cat "$T/err")"
# A socket path longer than sun_path holds (107 bytes and a NUL).
long=$T/$(printf 's%.0s' $(seq 1 110))
fails 1 "File name too long" -- serve -b native -d 0.2 -s "$long"
fails 1 "File name too long" -- tail -s "$long"
# kptr_restrict hiding addresses: snapshot still runs, and says why it lists less.
if [ -w /proc/sys/kernel/kptr_restrict ]; then
	kr=$(cat /proc/sys/kernel/kptr_restrict)
	echo 2 >/proc/sys/kernel/kptr_restrict
	"$KT" snapshot >/dev/null 2>"$T/err"
	rc=$?
	echo "$kr" >/proc/sys/kernel/kptr_restrict
	[ $rc = 0 ] || fail "snapshot under kptr_restrict=2 exited $rc: $(cat "$T/err")"
	grep -q 'addresses hidden (kernel.kptr_restrict, no CAP_SYSLOG)' "$T/err" ||
		fail "kptr_restrict=2: $(cat "$T/err")"
fi

# A socket nobody listens on any more.
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()" \
	"$T/dead.sock" 2>/dev/null || skip "no python3 to make a dead socket"
fails 1 "$T/dead.sock: Connection refused" -- tail -s "$T/dead.sock"
# The record-file readers: a missing file, perf's own file, a truncated one;
# inject's output in a full file system (nothing half-written is left).
"$KT" record -b native -d 0.3 -o "$T/k.data" 2>/dev/null || fail "record for the readers"
head -c 300 "$T/k.data" >"$T/short.data"
fails 1 "/nonexistent/k.data: No such file or directory" -- resolve -i /nonexistent/k.data 0
fails 1 "$T/short.data: truncated" -- kallsyms -i "$T/short.data"
fails 1 "$T/short.data: truncated" -- symbolize -i "$T/short.data"
if command -v perf >/dev/null && perf record -q -e dummy -a -o "$T/p.data" -- sleep 0.1 2>/dev/null; then
	fails 1 "not a ksymtap record file" -- resolve -i "$T/p.data" 0
	rm -f "$T"/full/filler
	dd if=/dev/zero of="$T/full/filler" bs=4k count=64 2>/dev/null
	# --force: the two files were made apart, and programs other processes load
	# and unload meanwhile may leave them no symbol in common; this is about
	# the full file system, not the boot check.
	fails 1 "No space left on device" -- inject --force -i "$T/p.data" -o "$T/full/o.data" --symbols "$T/k.data"
	[ -z "$(ls "$T"/full/o.data* 2>/dev/null)" ] || fail "inject left a file on the full file system"
fi
# This machine's kernel refuses tracing programs (docs/kernel-facts.md):
# compare cannot run its bpf side, which is trouble (2), as diff(1) has it.
if ! "$KT" -b bpf -d 0.1 >/dev/null 2>&1; then
	fails 2 "bpf backend: " -- compare -d 0.2
fi
exit 0
