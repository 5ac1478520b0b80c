# What each of ksymtap's BPF programs costs per run, by the kernel function
# it is attached to, as the kernel counts it
# (kernel.bpf_stats_enabled: run_cnt and run_time_ns per program, the figures
# bpftool prog show prints).  Under --icount, ns are instructions.  ksymtap
# streams to /dev/null while KTB_CYCLES load+close cycles run; the figure per
# hook is run_time_ns / run_cnt, and per cycle the sum over hooks of
# run_time_ns / cycles (the trampolines' own entry and exit not included: the
# ktempty condition of 10-overhead.sh measures those).
#
# Then the same with `ksymtap record` (keys hookcost.record.*), whose unload
# hook copies the code of each program it could not read in time (issue 32,
# bpf/code_copy.bpf.h: in a tight load+close cycle, most of them), and with
# `record --no-code` (hookcost.nocode.*), where it copies nothing: the A/B
# of that copy.  Then the backup twins' share (issue 34): the programs
# attached but empty (hookcost.empty.*), without twins (nobackup.*), and
# both with the listener SIGSTOPped (stopped.*, stopped_nobackup.*).
. /ksymtap/bench_lib.sh

[ -w /proc/sys/kernel/bpf_stats_enabled ] || fail "no kernel.bpf_stats_enabled"

# One condition: ksymtap with ARGS, KTB_CYCLES cycles, its hooks' figures
# as BENCH lines with PREFIX.
measure() { # prefix args...
	local prefix=$1
	shift
	ktb_start /dev/null kt.err "$@" -v
	# KTB_STOP: the listener SIGSTOPped, as 10-overhead.sh's ktstop, so no
	# record wakes it: the programs' figures without the wake-ups their
	# ring commits raise (an interrupt that runs inside a program's run).
	[ -n "${KTB_STOP:-}" ] && kill -STOP "$KT_PID"
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
	bpftool -j prog show >before.json
	out=$(ktbload cycle -n "$KTB_CYCLES" -W 0 -N ktb_cycle) || fail "ktbload: $out"
	bpftool -j prog show >after.json
	echo 0 >/proc/sys/kernel/bpf_stats_enabled
	# Each program's attach target, as the kernel links it: ksymtap's tracing
	# links, whose fdinfo gives the program's id and its target's BTF id
	# (bpf_tracing_link_show_fdinfo(), 5.13+; bookworm's bpftool does not print
	# them), named in the vmlinux BTF: the figures are per kernel function,
	# whatever the programs are called.
	for f in /proc/"$KT_PID"/fdinfo/*; do
		awk '$1 == "link_type:" { t = $2 } $1 == "prog_id:" { p = $2 }
			$1 == "target_btf_id:" { b = $2 } END { if (t == "tracing" && p && b) print p, b }' "$f"
	done >prog_target.txt
	bpftool btf dump file /sys/kernel/btf/vmlinux format raw |
		awk '$2 == "FUNC" { id = $1; gsub(/[][]/, "", id); print id, substr($3, 2, length($3) - 2) }' >funcs.txt
	[ -n "${KTB_STOP:-}" ] && kill -CONT "$KT_PID"
	kt_stop
	awk 'FILENAME == ARGV[1] { f[$1] = $2; next } { print $1, ($2 in f) ? f[$2] : "btf_" $2 }' \
		funcs.txt prog_target.txt >prog_func.txt
	# 5.10's and 6.1's fdinfo of a tracing link has no target_btf_id line (the
	# bench found none there; 6.12's has it): then the target from ksymtap's own
	# account of its hooks (-v: "hook H on FUNC program P live"), by the
	# program's name as the kernel keeps it (15 characters).
	if [ ! -s prog_func.txt ]; then
		sed -n 's/^ksymtap: hook  *[^ ]*  *on  *\([^ ]*\)  *program  *\([^ ]*\)  *live.*/\2 \1/p' \
			kt.err >name_func.txt
		tr '{' '\n' <after.json | awk '/"name":/ {
			i = $0; sub(/.*"id":/, "", i); sub(/[^0-9].*/, "", i)
			n = $0; sub(/.*"name":"/, "", n); sub(/".*/, "", n); print i, n }' |
			awk 'FILENAME == ARGV[1] { f[substr($1, 1, 15)] = $2; next } ($2 in f) { print $1, f[$2] }' \
				name_func.txt - >prog_func.txt
		note "no target_btf_id in fdinfo: targets from ksymtap -v"
	fi
	[ -s prog_func.txt ] || fail "no attach target of ksymtap's programs, in its fdinfo or its -v lines"
	note "attach targets: $(tr '\n' ';' <prog_func.txt)"

	# One "target run_time_ns run_cnt" line per attached program with stats,
	# named by its attach target (prog_func.txt).
	stats() {
		tr '{' '\n' <"$1" | awk '/"run_time_ns"/ {
			i = $0; sub(/.*"id":/, "", i); sub(/[^0-9].*/, "", i)
			t = $0; sub(/.*"run_time_ns":/, "", t); sub(/[^0-9].*/, "", t)
			c = $0; sub(/.*"run_cnt":/, "", c); sub(/[^0-9].*/, "", c)
			print i, t, c
		}' | awk 'FILENAME == ARGV[1] { f[$1] = $2; next } ($1 in f) { print f[$1], $2, $3 }' prog_func.txt -
}
stats before.json >before.txt
stats after.json >after.txt
note "bpf_stats before: $(tr '\n' ';' <before.txt)"
note "bpf_stats after: $(tr '\n' ';' <after.txt)"
awk -v cycles="$KTB_CYCLES" 'FILENAME == ARGV[1] { t[$1] = $2; c[$1] = $3; next }
	{ dt = $2 - t[$1]; dc = $3 - c[$1]
	  if (dc <= 0) next
	  printf "BENCH hookcost.%s%s.ns_per_run=%.0f\n", p, $1, dt / dc
	  printf "BENCH hookcost.%s%s.runs_per_cycle=%.2f\n", p, $1, dc / cycles
	  sum += dt }
	END { printf "BENCH hookcost.%stotal.ns_per_cycle=%.0f\n", p, sum / cycles }' p="$prefix" \
	before.txt after.txt
}

measure "" stream
measure record. record -o hookcost.data
grep 'with the code of' kt.err | sed 's/^/# /'
rm -f hookcost.data
measure nocode. record --no-code -o hookcost.data
rm -f hookcost.data
# The floor of these figures, and what the backup twins add (issue 34):
# the same programs attached but returning at once (KSYMTAP_DEBUG_EMPTY:
# each run is then the trampoline's enter and exit and bpf_stats' own two
# clock reads), and, where twins load, the programs without them
# (KSYMTAP_DEBUG_NO_BACKUP; elsewhere the same as stream).
export KSYMTAP_DEBUG_EMPTY=1
measure empty. stream
unset KSYMTAP_DEBUG_EMPTY
export KSYMTAP_DEBUG_NO_BACKUP=1
measure nobackup. stream
unset KSYMTAP_DEBUG_NO_BACKUP
# The same two with the listener stopped (a ring that holds the whole run):
# what the programs themselves cost, which the overhead bench's ktstop and
# ktstop1 conditions measure as a share of the cycle.
KTB_STOP=1
measure stopped. stream --ringbuf-size 16M
export KSYMTAP_DEBUG_NO_BACKUP=1
measure stopped_nobackup. stream --ringbuf-size 16M
unset KSYMTAP_DEBUG_NO_BACKUP
KTB_STOP=
