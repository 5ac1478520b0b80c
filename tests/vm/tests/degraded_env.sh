# Issue 15's bad inputs that need a kernel of their own: a host whose cgroup
# hierarchy is v1 only (no cgroup2 mount), and a kernel without
# /sys/kernel/btf/vmlinux.  In a private mount namespace, so that the VM's
# mounts stay as they are for the tests after this one.
# - cgroup v1 only: the records of a program this test loads are all there
#   (ktload's id, from bpf_prog_info), with their cgroup id and a null
#   cgroup_path;
# - no BTF: `-b bpf` is one line naming the file and exit 1; the default
#   (auto) falls back to native records, says so, and still sees the load.
. /ksymtap/lib.sh
if [ -z "$KT_PRIVATE_NS" ]; then
	KT_PRIVATE_NS=1 exec unshare -m sh "$0"
fi

loads() { # json-file id: the program's load and unload are in the file
	json_has "$1" ".kind == \"bpf_event\" and .type == 1 and .id == $2" &&
		json_has "$1" ".kind == \"bpf_event\" and .type == 2 and .id == $2"
}

# --- cgroup v1 only -------------------------------------------------------------
umount /sys/fs/cgroup || fail "cannot unmount the cgroup2 mount"
if mount -t cgroup -o none,name=kt cgroup /sys/fs/cgroup 2>/dev/null; then
	note "a named cgroup v1 hierarchy at /sys/fs/cgroup"
else
	mount -t tmpfs none /sys/fs/cgroup || fail "cannot cover /sys/fs/cgroup"
	note "no cgroup v1 here: /sys/fs/cgroup is a tmpfs (no cgroup2 either)"
fi
kt_start v1.json -f json -v
ktload -t 300 $BIN/subprogs.bpf.o >load1.txt || fail "workload: $(cat load1.txt)"
id=$(awk '/^loaded kt_sock_main/ {print $4}' load1.txt)
sleep 0.5
kt_stop
grep -q 'is not a cgroup2 mount; cgroup paths are unknown' v1.json.err ||
	fail "no -v line saying cgroup paths are unknown: $(cat v1.json.err)"
loads v1.json "$id" || fail "v1 only: program $id's load or unload missing"
# Native records carry no cgroup id (arm64 6.1: no hooks): only the path
# is checked there.
cg='.cgroup_id > 0 and '
no_fentry && cg=
json_has v1.json ".id == $id and .type == 1 and $cg.cgroup_path == null" ||
	fail "v1 only: program $id's load has no cgroup id, or a path: $(json_sel v1.json ".id == $id")"
umount /sys/fs/cgroup
mount -t cgroup2 cgroup2 /sys/fs/cgroup

# --- no /sys/kernel/btf/vmlinux --------------------------------------------------
mount -t tmpfs none /sys/kernel/btf || fail "cannot cover /sys/kernel/btf"
[ ! -e /sys/kernel/btf/vmlinux ] || fail "vmlinux BTF still visible"
ksymtap -b bpf -d 1 >bpf.out 2>bpf.err
rc=$?
cat bpf.err
[ $rc -eq 1 ] || fail "-b bpf without BTF exited $rc, not 1"
[ "$(grep -c . bpf.err)" -eq 1 ] || fail "-b bpf without BTF: not one line"
grep -q '^ksymtap: error: .*kernel has no BTF (/sys/kernel/btf/vmlinux: No such file or directory' bpf.err ||
	fail "-b bpf without BTF: the line does not name the file"
kt_start auto.json -f json
grep 'bpf backend unavailable' auto.json.err
grep -q 'ready: backend native' auto.json.err || fail "auto did not fall back to native: $(cat auto.json.err)"
no_fentry || grep -q 'bpf backend unavailable: .*no BTF' auto.json.err ||
	fail "auto: the fallback does not say why"
# ktprog: the raw bpf(2) syscall (libbpf's CO-RE needs the BTF).
ktprog -n kt_nobtf -t 300 >load2.txt || fail "workload: $(cat load2.txt)"
id=$(awk '{print $2}' load2.txt)
sleep 0.5
kt_stop
loads auto.json "$id" || fail "no BTF, native records: program $id's load or unload missing"
umount /sys/kernel/btf
note "cgroup v1 only and no BTF: records complete, errors as documented"
