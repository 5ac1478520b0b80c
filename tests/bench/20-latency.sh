# Latency from the kernel event to the record being readable from ksymtap's
# stdout.  ksymtap runs with KSYMTAP_DEBUG_KTIME=1, so each JSON "time" is the
# BPF program's bpf_ktime_get_ns() (CLOCK_MONOTONIC) taken when the symbol was
# added or deleted; ktbstamp reads the pipe and stamps each line with
# clock_gettime(CLOCK_MONOTONIC) right after the read(2) that completed it.
# One clock on both ends: no calibrated offset, no error from one.  Loads are
# paced (KTB_LAT loads, KTB_LAT_GAP_US apart), 4 records each.  ksymtap's
# peak RSS after this paced streaming is reported too.
. /ksymtap/bench_lib.sh

mkfifo lat.fifo
ktbstamp -m ktb_lat <lat.fifo >lat.txt &
SP=$!
export KSYMTAP_DEBUG_KTIME=1
ktb_start lat.fifo lat.err -f json
unset KSYMTAP_DEBUG_KTIME
out=$(ktbload cycle -n "$KTB_LAT" -W 0 -g "$KTB_LAT_GAP_US" -N ktb_lat) || fail "ktbload: $out"
sleep 1
bench memory.stream_paced.hwm_kb "$(status_kb $KT_PID VmHWM)"
bench memory.stream_paced.rss_kb "$(status_kb $KT_PID VmRSS)"
kt_stop
wait $SP || fail "ktbstamp: $(cat lat.txt)"
r=$(cat lat.txt)
note "loads: $out"
note "latency: $r"
[ "$(field negative "$r")" = 0 ] || fail "records stamped before their kernel time: clocks differ?"
bench latency.loads "$KTB_LAT"
bench latency.gap_us "$KTB_LAT_GAP_US"
for k in records lost min_ns p50_ns p99_ns max_ns mean_ns; do
	bench latency.$k "$(field $k "$r")"
done
[ "$(field records "$r")" -eq $((KTB_LAT * 4)) ] ||
	fail "expected $((KTB_LAT * 4)) records, got $(field records "$r")"
