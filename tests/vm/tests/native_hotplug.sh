# Issue 4: the native backend watches CPUs that come online after it started
# (it re-reads the online mask every second), and keeps getting records from a
# CPU that went offline and came back.
. /ksymtap/lib.sh
CPU1=/sys/devices/system/cpu/cpu1/online
[ -w $CPU1 ] || skip "cpu1 cannot be taken offline here"

echo 0 >$CPU1 || fail "cpu1 offline"
kt_start out.json -b native -f json -v
echo 1 >$CPU1 || fail "cpu1 online"
sleep 2.5
grep -q 'came online' out.json.err || { cat out.json.err; fail "no note of cpu1 coming online"; }
taskset -c 1 ktprog -n kt_hot1 -t 100 >hot1.txt || fail "ktprog on cpu1"

# Offline and back: the event stays, the kernel resumes it.
echo 0 >$CPU1 && echo 1 >$CPU1 || fail "cpu1 cycle"
sleep 2.5
taskset -c 1 ktprog -n kt_hot2 -t 100 >hot2.txt || fail "ktprog on cpu1 after the cycle"
sleep 0.5
kt_stop
cat out.json.err

for f in hot1.txt hot2.txt; do
	read -r _ id _ tag _ addr _ len _ name <$f
	json_has out.json ".kind == \"ksymbol\" and .cpu == 1 and .addr == \"0x$addr\" and .len == $len and
		.name == \"bpf_prog_${tag}_$name\"" ||
		fail "$name (id $id) loaded on cpu1 is not reported from cpu1"
	json_has out.json ".kind == \"bpf_event\" and .type == 1 and .id == $id" || fail "no PROG_LOAD for $name"
done
