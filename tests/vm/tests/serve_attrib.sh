# ksymtap serve with the BPF backend: programs loaded from two cgroups named
# the way docker (systemd driver) and containerd under kubelet name theirs;
# two clients see every record of both with the right container runtime, id
# and pod UID (checked against the cgroup directories' inodes and bpftool);
# a late client gets both programs in its snapshot; unloads keep the loader's
# attribution; SIGTERM exits 0 and removes the socket.
. /ksymtap/lib.sh
need_bpf_backend

ID_D=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
ID_K=fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210
UID=1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b
UID_=$(echo $UID | tr - _)
CG=/sys/fs/cgroup
DOCKER=/system.slice/docker-$ID_D.scope
KUBE=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod$UID_.slice/cri-containerd-$ID_K.scope
mkdir -p "$CG$DOCKER" "$CG$KUBE" || fail "cannot make cgroups under $CG"
cg_d=$(stat -c %i "$CG$DOCKER")
cg_k=$(stat -c %i "$CG$KUBE")
note "docker cgroup id $cg_d, containerd cgroup id $cg_k"

S=/tmp/t/sock
ksymtap serve -s $S -v --metrics-file /tmp/t/m.prom --metrics-interval 0.5 >serve.out 2>serve.err &
SRV=$!
wait_for serve.err '^ksymtap: ready' 60 || { cat serve.err; fail "serve did not become ready"; }
grep -q '^ksymtap: ready: backend bpf;' serve.err || fail "not the bpf backend: $(grep ready serve.err)"
[ "$(stat -c %a $S)" = 600 ] || fail "socket mode $(stat -c %a $S)"

ksymtap tail -s $S >a.json 2>a.err &
A=$!
ksymtap tail -s $S -f json >b.json 2>b.err &
B=$!
wait_json a.json '.kind == "snapshot_end"' 10 && wait_json b.json '.kind == "snapshot_end"' 10 || fail "clients got no snapshot"

# Each loader joins its cgroup before it loads anything.
sh -c "echo \$\$ >$CG$DOCKER/cgroup.procs && exec ktload -w go1 $BIN/subprogs.bpf.o" >load1.txt &
L1=$!
sh -c "echo \$\$ >$CG$KUBE/cgroup.procs && exec ktload -w go2 $BIN/subprogs.bpf.o" >load2.txt &
L2=$!
wait_for load1.txt '^loaded' 30 && wait_for load2.txt '^loaded' 30 || fail "workloads did not load"
id1=$(awk '/^loaded kt_sock_main/ {print $4}' load1.txt)
id2=$(awk '/^loaded kt_sock_main/ {print $4}' load2.txt)
tag1=$(bpftool prog show id "$id1" | sed -n 's/.*tag \([0-9a-f]*\).*/\1/p')
tag2=$(bpftool prog show id "$id2" | sed -n 's/.*tag \([0-9a-f]*\).*/\1/p')
[ -n "$tag1" ] && [ -n "$tag2" ] || fail "bpftool does not know progs $id1 $id2"
note "docker loader pid $L1 prog $id1 tag $tag1; containerd loader pid $L2 prog $id2 tag $tag2"

want_d=".cgroup_id == $cg_d and .origin == \"bpf\" and .cgroup_path == \"$DOCKER\" and
	.container_runtime == \"docker\" and .container_id == \"$ID_D\" and .pod_uid == null"
want_k=".cgroup_id == $cg_k and .origin == \"bpf\" and .cgroup_path == \"$KUBE\" and
	.container_runtime == \"containerd\" and .container_id == \"$ID_K\" and .pod_uid == \"$UID\""

# check FILE ID TAG WANT KIND: the program's PROG_LOAD (or UNLOAD) has the
# attribution, and so has every KSYMBOL its loader's pid made.
check() {
	rec=".type_name == \"$5\" and .flags == 0 and .id == $2 and .tag == \"$3\""
	json_has "$1" "$rec" || fail "$1: no $5 of prog $2 tag $3"
	json_has "$1" "$rec and ($4)" ||
		fail "$1: $5 of prog $2 lacks its attribution: $(json_sel "$1" "$rec")"
}
for f in a.json b.json; do
	wait_json $f ".type_name == \"prog_load\" and .id == $id2" 10 || fail "$f: prog $id2 not seen"
	check $f "$id1" "$tag1" "$want_d" prog_load
	check $f "$id2" "$tag2" "$want_k" prog_load
	n1=$(json_count $f ".kind == \"ksymbol\" and .pid == $L1 and (.name | startswith(\"bpf_prog_\")) and ($want_d)")
	n2=$(json_count $f ".kind == \"ksymbol\" and .pid == $L2 and (.name | startswith(\"bpf_prog_\")) and ($want_k)")
	[ "$n1" -ge 3 ] && [ "$n2" -ge 3 ] || fail "$f: $n1 and $n2 attributed program images, expected 3 each"
done

# A late client: both programs in its snapshot, attributed.
ksymtap tail -s $S >c.json 2>c.err &
C=$!
wait_json c.json '.kind == "snapshot_end"' 10 || fail "late client: no snapshot"
jq -c 'select(.snapshot == true)' c.json >c.snap 2>/dev/null
check c.snap "$id1" "$tag1" "$want_d" prog_load
check c.snap "$id2" "$tag2" "$want_k" prog_load

touch go1 go2
wait $L1
wait $L2
for f in a.json b.json c.json; do
	wait_json $f ".type_name == \"prog_unload\" and .id == $id2" 10 &&
		wait_json $f ".type_name == \"prog_unload\" and .id == $id1" 10 || fail "$f: unloads not seen"
	check $f "$id1" "$tag1" "$want_d" prog_unload
	check $f "$id2" "$tag2" "$want_k" prog_unload
done
# The two clients that saw it all saw the same: the same table in the end,
# and the same records of the two loaders.  (What else the daemon passed on
# between their connects, a resync's records say, is in one's snapshot and
# in the other's stream, and the table's walk order may change with it.)
kt_replay a.json >a.table
kt_replay b.json >b.table
cmp -s a.table b.table || { diff a.table b.table | head; fail "clients a and b end with different tables"; }
json_sel a.json ".container_id == \"$ID_D\" or .container_id == \"$ID_K\"" >a.cmp
json_sel b.json ".container_id == \"$ID_D\" or .container_id == \"$ID_K\"" >b.cmp
cmp -s a.cmp b.cmp || { diff a.cmp b.cmp | head; fail "clients a and b differ"; }
note "$(grep -c . a.cmp) records on both clients, $(grep -c "$ID_D" a.cmp) docker, $(grep -c "$ID_K" a.cmp) containerd"

sleep 0.6
grep -q '^ksymtap_clients_connected 3$' /tmp/t/m.prom || fail "metrics: $(grep clients_connected /tmp/t/m.prom)"
grep -Eq '^ksymtap_hooks_live [1-9]' /tmp/t/m.prom || fail "metrics: $(grep hooks_live /tmp/t/m.prom)"
kill -TERM $SRV
wait $SRV
rc=$?
[ $rc -eq 0 ] || { cat serve.err; fail "serve exited $rc after SIGTERM"; }
[ -e $S ] && fail "socket left behind"
wait $A || fail "tail a exited $?"
wait $B || fail "tail b exited $?"
wait $C || fail "tail c exited $?"
grep -E 'attribution|error|warning' serve.err
exit 0
