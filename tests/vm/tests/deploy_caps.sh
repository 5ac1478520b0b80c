# The container deployment's privileges (contrib/ksymtap-daemonset.yaml): uid
# 0 with only CAP_BPF, CAP_PERFMON and CAP_SYSLOG (bounding set reduced, no
# new privileges), gid 10001, the host's cgroup tree read-only under
# --cgroup-root.  serve starts, gives a reader of group 10001 the whole table
# (a program loaded before it started included: no CAP_SYS_ADMIN to list
# programs by id) and live records, attributed to the pod; stream and record
# start too (util-linux setpriv; busybox has its own, smaller one).  Compared with bpftool (full privileges) and the cgroup tree.
. /ksymtap/lib.sh

CAPS=-all,+bpf,+perfmon,+syslog
AS_POD="/usr/bin/setpriv --regid 10001 --clear-groups --no-new-privs --inh-caps=-all --bounding-set=$CAPS"
AS_READER="/usr/bin/setpriv --reuid 1000 --regid 10001 --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all"

ID_K=fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210
UID=1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b
UID_=$(echo $UID | tr - _)
KUBE=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$UID_.slice/cri-containerd-$ID_K.scope
mkdir -p "/sys/fs/cgroup$KUBE" || fail "cannot make the pod's cgroup"
mkdir -p /host/sys/fs/cgroup /run/ksymtap/metrics
mount -o bind /sys/fs/cgroup /host/sys/fs/cgroup && mount -o remount,bind,ro /host/sys/fs/cgroup ||
	fail "cannot mount the cgroup tree at /host/sys/fs/cgroup"

# A program in the pod before the daemon starts: only the snapshot has it.
sh -c "echo \$\$ >/sys/fs/cgroup$KUBE/cgroup.procs && exec ktload -w go0 $BIN/subprogs.bpf.o" >pre.txt &
P0=$!
wait_for pre.txt '^loaded' 30 || fail "workload did not load"
pre_id=$(awk '/^loaded kt_sock_main/ {print $4}' pre.txt)

# Kernels before 5.11 charge BPF maps to RLIMIT_MEMLOCK: the runtime's
# ulimit (systemd: LimitMEMLOCK=) must allow them (README, Deployment).
kernel_at_least 5 11 || ulimit -l unlimited
S=/run/ksymtap/ksymtap.sock
# Where no hook can attach (arm64 before 6.4), everything comes from native
# perf records, and Debian's perf_event_paranoid=3 patch wants CAP_SYS_ADMIN
# for those: serve says so in one line and exits 1; the README's remedy is
# kernel.perf_event_paranoid=2.
if no_fentry && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ]; then
	$AS_POD ksymtap serve --socket=$S >p3.out 2>p3.err
	rc=$?
	[ $rc = 1 ] || fail "paranoid 3 without CAP_SYS_ADMIN: exit $rc, expected 1"
	[ "$(grep -c 'error' p3.err)" = 1 ] && grep -q 'perf_event_paranoid is 3.*CAP_SYS_ADMIN' p3.err ||
		fail "paranoid 3: not one error line naming it: $(cat p3.err)"
	sysctl -w kernel.perf_event_paranoid=2 >/dev/null || echo 2 >/proc/sys/kernel/perf_event_paranoid
	note "native records only here: kernel.perf_event_paranoid lowered to 2, as the README says"
fi
$AS_POD ksymtap serve --socket=$S --socket-mode=0660 --socket-group=10001 \
	--cgroup-root=/host/sys/fs/cgroup --metrics-file=/run/ksymtap/ksymtap.prom \
	>serve.out 2>serve.err &
SRV=$!
wait_for serve.err '^ksymtap: ready' 60 || { cat serve.err; fail "serve did not start with the pod's capabilities"; }
cat serve.err
grep -q '^ksymtap: error' serve.err && fail "an error at start-up"
caps=$(awk '/^CapEff/ {print $2}' /proc/$SRV/status)
[ "$caps" = 000000c400000000 ] || fail "serve runs with CapEff $caps, not just BPF, PERFMON, SYSLOG"
bpf=
grep -q '^ksymtap: ready: backend bpf' serve.err && bpf=1
if [ -n "$bpf" ]; then
	[ "$(grep -c 'CAP_SYS_ADMIN' serve.err)" = 1 ] ||
		fail "not one line saying what the lack of CAP_SYS_ADMIN costs"
fi
[ "$(stat -c '%a %g' $S)" = "660 10001" ] || fail "socket mode/group $(stat -c '%a %g' $S)"

$AS_READER ksymtap tail -s $S -f json >a.json 2>a.err &
A=$!
wait_for a.json snapshot_end 10 || fail "reader (uid 1000, gid 10001) got no table: $(cat a.err)"
# Without CAP_SYS_ADMIN programs are found through the snapshot's walker; a
# kernel that runs no walker (no fentry, no CONFIG_KALLSYMS_ALL for its list
# heads: Debian's arm64 6.1) leaves only kallsyms: images, no ids.
ids=1
if no_fentry && ! grep -q ' bpf_kallsyms$' /proc/kallsyms; then
	ids=
	grep -q 'come from /proc/kallsyms, their images without ids' serve.err ||
		fail "no warning that programs come without ids"
	note "no walker on this kernel: the table has the program's images, not its id"
else
	json_has a.json ".snapshot and .type_name == \"prog_load\" and .id == $pre_id" ||
		fail "program $pre_id, loaded before the start, is not in the table"
fi
nimg=$(json_count a.json '.snapshot and (.name | test("^bpf_prog_[0-9a-f]+_kt_(sock_main|sub_one|sub_two)$"))')
[ "$nimg" -ge 3 ] || fail "$nimg of its 3 images in the table"

sh -c "echo \$\$ >/sys/fs/cgroup$KUBE/cgroup.procs && exec ktload -w go1 $BIN/subprogs.bpf.o" >load.txt &
P1=$!
wait_for load.txt '^loaded' 30 || fail "workload did not load"
id=$(awk '/^loaded kt_sock_main/ {print $4}' load.txt)
wait_json a.json ".type_name == \"prog_load\" and .id == $id" 10 || fail "live program $id not seen"
if [ -n "$bpf" ]; then
	json_has a.json ".type_name == \"prog_load\" and .id == $id and .cgroup_path == \"$KUBE\" and
		.container_runtime == \"containerd\" and .container_id == \"$ID_K\" and .pod_uid == \"$UID\"" ||
		fail "program $id not attributed to its pod: $(json_sel a.json ".id == $id")"
else
	note "native backend here: no cgroup ids, attribution not checked"
fi
[ -s /run/ksymtap/ksymtap.prom ] || sleep 6
grep -q '^ksymtap_records_total' /run/ksymtap/ksymtap.prom || fail "no metrics file"
kill -TERM $SRV
wait $SRV || fail "serve exited $? on SIGTERM"
[ -e $S ] && fail "socket left behind"

# stream and record with the same capabilities: the table, the same program.
# (Without ids: the program's main image, by the name kallsyms gives it.)
main=$(awk '/ bpf_prog_[0-9a-f]+_kt_sock_main\t?/ {print $3; exit}' /proc/kallsyms)
$AS_POD ksymtap -d 1 -f json >s.json 2>s.err || fail "stream: $(cat s.err)"
if [ -n "$ids" ]; then
	json_has s.json ".snapshot and .type_name == \"prog_load\" and .id == $pre_id" ||
		fail "stream: program $pre_id not in its snapshot"
else
	json_has s.json ".snapshot and .name == \"$main\"" || fail "stream: $main not in its snapshot"
fi
$AS_POD ksymtap record -d 1 -o r.data 2>r.err || fail "record: $(cat r.err)"
if [ -n "$ids" ]; then
	perf report -D -i r.data 2>/dev/null | grep -q "PERF_RECORD_BPF_EVENT.* id $pre_id\$" ||
		fail "record: program $pre_id not in the file"
else
	perf report -D -i r.data 2>/dev/null | grep -q "PERF_RECORD_KSYMBOL .*name $main\$" ||
		fail "record: $main not in the file"
fi
touch go0 go1
wait $P0 $P1
note "uid 0 with BPF, PERFMON, SYSLOG: serve, stream and record start and list program $pre_id"
