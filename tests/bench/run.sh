#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# make bench: boot each kernel line under QEMU with the benchmark suite
# (tests/bench/[0-9]*.sh, run inside the guest by tests/vm/vmtest.sh --suite
# bench), collect the guests' "BENCH key=value" lines, and write
#   build/bench/raw.txt       kernel key=value, as the guests said them
#   build/bench/results.json  the same, per kernel, with run metadata and the
#                             issue 7 targets evaluated
#   build/bench/results.md    the table BENCHMARKS.md shows
#
#   tests/bench/run.sh [--line LINE]... [--quick] [--only REGEX] [--out DIR]
#                      [--alt PATH] [--mode both|wall|icount]
#   tests/bench/run.sh --report [--out DIR]   (results.* again from raw.txt)
#
# LINE: 5.10 6.1 6.12 6.18 newest (amd64) or arm64:LINE, as for make test;
# the default is every amd64 line and arm64 newest.  An arm64 line runs the
# benchmarks whose figures are ratios to perf or bpftool in the same boot
# and the burst (overhead, hookcost, startup, burst: KT_BENCH_ARM64_ONLY), since its absolute
# times are 2-4x an amd64 guest's under TCG.
# --quick shrinks every size (harness debugging; the figures mean little).
# --alt PATH adds another ksymtap binary to the overhead rounds (condition
# "alt"), for an A/B of a change in the same boots.
# Each kernel boots twice (--mode both, the default).  "icount"
# (vmtest.sh --icount: guest time counts executed instructions, whatever the
# host does; keys prefixed "icount.") runs the CPU and wake-up figures:
# overhead, hookcost, idle (a 60 s window of guest time, which icount skips
# through).  "wall" (multi-threaded TCG, guest clocks follow the host's)
# runs the figures in time: latency, burst, startup.  5.10 and 6.1 hang
# under -icount here, so their wall boot runs everything (KT_BENCH_ICOUNT_ALL=1
# tries their icount boot); --mode wall or icount runs everything in one.
# The wall boots run one at a time, alone on the host; then the icount boots
# KT_BENCH_JOBS (default: the CPUs) at a time.
# KT_VM_MEM (default 2G here: 5,000 live programs need more than 1G) sizes the
# guests.  Exits non-zero only when a measurement could not be made; a missed
# target is reported, not failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/bench
lines=() quick= only= report= alt= mode=both retried=()
while [ $# -gt 0 ]; do
	case $1 in
	--line) lines+=("$2"); shift 2 ;;
	--quick) quick=1; shift ;;
	--only) only=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--report) report=1; shift ;;
	--alt) alt=$(readlink -f "$2"); shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	-h|--help) sed -n '3,36p' "$0"; exit 0 ;;
	*) echo "bench: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ ${#lines[@]} -gt 0 ] || lines=(5.10 6.1 6.12 6.18 newest arm64:newest)
arm64_only=${KT_BENCH_ARM64_ONLY:-overhead|hookcost|startup|burst}

# vmtest.sh's arguments for a line: "--arch A --line L".
line_args() { # line
	case $1 in
	arm64:*) echo "--arch arm64 --line ${1#arm64:}" ;;
	*) echo "--arch amd64 --line $1" ;;
	esac
}
# The benchmarks a line runs (--only), "" for all.
line_only() { # line
	local o=$only
	case $1 in arm64:*) o=${only:-$arm64_only} ;; esac
	echo "$o"
}
# 5.10 and 6.1 hang before their first console line under -icount here
# (BENCHMARKS.md): they have wall boots only.  KT_BENCH_ICOUNT_ALL=1 tries.
icount_ok() { # line
	case $1 in
	5.10 | 6.1) [ -n "${KT_BENCH_ICOUNT_ALL:-}" ] ;;
	*) true ;;
	esac
}
# What a boot of a line runs, as vmtest.sh --only REGEX ("" for nothing).
# The benchmarks whose figures are CPU and wake-ups (overhead, hookcost,
# idle) run in the icount boot where the line has one: instructions, and a
# 60 s idle window that costs the host nothing (icount skips idle time);
# the wall boot runs those in time (latency, burst, startup), and all of
# them on a line with no icount boot.
# A script whose first line says "# On demand" runs only when --only names it.
benches=$(cd "$top/tests/bench" && for f in [0-9]*.sh; do
	b=$(echo "$f" | sed 's/^[0-9]*-//; s/\.sh$//')
	if head -n 1 "$f" | grep -q '^# On demand' && ! [[ $b =~ ^(${only:-^$})$ ]]; then
		continue
	fi
	echo "$b"
done)
icount_set='^(overhead|hookcost|idle)$'
boot_set() { # line wall|icount
	local b o set=()
	o=$(line_only "$1")
	for b in $benches; do
		[ -n "$o" ] && ! [[ $b =~ $o ]] && continue
		case $2 in
		icount) [[ $b =~ $icount_set ]] || continue ;;
		wall) [ "$mode" = both ] && icount_ok "$1" && [[ $b =~ $icount_set ]] && continue ;;
		esac
		set+=("$b")
	done
	local IFS='|'
	echo "${set[*]}"
}

# The guest's sizes (tests/bench/lib.sh has the same defaults).
if [ -n "$quick" ]; then
	params=(KTB_CYCLES=300 KTB_WARMUP=50 KTB_REPS=2 KTB_LAT=200 KTB_LAT_GAP_US=2000
		KTB_BURST=2000 KTB_BURST_THREADS=4 KTB_HOLD=500 KTB_STARTUP_REPS=1)
else
	params=(KTB_CYCLES=2000 KTB_WARMUP=200 KTB_REPS=5 KTB_LAT=2000 KTB_LAT_GAP_US=2000
		KTB_BURST=20000 KTB_BURST_THREADS=4 KTB_HOLD=5000 KTB_STARTUP_REPS=3)
fi
export KT_VM_MEM=${KT_VM_MEM:-2G}
# The wall-clock rounds as measured for BENCHMARKS.md: multi-threaded TCG
# (the test suite runs single-threaded; see tests/vm/vmtest.sh).
export KT_VM_TCG_THREAD=${KT_VM_TCG_THREAD:-multi}

mkdir -p "$out"
raw=$out/raw.txt meta=$out/meta.txt
rc=0
if [ -z "$report" ]; then
	: >"$raw"
	rm -f "$top/build/tests/bench/ksymtap-alt"
	if [ -n "$alt" ]; then
		cp "$alt" "$top/build/tests/bench/ksymtap-alt" || exit 2
		trap 'rm -f "$top/build/tests/bench/ksymtap-alt"' EXIT
	fi
	load_start=$(cut -d' ' -f1-3 /proc/loadavg)
	t0=$(date +%s)
	echo "bench: host load average at start: $load_start ($(nproc) cpus)"
	# ksymtap inject is a file transform: measured on the host, apart
	# from the guests' figures (build/bench/inject.txt, BENCHMARKS.md).
	if [ -z "$only" ] || [[ inject =~ $only ]]; then
		echo "== bench: ksymtap inject on the host"
		"$top/tests/bench/host/inject.sh" "$top/build/ksymtap" >"$out/inject.txt" || rc=1
		cat "$out/inject.txt"
	fi
	# The reader's instructions per cycle: its code replayed under callgrind.
	if [ -z "$only" ] || [[ reader =~ $only ]]; then
		echo "== bench: the reader's instructions per cycle on the host (callgrind)"
		"$top/tests/bench/host/reader.sh" "$top/build/tests/bench/ktbreader" "$out" \
			>"$out/reader.txt" || rc=1
		cat "$out/reader.txt"
	fi
	# The serve query's lookup rate: the daemon's code in one host process.
	if [ -z "$only" ] || [[ query =~ $only ]]; then
		echo "== bench: the serve query on the host"
		"$top/tests/bench/host/query.sh" "$top/build/tests/bench/ktbquery" >"$out/query.txt" || rc=1
		cat "$out/query.txt"
	fi
	# The code archive's cost per load: record with and without it, on
	# the host's kernel (native records; the BPF side is the same either way).
	if [ -z "$only" ] || [[ code =~ $only ]]; then
		echo "== bench: record's code archive on the host, on and off"
		"$top/tests/bench/host/code.sh" "$top/build/ksymtap" >"$out/code.txt" || rc=1
		cat "$out/code.txt"
	fi
	# The guests' sizes, as vmtest.sh --env arguments.
	envs=()
	for p in "${params[@]}"; do envs+=(--env "$p"); done
	# The wall boots, one at a time.
	icount_lines=()
	for l in "${lines[@]}"; do
		lo=$(boot_set "$l" wall)
		tag=${l/:/-}
		if [ "$mode" != icount ] && [ -n "$lo" ]; then
			echo "== bench: kernel line $l ($lo)"
			# Multi-threaded TCG sometimes runs a stale copy of code the
			# guest kernel is patching (perf's static keys): an "Oops:
			# int3" panic that is the emulator's, not the guest's (README,
			# "The VM bench").  That boot is run once more, and said so.
			for try in 1 2; do
				# shellcheck disable=SC2046
				"$top/tests/vm/vmtest.sh" $(line_args "$l") --suite bench --timeout 1500 \
					--test-timeout 900 --bench-out "$raw" "${envs[@]}" \
					--only "[0-9]-($lo)" 2>&1 | tee "$out/vm.$tag.log" && break
				console=$(sed -n 's/.*kernel panic (see \(.*\)).*/\1/p' "$out/vm.$tag.log" | head -n 1)
				if [ $try = 1 ] && [ -n "$console" ] && grep -aqs 'Oops: int3' "$console"; then
					echo "== bench: kernel line $l: emulator int3 panic; booting it again"
					retried+=("$l")
					continue
				fi
				rc=1
				break
			done
		fi
		if [ "$mode" != wall ] && ! icount_ok "$l"; then
			echo "== bench: kernel line $l: no icount boot (it hangs; KT_BENCH_ICOUNT_ALL=1 to try)"
		elif [ "$mode" != wall ] && [ -n "$(boot_set "$l" icount)" ]; then
			icount_lines+=("$l")
		fi
	done
	# The icount boots: guest time is instructions, so they may share the
	# host; each writes its own file, appended in the order of the lines.
	jobs=${KT_BENCH_JOBS:-$(nproc)}
	# The longest boots first (arm64's, 2-4x an amd64 one's), so the others
	# fill the remaining slots beside them.
	sorted=()
	for l in "${icount_lines[@]}"; do [[ $l == arm64:* ]] && sorted+=("$l"); done
	for l in "${icount_lines[@]}"; do [[ $l == arm64:* ]] || sorted+=("$l"); done
	icount_lines=("${sorted[@]}")
	ipids=()
	for l in "${icount_lines[@]}"; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
			sleep 2
		done
		tag=${l/:/-}
		lo=$(boot_set "$l" icount)
		echo "== bench: kernel line $l, --icount ($lo) (started)"
		: >"$raw.icount.$tag"
		# arm64's icount boot is the longest of the bench (TCG runs arm64 2-4x
		# slower): 3 rounds there, to keep make bench within 30 minutes.
		arm=()
		[[ $l == arm64:* ]] && [ -z "$quick" ] && arm=(--env KTB_REPS=3)
		# shellcheck disable=SC2046
		"$top/tests/vm/vmtest.sh" $(line_args "$l") --suite bench --icount --timeout 1500 \
			--test-timeout 900 --bench-out "$raw.icount.$tag" "${envs[@]}" "${arm[@]}" --env KTB_SERVE=1 \
			--only "[0-9]-($lo)" >"$out/vm.$tag.icount.log" 2>&1 &
		ipids+=($!)
	done
	for i in "${!icount_lines[@]}"; do
		l=${icount_lines[$i]}
		tag=${l/:/-}
		wait "${ipids[$i]}" || rc=1
		echo "== bench: kernel line $l, --icount"
		cat "$out/vm.$tag.icount.log"
		sed 's/^\([^ ]*\) /\1 icount./' "$raw.icount.$tag" >>"$raw"
		rm -f "$raw.icount.$tag"
	done
	load_end=$(cut -d' ' -f1-3 /proc/loadavg)
	elapsed=$(($(date +%s) - t0))
	echo "bench: host load average at end: $load_end; ${elapsed}s in all"
	commit=$(git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)
	dirty=false
	[ -n "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ] && dirty=true
	date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	declare -p load_start load_end elapsed commit dirty date quick KT_VM_MEM params retried >"$meta"
else
	[ -s "$raw" ] && [ -s "$meta" ] || { echo "bench: no $raw or $meta to report on" >&2; exit 2; }
	# shellcheck disable=SC1090
	. "$meta"
fi

# --- results.json -----------------------------------------------------------
awk -v date="$date" -v commit="$commit" -v dirty="$dirty" \
	-v nproc="$(nproc)" -v ls="$load_start" -v le="$load_end" -v elapsed="$elapsed" \
	-v mem="$KT_VM_MEM" -v params="${params[*]}" -v quick="${quick:-0}" '
function val(v) { return v ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ ? v : "\"" v "\"" }
{
	k = $1; kv = substr($0, length($1) + 2); i = index(kv, "="); key = substr(kv, 1, i - 1); v = substr(kv, i + 1)
	if (!(k in seen)) { seen[k] = 1; order[nk++] = k }
	keys[k, ++nkeys[k]] = key; r[k, key] = v
}
function get(k, key) { return r[k, key] }
function target(k, name,   a, b, c) {
	if (name == "overhead") {
		a = get(k, "overhead.kt.ratio.median"); b = get(k, "overhead.perf.ratio.median")
		if (a == "" || b == "") return "\"not measured\""
		return (a - 1 <= 0.01 && a + 0 < b + 0) ? "\"met\"" : "\"missed\""
	}
	if (name == "overhead_icount") {
		a = get(k, "icount.overhead.kt.ratio.median"); b = get(k, "icount.overhead.perf.ratio.median")
		if (a == "" || b == "") return "\"not measured\""
		return (a - 1 <= 0.01 && a + 0 < b + 0) ? "\"met\"" : "\"missed\""
	}
	if (name == "burst") {
		a = get(k, "burst.kt.lost"); b = get(k, "burst.kt.received"); c = get(k, "burst.kt.expected")
		if (a == "" || b == "") return "\"not measured\""
		return (a + 0 == 0 && b + 0 == c + 0) ? "\"met\"" : "\"missed\""
	}
	if (name == "startup") {
		a = get(k, "startup.kt.ready_ns.median"); b = get(k, "startup.bpftool.exit_ns.median")
		if (a == "" || b == "") return "\"not measured\""
		return (a + 0 < b + 0) ? "\"met\"" : "\"missed\""
	}
	# The targets of issue 26.
	if (name == "bpf_side") {
		a = get(k, "icount.overhead.ktstop.ratio.median")
		if (a == "") return "\"not measured\""
		return (a - 1 <= 0.01) ? "\"met\"" : "\"missed\""
	}
	if (name == "whole") {
		a = get(k, "icount.overhead.kt.ratio.median")
		if (a == "") return "\"not measured\""
		return (a - 1 <= 0.02) ? "\"met\"" : "\"missed\""
	}
	if (name == "listener") {
		a = get(k, "icount.overhead.kt.listener_ns.median"); b = get(k, "icount.overhead.perf.listener_ns.median")
		if (a == "" || b == "") return "\"not measured\""
		return (a + 0 <= b / 2) ? "\"met\"" : "\"missed\""
	}
	if (name == "listener_serve") {
		a = get(k, "icount.overhead.serve.listener_ns.median"); b = get(k, "icount.overhead.perf.listener_ns.median")
		if (a == "" || b == "") return "\"not measured\""
		return (a + 0 <= b / 2) ? "\"met\"" : "\"missed\""
	}
	if (name == "idle") {
		a = get(k, "idle.stream.ctxsw"); b = get(k, "idle.serve.ctxsw")
		if (a == "") { a = get(k, "icount.idle.stream.ctxsw"); b = get(k, "icount.idle.serve.ctxsw") }
		if (a == "" || b == "") return "\"not measured\""
		return (a + 0 == 0 && b + 0 == 0) ? "\"met\"" : "\"missed\""
	}
	if (name == "latency") {
		a = get(k, "latency.p50_ns"); b = get(k, "latency.p99_ns")
		if (a == "" || b == "") return "\"not measured\""
		return (a + 0 <= 1000000 && b + 0 <= 5000000) ? "\"met\"" : "\"missed\""
	}
	if (name == "startup_half") {
		a = get(k, "startup.kt.ready_ns.median"); b = get(k, "startup.bpftool.exit_ns.median")
		if (a == "" || b == "") return "\"not measured\""
		return (a + 0 <= b / 2) ? "\"met\"" : "\"missed\""
	}
	if (name == "startup_empty") {
		a = get(k, "startup.empty.kt_ready_ns")
		if (a == "") return "\"not measured\""
		return (a + 0 <= 250000000) ? "\"met\"" : "\"missed\""
	}
	if (name == "rss") {
		c = ""
		for (j = 1; j <= nkeys[k]; j++)
			if (keys[k, j] ~ /^memory\..*hwm_kb(\.max)?$/ && keys[k, j] !~ /\.(median|min)$/)
				if (c == "" || get(k, keys[k, j]) + 0 > c + 0) c = get(k, keys[k, j])
		if (c == "") return "\"not measured\""
		return (c + 0 <= 8192) ? "\"met\"" : "\"missed\""
	}
}
END {
	printf "{\n  \"schema\": 1,\n  \"date\": \"%s\",\n  \"commit\": \"%s\",\n  \"dirty\": %s,\n", date, commit, dirty
	printf "  \"quick\": %s,\n", (quick ? "true" : "false")
	printf "  \"host\": {\"cpus\": %d, \"loadavg_start\": \"%s\", \"loadavg_end\": \"%s\", \"elapsed_s\": %d},\n", nproc, ls, le, elapsed
	printf "  \"guest\": {\"accel\": \"tcg\", \"cpus\": 2, \"memory\": \"%s\"},\n", mem
	printf "  \"params\": {"
	n = split(params, pa, " ")
	for (i = 1; i <= n; i++) { j = index(pa[i], "="); printf "%s\"%s\": %s", (i > 1 ? ", " : ""), substr(pa[i], 1, j - 1), val(substr(pa[i], j + 1)) }
	printf "},\n  \"targets\": {\n"
	for (i = 0; i < nk; i++) {
		k = order[i]
		printf "    \"%s\": {\"overhead_le_1pct_and_below_perf\": %s, \"overhead_le_1pct_and_below_perf_icount\": %s, \"burst_zero_drops\": %s, \"startup_faster_than_bpftool\": %s, \"peak_rss_le_8MiB\": %s, ", \
			k, target(k, "overhead"), target(k, "overhead_icount"), target(k, "burst"), target(k, "startup"), target(k, "rss")
		printf "\"bpf_side_le_1pct_icount\": %s, \"whole_le_2pct_icount\": %s, \"listener_cpu_le_half_perf_icount\": %s, \"listener_serve_tail_cpu_le_half_perf_icount\": %s, \"idle_zero_context_switches\": %s, \"latency_p50_le_1ms_p99_le_5ms\": %s, \"startup_le_half_bpftool\": %s, \"startup_empty_le_250ms\": %s}%s\n", \
			target(k, "bpf_side"), target(k, "whole"), target(k, "listener"), target(k, "listener_serve"), target(k, "idle"), target(k, "latency"), target(k, "startup_half"), target(k, "startup_empty"), (i < nk - 1 ? "," : "")
	}
	printf "  },\n  \"kernels\": {\n"
	for (i = 0; i < nk; i++) {
		k = order[i]
		printf "    \"%s\": {\n", k
		for (j = 1; j <= nkeys[k]; j++)
			printf "      \"%s\": %s%s\n", keys[k, j], val(get(k, keys[k, j])), (j < nkeys[k] ? "," : "")
		printf "    }%s\n", (i < nk - 1 ? "," : "")
	}
	printf "  }\n}\n"
}' "$raw" >"$out/results.json"

# --- results.md ---------------------------------------------------------------
awk -v ls="$load_start" -v le="$load_end" '
/ (icount\.)?overhead\.alt\./ { alt = 1 }
{
	k = $1; kv = substr($0, length($1) + 2); i = index(kv, "="); r[k, substr(kv, 1, i - 1)] = substr(kv, i + 1)
	if (!(k in seen)) { seen[k] = 1; order[nk++] = k }
}
function g(k, key) { return r[k, key] }
function us(k, key) { return g(k, key) == "" ? "-" : sprintf("%.1f", g(k, key) / 1000) }
function ms(k, key) { return g(k, key) == "" ? "-" : sprintf("%.0f", g(k, key) / 1e6) }
function mib(k, key) { return g(k, key) == "" ? "-" : sprintf("%.1f", g(k, key) / 1024) }
function pct(k, key) { return g(k, key) == "" ? "-" : sprintf("%+.2f%%", (g(k, key) - 1) * 100) }
function spread(k, key, f) {
	if (f == "us") return us(k, key ".median") " (" us(k, key ".min") "-" us(k, key ".max") ")"
	if (f == "ms") return ms(k, key ".median") " (" ms(k, key ".min") "-" ms(k, key ".max") ")"
	if (f == "pct") return pct(k, key ".median") " (" pct(k, key ".min") ".." pct(k, key ".max") ")"
}
function row(label, f, key,   i, s) {
	s = "| " label
	for (i = 0; i < nk; i++) s = s " | " cell(order[i], f, key)
	print s " |"
}
function cell(k, f, key) {
	if (f == "raw") return g(k, key) == "" ? "-" : g(k, key)
	if (f == "mib") return mib(k, key)
	if (f == "us1") return us(k, key)
	if (f == "trio") return g(k, key ".expected") " / " g(k, key ".received") " / " g(k, key ".lost")
	return spread(k, key, f)
}
END {
	s = "| figure"; t = "|---"
	for (i = 0; i < nk; i++) { s = s " | " order[i]; t = t "|---" }
	print s " |"; print t "|"
	row("load+close cycle, nothing attached: mean us, median of rounds (min-max)", "us", "overhead.base.mean_ns")
	row("... with ksymtap streaming: overhead vs base, median of rounds (min..max)", "pct", "overhead.kt.ratio")
	row("... with perf record -e dummy -a: overhead vs base", "pct", "overhead.perf.ratio")
	row("... with ksymtap attached but SIGSTOPped (its BPF programs only)", "pct", "overhead.ktstop.ratio")
	row("... with the ksymtap program hooks attached but empty (KSYMTAP_DEBUG_EMPTY: the trampolines alone)", "pct", "overhead.ktempty.ratio")
	row("same, per-cycle p50 instead of mean: ksymtap", "pct", "overhead.kt.ratio_p50")
	row("same, per-cycle p50 instead of mean: perf", "pct", "overhead.perf.ratio_p50")
	row("same, per-cycle p50 instead of mean: ksymtap stopped", "pct", "overhead.ktstop.ratio_p50")
	if (alt) {
		row("A/B: the --alt ksymtap streaming: overhead vs base", "pct", "overhead.alt.ratio")
		row("same, per-cycle p50: the --alt ksymtap", "pct", "overhead.alt.ratio_p50")
	}
	row("icount: load+close cycle, nothing attached: mean us (virtual, 1 ns/insn)", "us", "icount.overhead.base.mean_ns")
	row("icount: with ksymtap streaming: overhead vs base", "pct", "icount.overhead.kt.ratio")
	row("icount: with perf record -e dummy -a: overhead vs base", "pct", "icount.overhead.perf.ratio")
	row("icount: with ksymtap SIGSTOPped (BPF programs only)", "pct", "icount.overhead.ktstop.ratio")
	row("icount: with ksymtap SIGSTOPped, without its backup twins (KSYMTAP_DEBUG_NO_BACKUP)", "pct", "icount.overhead.ktstop1.ratio")
	row("icount: the --alt ksymtap SIGSTOPped (its BPF programs only)", "pct", "icount.overhead.altstop.ratio")
	row("icount: with the ksymtap program hooks empty (the trampolines alone)", "pct", "icount.overhead.ktempty.ratio")
	row("icount: CPU of the listener itself per cycle, ksymtap: instructions", "raw", "icount.overhead.kt.listener_ns.median")
	row("icount: CPU of the listener itself per cycle, perf: instructions", "raw", "icount.overhead.perf.listener_ns.median")
	row("icount: CPU of serve + one tail -f json client per cycle: instructions", "raw", "icount.overhead.serve.listener_ns.median")
	row("icount: wake-ups (voluntary context switches) of the listener per cycle, ksymtap", "raw", "icount.overhead.kt.wakeups_per_cycle.median")
	row("icount: ... perf", "raw", "icount.overhead.perf.wakeups_per_cycle.median")
	row("icount: ... serve + one tail client", "raw", "icount.overhead.serve.wakeups_per_cycle.median")
	row("icount: with serve + one tail client: overhead vs base", "pct", "icount.overhead.serve.ratio")
	row("icount: the ksymtap program on bpf_prog_kallsyms_add, instructions per run (bpf_stats)", "raw", "icount.hookcost.bpf_prog_kallsyms_add.ns_per_run")
	row("icount: ... on bpf_prog_kallsyms_del_all, instructions per run", "raw", "icount.hookcost.bpf_prog_kallsyms_del_all.ns_per_run")
	row("icount: ... on bpf_prog_kallsyms_del, instructions per run (kernels where it is the one hooked)", "raw", "icount.hookcost.bpf_prog_kallsyms_del.ns_per_run")
	row("icount: ... on bpf_ksym_add, instructions per run", "raw", "icount.hookcost.bpf_ksym_add.ns_per_run")
	row("icount: ... on bpf_ksym_del, instructions per run", "raw", "icount.hookcost.bpf_ksym_del.ns_per_run")
	row("icount: all ksymtap programs, instructions per load+close cycle", "raw", "icount.hookcost.total.ns_per_cycle")
	row("icount: ... the same programs attached but empty (KSYMTAP_DEBUG_EMPTY: the floor of bpf_stats)", "raw", "icount.hookcost.empty.total.ns_per_cycle")
	row("icount: ... without the backup twins (KSYMTAP_DEBUG_NO_BACKUP)", "raw", "icount.hookcost.nobackup.total.ns_per_cycle")
	row("icount: ... with the listener SIGSTOPped (no wake-ups: the programs alone)", "raw", "icount.hookcost.stopped.total.ns_per_cycle")
	row("icount: ... SIGSTOPped, without the backup twins", "raw", "icount.hookcost.stopped_nobackup.total.ns_per_cycle")
	row("icount: per-cycle p50: ksymtap", "pct", "icount.overhead.kt.ratio_p50")
	row("icount: per-cycle p50: perf", "pct", "icount.overhead.perf.ratio_p50")
	row("icount: per-cycle p50: ksymtap stopped", "pct", "icount.overhead.ktstop.ratio_p50")
	if (alt) {
		row("icount A/B: the --alt ksymtap streaming: overhead vs base", "pct", "icount.overhead.alt.ratio")
		row("icount: per-cycle p50: the --alt ksymtap", "pct", "icount.overhead.alt.ratio_p50")
		row("icount: CPU of the listener itself per cycle, --alt ksymtap: instructions", "raw", "icount.overhead.alt.listener_ns.median")
		row("icount: wake-ups of the listener per cycle, --alt ksymtap", "raw", "icount.overhead.alt.wakeups_per_cycle.median")
	}
	row("idle: context switches over the window, stream to /dev/null", "raw", "idle.stream.ctxsw")
	row("idle: ... serve with one client", "raw", "idle.serve.ctxsw")
	row("idle: window, s", "raw", "idle.seconds")
	row("icount idle: context switches over the window (guest time), stream to /dev/null", "raw", "icount.idle.stream.ctxsw")
	row("icount idle: ... serve with one client", "raw", "icount.idle.serve.ctxsw")
	row("icount idle: window, s (guest time)", "raw", "icount.idle.seconds")
	row("latency kernel event -> line readable: p50 us", "us1", "latency.p50_ns")
	row("latency p99 us", "us1", "latency.p99_ns")
	row("latency max us", "us1", "latency.max_ns")
	row("latency records (lost)", "raw", "latency.records")
	row("burst, ksymtap default: expected / received / lost", "trio", "burst.kt")
	row("burst, ksymtap: lost to a full ring / to a full queue / hook runs lost", "raw", "burst.kt.why")
	row("burst, ksymtap: hook runs the kernel skipped / made up by the backup twins", "raw", "burst.kt.skips")
	row("burst, perf default buffers: expected / received / lost", "trio", "burst.perf")
	row("burst duration with ksymtap / with perf: ms", "raw", "burst.ms")
	row("ksymtap peak RSS (VmHWM) MiB: idle, at ready", "mib", "memory.empty.hwm_kb")
	row("... after paced streaming", "mib", "memory.stream_paced.hwm_kb")
	row("... after streaming the burst", "mib", "memory.stream_burst.hwm_kb")
	row("... while programs were loaded, then alive", "mib", "memory.alive.hwm_kb")
	row("... started with the programs alive, at ready", "mib", "memory.startup.hwm_kb.max")
	row("start-up, nothing loaded: ksymtap to ready, ms", "raw", "startup.empty.ms")
	row("start-up with programs alive: ksymtap to ready, ms", "ms", "startup.kt.ready_ns")
	row("... bpftool prog show >/dev/null, ms", "ms", "startup.bpftool.exit_ns")
	row("... perf record -e dummy -a -- true, ms", "ms", "startup.perf.exit_ns")
	printf "\nHost load average: %s at start, %s at end.\n", ls, le
}' <(awk '{ print }
	/ burst.kt.elapsed_ns=/ { split($2, a, "="); kt[$1] = a[2] }
	/ burst.perf.elapsed_ns=/ { split($2, a, "="); pf[$1] = a[2] }
	/ startup.empty.kt_ready_ns=/ { split($2, a, "="); printf "%s startup.empty.ms=%.0f\n", $1, a[2] / 1e6 }
	/ burst.kt.lost_ring_full=/ { split($2, a, "="); rf[$1] = a[2] }
	/ burst.kt.lost_queue_full=/ { split($2, a, "="); qf[$1] = a[2] }
	/ burst.kt.hook_runs_lost=/ { split($2, a, "="); printf "%s burst.kt.why=%s / %s / %s\n", $1, rf[$1], qf[$1], a[2] }
	/ burst.kt.hook_runs_skipped=/ { split($2, a, "="); sk[$1] = a[2] }
	/ burst.kt.hook_runs_made_up=/ { split($2, a, "="); printf "%s burst.kt.skips=%s / %s\n", $1, sk[$1], a[2] }
	END { for (k in kt) printf "%s burst.ms=%.0f / %.0f\n", k, kt[k] / 1e6, pf[k] / 1e6 }' "$raw") \
	>"$out/results.md"

# The targets, evaluated per line (results.json's "targets").
jq -r '.targets as $t | ($t | keys_unsorted) as $k |
	"\n| target | " + ($k | join(" | ")) + " |",
	"|---" + ($k | map("|---") | join("")) + "|",
	(($t[$k[0]] // {}) | keys_unsorted[] as $n |
		"| " + $n + " | " + ($k | map($t[.][$n]) | join(" | ")) + " |")' \
	"$out/results.json" >>"$out/results.md" ||
	echo "bench: no targets table (jq could not read results.json)" >&2

echo
cat "$out/results.md"
echo
sed -n '/"targets"/,/^  },/p' "$out/results.json"
echo "bench: wrote $out/results.json, $out/results.md"
[ -s "$raw" ] || rc=1
exit $rc
