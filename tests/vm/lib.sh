# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Helpers for the VM tests (busybox sh).  A test exits 0 to pass, 77 to skip
# (after printing "SKIP: reason"), anything else to fail.  Every check compares
# ksymtap's output with what the kernel itself says: native perf records read
# by the real perf, /proc/kallsyms, bpftool (bpf_prog_info).
BIN=/ksymtap/bin
KT_PID= PERF_PID=

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "# $*"; }

# Wait until FILE contains PATTERN (grep -E), up to SEC seconds.
wait_for() { # file pattern sec
	local i=0
	while [ $i -lt $(($3 * 10)) ]; do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

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
	perf record -q -e dummy -a -o "$1" >/dev/null 2>"$1.err" &
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
perf_records() { # file
	perf report -D -i "$1" 2>/dev/null | awk '
	/^\. +[0-9a-f]+: / {
		# hex dump line ".  0010:  59 f4 a9 ..."
		for (i = 3; i <= NF && i < 19; i++) if ($i ~ /^[0-9a-f][0-9a-f]$/) hex[nhex++] = $i
		next
	}
	/raw event: size/ { nhex = 0 }
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

# ksymtap JSON lines as the same tab-separated fields.
json_field() { # line key  (strings without quotes)
	echo "$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^\",}]*\)\"\{0,1\}[,}].*/\1/p"
}
kt_records() { # json-file
	awk '
	function get(k,   r) {
		if (match($0, "\"" k "\":\"[^\"]*\"")) { r = substr($0, RSTART + length(k) + 4, RLENGTH - length(k) - 5); return r }
		if (match($0, "\"" k "\":[^,}]*")) return substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
		return ""
	}
	/"kind":"ksymbol"/ {
		a = get("addr"); sub("^0x", "", a)
		printf "K\t%s\t%s\t%s\t%s\t%s\n", a, get("len"), get("ksym_type"), get("flags"), get("name")
	}
	/"kind":"bpf_event"/ {
		printf "B\t%s\t%s\t%s\t%s\n", get("type"), get("flags"), get("id"), get("tag")
	}' "$1"
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

# The kernel's dynamic symbols, the lines /proc/kallsyms lists under [bpf],
# [__builtin__ftrace] and [__builtin__kprobes], sorted.
kallsyms_dyn() {
	grep -E "$(printf '\t')\[(bpf|__builtin__ftrace|__builtin__kprobes)\]\$" /proc/kallsyms | sort
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
	awk '
	function get(k,   r) {
		if (match($0, "\"" k "\":\"[^\"]*\"")) { r = substr($0, RSTART + length(k) + 4, RLENGTH - length(k) - 5); return r }
		if (match($0, "\"" k "\":[^,}]*")) return substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
		return ""
	}
	/"kind":"ksymbol"/ {
		a = get("addr"); sub("^0x", "", a)
		while (length(a) < 16) a = "0" a
		s = get("source")
		m = s == "ftrace" ? "__builtin__ftrace" : s == "kprobe" ? "__builtin__kprobes" : "bpf"
		k = a " t " get("name") "\t[" m "]"
		if (get("unregister") == "true") delete live[k]
		else { if (k in live) print "TWICE " k; live[k] = 1 }
	}
	/"kind":"bpf_event"/ {
		id = get("id"); t = get("type")
		if (t == 1) { if (id in progs) print "TWICE prog " id; progs[id] = get("tag") }
		else if (t == 2) delete progs[id]
	}
	END { for (k in live) print "S " k; for (i in progs) print "P " i " " progs[i] }
	' "$1" | sort
}
