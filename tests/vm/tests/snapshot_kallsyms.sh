# --kallsyms FILE equals /proc/kallsyms's dynamic entries after each step of a
# workload: a program and an ftrace trampoline made before the start, fentry (a
# BPF trampoline), XDP on lo (the dispatcher), another ftrace instance with the
# function tracer (an ftrace trampoline), a kprobe (kprobe pages), then
# everything unloaded, including what existed before the start.
. /ksymtap/lib.sh
T=/sys/kernel/tracing
T0=$(date +%s)

check() { # step
	local i=0
	while [ $i -lt 50 ]; do
		kallsyms_dyn >kernel.$1
		sort kf >ours.$1 2>/dev/null
		if cmp -s kernel.$1 ours.$1; then
			note "$1: $(wc -l <kernel.$1) dynamic symbols agree (t=$(($(date +%s) - T0)) s)"
			return 0
		fi
		sleep 0.2
		i=$((i + 1))
	done
	diff kernel.$1 ours.$1
	fail "$1: --kallsyms file differs from /proc/kallsyms (< kernel, > ksymtap)"
}

ktload -w go0 $BIN/subprogs.bpf.o >pre.txt &
P0=$!
wait_for pre.txt '^loaded' 30 || fail "workload did not load"
# An ftrace trampoline born before the hooks: only the snapshot knows it, and
# its death must still be seen.
mkdir $T/instances/kt0 || fail "no tracefs instances"
echo schedule >$T/instances/kt0/set_ftrace_filter
echo function >$T/instances/kt0/current_tracer
pre_tramp=$(awk '$3 == "ftrace_trampoline" { print $1; exit }' /proc/kallsyms)
! ftrace_tramps || [ -n "$pre_tramp" ] || fail "no ftrace trampoline before the start"

kt_start out.json -f json --kallsyms kf
[ -f kf ] || fail "no kallsyms file at the ready line"
check start
! ftrace_tramps || grep -q ftrace_trampoline ours.start ||
	fail "the ftrace trampoline made before the start is not listed"
# The format is /proc/kallsyms's own, line for line.
grep -q "^[0-9a-f]\{16\} t bpf_prog_[0-9a-f]\{16\}_kt_sock_main$(printf '\t')\[bpf\]\$" kf ||
	fail "kt_sock_main line not in kallsyms format: $(grep kt_sock_main kf)"

if no_fentry; then
	note "arm64 before 6.4: no fentry, no BPF trampoline step"
	true &
	P1=$!
else
	ktload -w go1 -a $BIN/fentry.bpf.o >fentry.txt &
	P1=$!
	wait_for fentry.txt '^attached kt_fexit_probe' 30 || fail "fentry did not attach"
	check fentry
fi

ktload -w go2 -x lo $BIN/xdp.bpf.o >xdp.txt &
P2=$!
wait_for xdp.txt '^xdp attached' 30 || fail "xdp did not attach: $(cat xdp.txt)"
check xdp
grep -q 'bpf_dispatcher_xdp' kf || note "no bpf_dispatcher_xdp in kallsyms on this kernel"

n0=$(grep -c ftrace_trampoline kf)
mkdir $T/instances/kt
echo do_sys_openat2 >$T/instances/kt/set_ftrace_filter
echo function >$T/instances/kt/current_tracer
check ftrace
! ftrace_tramps || [ "$(grep -c ftrace_trampoline kf)" -gt "$n0" ] ||
	fail "no new ftrace_trampoline after enabling the function tracer"

# A kprobe past the fentry site (+5, or +9 behind IBT's endbr64) needs an
# instruction slot; one on the fentry site would use ftrace instead.
kprobe=$(kprobe_add kt_k1) || fail "no int3 kprobe offset in vfs_read accepted"
echo 1 >$T/events/kprobes/kt_k1/enable
check kprobe
grep -q 'kprobe_insn_page\|kprobe_optinsn_page' kf || fail "no kprobe page after a kprobe at vfs_read+$kprobe"

echo nop >$T/instances/kt/current_tracer
rmdir $T/instances/kt
echo nop >$T/instances/kt0/current_tracer
rmdir $T/instances/kt0
if [ -n "$kprobe" ]; then
	echo 0 >$T/events/kprobes/kt_k1/enable
	echo '-:kt_k1' >>$T/kprobe_events
fi
touch go0 go1 go2
note "unloading (t=$(($(date +%s) - T0)) s)"
wait $P0 $P1 $P2
check unload
grep -q kt_sock_main kf && fail "kt_sock_main still listed after unload"
# (check unload compared the file with the kernel, which says whether it died)
if [ -z "$pre_tramp" ]; then
	note "no ftrace trampolines on this architecture"
elif grep -q "^$pre_tramp " kernel.unload; then
	note "the ftrace trampoline from before the start outlived its tracer"
else
	note "the ftrace trampoline from before the start died and left the file"
fi
kt_stop
note "stopped (t=$(($(date +%s) - T0)) s)"
