# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Helpers for the VM tests (busybox sh).  A test exits 0 to pass, 77 to skip
# (after printing "SKIP: reason"), anything else to fail.  Every check compares
# ksymtap's output with what the kernel itself says: native perf records read
# by the real perf, /proc/kallsyms, bpftool (bpf_prog_info).
BIN=/ksymtap/bin
KT_PID= PERF_PID=
# fail, skip, note, wait_for, wait_until (tests/lib.sh).
. /ksymtap/common.sh

# arm64 has no per-ops ftrace trampolines (docs/kernel-facts.md): the ftrace
# source is absent there, and the tests leave out what needs one.
ftrace_tramps() { [ "$(uname -m)" != aarch64 ]; }
# This kernel's version is at least MAJOR.MINOR.
kernel_at_least() { # major minor
	local r maj min
	r=$(uname -r)
	maj=${r%%.*}
	r=${r#*.}
	min=${r%%[!0-9]*}
	[ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -ge "$2" ]; }
}
# arm64 before 6.4 has no ftrace direct calls, so no fentry/fexit on kernel
# functions: no BPF trampolines, and ksymtap's hooks cannot attach (ENOTSUPP);
# ksymtap runs on native records there (docs/kernel-facts.md).
no_fentry() { [ "$(uname -m)" = aarch64 ] && ! kernel_at_least 6 4; }
# Tests of the BPF backend itself skip where it cannot run, saying why.
need_bpf_backend() {
	if no_fentry; then
		skip "arm64 before 6.4 has no fentry/fexit on kernel functions (no ftrace direct calls): the BPF backend cannot attach, ksymtap runs on native records"
	fi
}
# The fentry/fexit test object where BPF trampolines exist, else nothing.
fentry_obj() { no_fentry || echo "$BIN/fentry.bpf.o"; }

# Start ksymtap in the background: stdout to $1, stderr to $1.err.
kt_start() { # out args...
	local out=$1
	shift
	ksymtap "$@" >"$out" 2>"$out.err" &
	KT_PID=$!
	if ! wait_for "$out.err" '^ksymtap: ready' 60; then
		cat "$out.err"
		fail "ksymtap did not become ready"
	fi
}

# SIGINT, and check it exits 0 as documented.
kt_stop() {
	kill -INT "$KT_PID"
	wait "$KT_PID"
	local rc=$?
	KT_PID=
	[ $rc -eq 0 ] || fail "ksymtap exited $rc after SIGINT"
}

# The kernel's own records, as perf itself collects them.
perf_start() { # file
	# -B -N: no build-id processing at the end (slow under emulation, unused).
	perf record -q -B -N -e dummy -a -o "$1" >/dev/null 2>"$1.err" &
	PERF_PID=$!
	wait_for "$1" . 30 || true
	# perf writes the header before enabling the events; give it a moment.
	sleep 1.5
}

perf_stop() {
	kill -INT "$PERF_PID"
	wait "$PERF_PID" || true
	PERF_PID=
}

# Native records of a perf.data file as tab-separated fields:
#   K addr len type flags name   |   B type flags id tag
# read from `perf report -D` (the tag from the record's hex dump).
perf_records() { # file [synth=1 to keep synthesized records]
	perf report -D -i "$1" 2>/dev/null | awk -v synth="${2:-0}" '
	/^\. +[0-9a-f]+: / {
		# hex dump line ".  0010:  59 f4 a9 ..."
		for (i = 3; i <= NF && i < 19; i++) if ($i ~ /^[0-9a-f][0-9a-f]$/) hex[nhex++] = $i
		next
	}
	/raw event: size/ { nhex = 0 }
	# perf synthesizes records for what exists at its start with an all-zero
	# sample_id ("0 0 0x...: PERF_RECORD_..."): those are not kernel events.
	/PERF_RECORD_(KSYMBOL|BPF_EVENT)/ && $2 == "0" && synth == 0 { next }
	/PERF_RECORD_KSYMBOL/ {
		for (i = 1; i <= NF; i++) {
			if ($i == "addr") a = $(i + 1); if ($i == "len") l = $(i + 1)
			if ($i == "type") t = $(i + 1); if ($i == "flags") f = $(i + 1)
			if ($i == "name") n = $(i + 1)
		}
		printf "K\t%s\t%s\t%s\t%d\t%s\n", a, l, t, strtonum_(f), n
	}
	/PERF_RECORD_BPF_EVENT/ {
		for (i = 1; i <= NF; i++) {
			if ($i == "type") t = $(i + 1); if ($i == "flags") f = $(i + 1)
			if ($i == "id") id = $(i + 1)
		}
		sub(",", "", t); sub(",", "", f)
		tag = ""
		for (i = 16; i < 24; i++) tag = tag hex[i]
		printf "B\t%s\t%s\t%s\t%s\n", t, f, id, tag
	}
	function strtonum_(s,   v, i, c) {
		sub("^0x", "", s); v = 0
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
		return v
	}'
}

# ksymtap's JSON is read with jq (Debian's, in the initramfs), never by
# pattern: a field is what a JSON parser says it is.
json_field() { # json-text key  (strings without quotes; null: nothing)
	printf '%s\n' "$1" | jq -r --arg k "$2" '.[$k] // empty'
}
# The objects of a JSON-lines FILE for which the jq condition COND holds,
# one per line; a line cut short by a writer still running is left out.
json_sel() { # file cond
	jq -c "select($2)" "$1" 2>/dev/null
}
json_has() { # file cond
	[ -n "$(json_sel "$1" "$2" | head -n 1)" ]
}
json_count() { # file cond
	json_sel "$1" "$2" | wc -l
}
# Wait until FILE has an object for which COND holds, up to SEC seconds.
wait_json() { # file cond sec
	local i=0
	while [ $i -lt $(($3 * 10)) ]; do
		json_has "$1" "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# Wait until a daemon has passed on no record for 1.5 s, by its metrics file
# (--metrics-interval 0.5 or less), up to SEC seconds.  Attaching the hooks
# with their backup twins replaces each hook's trampoline image twice, and
# the kernel frees the old ones after an RCU tasks grace period (kworkers'
# unregisters up to a second after the ready line): a test whose clients must
# all see the same records connects them after that.
wait_quiet() { # metrics-file sec
	local i=0 same=0 cur prev=
	while [ $i -lt $(($2 * 2)) ]; do
		cur=$(awk '/^ksymtap_records_total/ { s += $2 } END { print s + 0 }' "$1" 2>/dev/null)
		if [ -n "$cur" ] && [ "$cur" = "$prev" ]; then
			same=$((same + 1))
			[ $same -ge 3 ] && return 0
		else
			same=0
		fi
		prev=$cur
		sleep 0.5
		i=$((i + 1))
	done
	return 1
}
# ksymtap JSON lines as the tab-separated fields perf_records prints.
kt_records() { # json-file
	jq -r 'if .kind == "ksymbol" then
			["K", (.addr | sub("^0x"; "")), .len, .ksym_type, .flags, .name]
		elif .kind == "bpf_event" then ["B", .type, .flags, .id, .tag]
		else empty end | @tsv' "$1"
}

# Every native record must be among ksymtap's, as often as natively.  len may
# differ only where docs/kernel-facts.md says the kernel reports a page for a
# BPF image that is smaller (6.12's packed trampolines): native len 4096,
# ksymtap's len below it.  Prints what is missing; returns non-zero if any.
match_records() { # native.tsv ours.tsv
	awk -F '\t' '
	FNR == NR { ours[key($0)]++; if ($1 == "K") olen[key($0)] = olen[key($0)] " " $3; next }
	{
		k = key($0)
		if (ours[k] > 0) {
			ours[k]--
			if ($1 == "K" && index(olen[k] " ", " " $3 " ") == 0) {
				if (!($3 == 4096 && $4 == 1 && $6 !~ /^bpf_prog_/)) {
					print "len differs: native " $0 " ours:" olen[k]; bad++
				} else explained++
			}
			matched++
		} else { print "missing: " $0; bad++ }
	}
	END { printf "# matched %d, explained len %d, problems %d\n", matched, explained, bad; exit bad > 0 }
	function key(l,   f) { split(l, f, "\t"); if (f[1] == "K") return f[1] "|" f[2] "|" f[4] "|" f[5] "|" f[6]; return l }
	' "$2" "$1"
}

# A kprobe NAME in vfs_read that needs an instruction slot, its offset on
# stdout.  One on the ftrace site (+0; +4 behind endbr64 with IBT on 6.12;
# arm64's patchable entry) uses ftrace instead: take the first instruction
# boundary past it that the kernel accepts (x86: past the 5-byte call
# __fentry__; arm64: 4-byte instructions).
kprobe_add() { # name
	local T=/sys/kernel/tracing o
	for o in 5 9 8 10 11 12 13 14 15 16 20 24; do
		if echo "p:$1 vfs_read+$o" >>$T/kprobe_events 2>/dev/null; then
			if grep -q 'vfs_read+'"$o"'.*FTRACE' /sys/kernel/debug/kprobes/list 2>/dev/null; then
				echo "-:$1" >>$T/kprobe_events
				continue
			fi
			echo "$o"
			return 0
		fi
	done
	return 1
}

# Create and destroy every source of dynamic symbols the issue names, one after
# the other.  Some exist once per boot (bpf_dispatcher_xdp, the first kprobe
# page): tests that need their birth must run before any other test makes them.
run_workload() {
	local T=/sys/kernel/tracing
	note "workload: program with subprograms"
	ktload $BIN/subprogs.bpf.o || fail "ktload subprogs"
	if no_fentry; then
		note "workload: no fentry/fexit on arm64 before 6.4: no BPF trampoline"
	else
		note "workload: fentry/fexit -> BPF trampoline"
		ktload -a -t 300 $BIN/fentry.bpf.o >/dev/null || fail "ktload fentry"
	fi
	note "workload: XDP on lo -> bpf_dispatcher_xdp"
	ktload -x lo -t 300 $BIN/xdp.bpf.o >/dev/null || fail "ktload xdp"
	note "workload: struct_ops tcp_congestion_ops (its trampolines have ksyms since 6.10)"
	ktload -w go.structops $BIN/structops.bpf.o >structops.txt 2>&1 &
	local sp=$!
	wait_for structops.txt '^registered|ktload:' 30 || fail "struct_ops load hangs"
	grep -q '^registered' structops.txt || fail "struct_ops: $(cat structops.txt)"
	grep -E ' bpf__tcp_congestion_ops_' /proc/kallsyms >structops.kallsyms
	touch go.structops
	wait $sp
	if ftrace_tramps; then
		note "workload: ftrace instance with the function tracer -> ftrace_trampoline"
	else
		note "workload: ftrace instance (arm64: no per-ops trampoline to see)"
	fi
	mkdir $T/instances/kt1 || fail "ftrace instance"
	echo schedule >$T/instances/kt1/set_ftrace_filter
	echo function >$T/instances/kt1/current_tracer
	sleep 0.3
	grep ftrace_trampoline /proc/kallsyms >ftrace.kallsyms
	echo nop >$T/instances/kt1/current_tracer
	rmdir $T/instances/kt1
	local off
	off=$(kprobe_add kt1) || fail "no int3 kprobe offset in vfs_read accepted"
	note "workload: kprobe at vfs_read+$off -> kprobe_insn_page (optimized: kprobe_optinsn_page)"
	echo 1 >$T/events/kprobes/kt1/enable
	cat /proc/version >/dev/null
	# The optimizer runs after OPTIMIZE_DELAY (5 jiffies) from a workqueue.
	sleep 0.5
	grep -E 'kprobe_(opt)?insn_page' /proc/kallsyms >kprobe.kallsyms
	cat /sys/kernel/debug/kprobes/list
	echo 0 >$T/events/kprobes/kt1/enable
	echo "-:kt1" >>$T/kprobe_events
	# Trampoline images go away after an RCU-tasks grace period.
	sleep 1
}

# The kernel's KSYMBOL / BPF_EVENT records of a perf.data file as
# "K|B <hex of header and body>" (the record without its sample_id trailer),
# from the raw dumps of `perf report -D`; synthesized records are skipped.
perf_records_hex() { # file
	perf report -D -i "$1" 2>/dev/null | awk '
	/raw event: size/ { nhex = 0; next }
	/^\. +[0-9a-f]+: / {
		for (i = 3; i <= NF && i < 19; i++) if ($i ~ /^[0-9a-f][0-9a-f]$/) hex[nhex++] = $i
		next
	}
	/PERF_RECORD_(KSYMBOL|BPF_EVENT)/ {
		if ($2 == "0") next
		s = ""
		for (i = 0; i < nhex - 24; i++) s = s hex[i]
		print (/KSYMBOL/ ? "K " : "B ") s
	}'
}

# Every native record must be among ours byte for byte (header and body).  Where
# the kernel reports a page for a smaller BPF image (6.12 trampolines), the len
# field (bytes 16..19) is left out of the comparison on both sides.
match_hex() { # native.hex ours.hex
	awk '
	function key(l,   t, name) {
		if (substr(l, 1, 1) != "K") return l
		# name starts at byte 24 (hex offset 2 + 48); len at bytes 16..19
		name = substr(l, 51, 18)
		if (name != "6270665f70726f675f") # not "bpf_prog_"
			return substr(l, 1, 34) "________" substr(l, 43)
		return l
	}
	FNR == NR { ours[key($0)]++; next }
	{ k = key($0); if (ours[k] > 0) { ours[k]--; m++ } else { print "missing: " $0; bad++ } }
	END { printf "# byte-identical %d, missing %d\n", m, bad; exit bad > 0 }' "$2" "$1"
}

# Before 6.4 (without 0108a4e9f358 "bpf: ensure main program has an extable",
# so on 5.10), a program with subprograms is in kallsyms twice at its main
# image: under func[0]'s tag, the name perf's KSYMBOL gives it (and
# ksymtap's), and under the program's own tag.  This filter leaves the second
# out: a bpf_prog_ line whose tag is a program's own tag (bpftool) at an
# address another line also names.
drop_main_aliases() {
	local tags
	tags=$(bpftool prog show 2>/dev/null | awk '/^[0-9]+:/ {
		for (i = 1; i <= NF; i++) if ($i == "tag") print $(i + 1) }')
	awk -v tags="$tags" '
	BEGIN { n = split(tags, t, "\n"); for (i = 1; i <= n; i++) own[t[i]] = 1 }
	{ line[NR] = $0; addr[NR] = $1; name[NR] = $3; seen[$1]++ }
	END {
		for (i = 1; i <= NR; i++) {
			tag = substr(name[i], 10, 16)
			if (seen[addr[i]] > 1 && name[i] ~ /^bpf_prog_/ && (tag in own)) continue
			print line[i]
		}
	}'
}

# The kernel's dynamic symbols, the lines /proc/kallsyms lists under [bpf],
# [__builtin__ftrace] and [__builtin__kprobes], sorted, main-image aliases
# left out (drop_main_aliases).
kallsyms_dyn() {
	grep -E "$(printf '\t')\[(bpf|__builtin__ftrace|__builtin__kprobes)\]\$" /proc/kallsyms |
		drop_main_aliases | sort
}

# The kernel's programs as "P id tag", sorted.
bpftool_progs() {
	bpftool prog show | awk '/^[0-9]+:/ {
		id = $1; sub(":", "", id)
		for (i = 1; i <= NF; i++) if ($i == "tag") print "P " id " " $(i + 1)
	}' | sort
}

# Replay ksymtap JSON records (snapshot + stream) into the live state they
# describe: "S <kallsyms line>" per live symbol, "P id tag" per live program,
# sorted; and "TWICE ..." for a register of a symbol (or a PROG_LOAD of an id)
# that is already live: something reported twice.
kt_replay() { # json-file
	jq -r 'if .kind == "ksymbol" then
			["K", (.addr | sub("^0x"; "")), .source, .name, .unregister]
		elif .kind == "bpf_event" then ["B", .type, .id, .tag]
		else empty end | @tsv' "$1" |
	awk -F '\t' '
	$1 == "K" {
		a = $2
		while (length(a) < 16) a = "0" a
		m = $3 == "ftrace" ? "__builtin__ftrace" : $3 == "kprobe" ? "__builtin__kprobes" : "bpf"
		k = a " t " $4 "\t[" m "]"
		if ($5 == "true") delete live[k]
		else { if (k in live) print "TWICE " k; live[k] = 1 }
	}
	$1 == "B" {
		t = $2; id = $3
		if (t == 1) { if (id in progs) print "TWICE prog " id; progs[id] = $4 }
		else if (t == 2) delete progs[id]
	}
	END { for (k in live) print "S " k; for (i in progs) print "P " i " " progs[i] }
	' | sort
}

# The time of program ID's PROG_LOAD in a perf.data, in seconds with ns, as
# perf script prints it.
prog_load_time() { # perf.data id
	perf script -i "$1" --ns --show-bpf-events 2>/dev/null |
		awk -v id="$2" '/PERF_RECORD_BPF_EVENT type 1,/ && $NF == id { sub(":", "", $4); print $4; exit }'
}

# Half-way between program ID's PROG_LOAD and PROG_UNLOAD, in seconds with
# ns: a time well inside a short life, for a reader whose clock another
# process calibrated (a daemon's is microseconds off, the gap between a
# program's KSYMBOL and its PROG_LOAD).
prog_mid_time() { # perf.data id
	perf script -i "$1" --ns --show-bpf-events 2>/dev/null |
		awk -v id="$2" '/PERF_RECORD_BPF_EVENT type [12],/ && $NF == id {
			sub(":", "", $4); t[$0 ~ /type 1,/ ? 1 : 2] = $4 }
		END { if (t[1] != "" && t[2] != "") printf "%.9f\n", (t[1] + t[2]) / 2 }'
}

# `ksymtap disasm` against the kernel: each function of the program ktcode
# described while it lived (code: "func ADDR LEN HEX" lines) has the same
# address, length and bytes at time T, and the source lines of all its
# functions, in order, are those of `bpftool prog dump xlated id N linum`
# (xlated).  SRC: disasm's source, "-i FILE" or "-s SOCKET" (T "now": the
# daemon's present, or the last code there).  Leaves each function's JSON
# in $dir/disasm.ADDR.json.
code_check() { # src code xlated T dir
	local f=$1 code=$2 xl=$3 t=$4 dir=$5 addr len hex got
	: >"$dir/lines.txt"
	grep '^func ' "$code" >"$dir/funcs.txt" || fail "$code lists no function"
	while read -r _ addr len hex; do
		# shellcheck disable=SC2086 # SRC is two words
		"${KT:-ksymtap}" disasm $f ${t:+--at "$t"} -f json "$addr" >"$dir/disasm.$addr.json" \
			2>"$dir/disasm.err" || fail "disasm $f $addr at $t: $(cat "$dir/disasm.err")"
		got=$(jq -r '.start + " " + (.len | tostring)' "$dir/disasm.$addr.json")
		[ "$got" = "0x$addr $len" ] || fail "disasm $f $addr: the function is $got, the kernel said 0x$addr $len"
		got=$(jq -r '.insns[].bytes' "$dir/disasm.$addr.json" | tr -d '\n')
		[ "$got" = "$hex" ] || fail "disasm $f $addr at $t: bytes differ from the kernel's jited_prog_insns:
  kernel  $hex
  disasm  $got"
		# shellcheck disable=SC2086
		"${KT:-ksymtap}" disasm $f ${t:+--at "$t"} "$addr" | grep '^; ' >>"$dir/lines.txt"
	done <"$dir/funcs.txt"
	grep '^; ' "$xl" >"$dir/xlated.lines"
	[ -s "$dir/xlated.lines" ] || fail "bpftool printed no source lines: $(head -3 "$xl")"
	diff "$dir/xlated.lines" "$dir/lines.txt" >"$dir/lines.diff" ||
		{ cat "$dir/lines.diff"; fail "source lines differ from bpftool prog dump xlated linum (< bpftool, > disasm)"; }
}
