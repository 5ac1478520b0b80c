# What each of ksymtap's BPF programs costs per run, as the kernel counts it
# (kernel.bpf_stats_enabled: run_cnt and run_time_ns per program, the figures
# bpftool prog show prints).  Under --icount, ns are instructions.  ksymtap
# streams to /dev/null while KTB_CYCLES load+close cycles run; the figure per
# hook is run_time_ns / run_cnt, and per cycle the sum over hooks of
# run_time_ns / cycles (the trampolines' own entry and exit not included: the
# ktempty condition of 10-overhead.sh measures those).
. /ksymtap/bench_lib.sh

[ -w /proc/sys/kernel/bpf_stats_enabled ] || fail "no kernel.bpf_stats_enabled"
ktb_start /dev/null kt.err
echo 1 >/proc/sys/kernel/bpf_stats_enabled
bpftool -j prog show >before.json
out=$(ktbload cycle -n "$KTB_CYCLES" -W 0 -N ktb_cycle) || fail "ktbload: $out"
bpftool -j prog show >after.json
echo 0 >/proc/sys/kernel/bpf_stats_enabled
kt_stop

# One "name run_time_ns run_cnt" line per program with stats.
stats() {
	tr '{' '\n' <"$1" | awk '/"run_time_ns"/ {
		n = $0; sub(/.*"name":"/, "", n); sub(/".*/, "", n)
		t = $0; sub(/.*"run_time_ns":/, "", t); sub(/[^0-9].*/, "", t)
		c = $0; sub(/.*"run_cnt":/, "", c); sub(/[^0-9].*/, "", c)
		print n, t, c
	}'
}
stats before.json >before.txt
stats after.json >after.txt
note "bpf_stats before: $(tr '\n' ';' <before.txt)"
note "bpf_stats after: $(tr '\n' ';' <after.txt)"
awk -v cycles="$KTB_CYCLES" 'FILENAME == ARGV[1] { t[$1] = $2; c[$1] = $3; next }
	{ dt = $2 - t[$1]; dc = $3 - c[$1]
	  if (dc <= 0) next
	  printf "BENCH hookcost.%s.ns_per_run=%.0f\n", $1, dt / dc
	  printf "BENCH hookcost.%s.runs_per_cycle=%.2f\n", $1, dc / cycles
	  sum += dt }
	END { printf "BENCH hookcost.total.ns_per_cycle=%.0f\n", sum / cycles }' before.txt after.txt
