#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The DaemonSet's pod, run by a real container runtime (podman 5 on a Debian
# trixie node with systemd, tests/vm/podman-root.sh): the image `make image`
# wrote, loaded as the README says; contrib/ksymtap-daemonset.yaml played
# exactly as it is written, with one flag it does not say (below, with its
# reason).  Checks: the ready line with the BPF backend; the socket as the
# manifest asks (mode 0660, group 10001); a program loaded by a process in
# another container reaches a `ksymtap tail` in a third container that
# shares only the socket's group (uid 20001, no capability, read-only),
# attributed to the loader's container; the metrics over HTTP and in the
# file; a stop that ends the daemon with status 0 and removes the socket.
# Results on /dev/ttyS1 as inside.sh gives them (PASS/FAIL name, DONE).
exec 3>/dev/ttyS1
K=/ksymtap
S=/run/ksymtap/ksymtap.sock
log=/tmp/pod_test.log
exec >"$log" 2>&1
set -x
echo "INFO kernel $(uname -r), $(podman --version)" >&3

# fail, wait_until (tests/lib.sh); a failure also says the pod's state and
# this log on the results port.
. /ksymtap/common.sh
on_fail() {
	set +x
	podman ps -a
	podman logs ksymtap-pod-ksymtap 2>&1 | tail -n 20
	echo "FAIL pod_daemonset (exit 1)" >&3
	tail -n 80 "$log" | sed 's/^/  | /' >&3
	echo DONE >&3
}
start=$(date +%s)

# The node's image store gets the image as the README's "Install" says.
out=$(podman load -i $K/ksymtap.oci.tar) || fail "podman load: $out"
img=$(sed -n 's/^Loaded image: //p' <<<"$out" | head -n 1)
[ -n "$img" ] || fail "podman load named no image: $out"
podman tag "$img" localhost/ksymtap:latest || fail "podman tag"
[ "$(podman run --rm --network none localhost/ksymtap:latest --version)" = "ksymtap $(cat $K/version)" ] ||
	fail "the image's ksymtap is not this build's"

# The containers this test adds beside the pod need no network: --network
# none (the VM has no bridge for podman's default network).
# The loader: a container of its own (ktload, static, and the object it loads).
tar -C $K/loader -c . | podman import - localhost/kt-loader:test >/dev/null || fail "podman import"

# The pod, as contrib/ writes it.  --network host: this VM has no pod
# network (the kernel's bridge, veth and nf_tables modules are not in its
# root), which every node has; nothing else is added to the manifest.
podman kube play --network host $K/ksymtap-daemonset.yaml || fail "podman kube play"
ready() { podman logs ksymtap-pod-ksymtap 2>&1 | grep -q '^ksymtap: ready'; }
wait_until 120 ready || fail "no ready line"
podman logs ksymtap-pod-ksymtap 2>&1 | grep '^ksymtap: ready: backend bpf;' ||
	fail "not the BPF backend: $(podman logs ksymtap-pod-ksymtap 2>&1 | grep ready)"
podman logs ksymtap-pod-ksymtap 2>&1 | grep -i 'ksymtap: error' && fail "an error in the pod's log"
[ "$(stat -c '%a %g' $S)" = "660 10001" ] || fail "socket $(stat -c '%a %g' $S), want 660 10001"
# What the manifest asks of the container, as the runtime made it.
caps=$(podman inspect ksymtap-pod-ksymtap --format '{{.EffectiveCaps}}')
[ "$caps" = "[CAP_BPF CAP_PERFMON CAP_SYSLOG]" ] || fail "capabilities $caps"
[ "$(podman inspect ksymtap-pod-ksymtap --format '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.PidMode}}')" = "true host" ] ||
	fail "not read-only or not hostPID: $(podman inspect ksymtap-pod-ksymtap --format '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.PidMode}}')"

# A third container, sharing only the socket's group: uid 20001, gid 10001,
# no capability, its own PID namespace, read-only.
podman run -d --name kt-tail --network none --user 20001:10001 --cap-drop ALL --read-only \
	--security-opt no-new-privileges -v /run/ksymtap:/run/ksymtap localhost/ksymtap:latest \
	tail -s $S -f json >/dev/null || fail "the tail container did not start"
got_table() { podman logs kt-tail 2>/dev/null | grep -q snapshot_end; }
wait_until 60 got_table || fail "the tail container got no table: $(podman logs kt-tail 2>&1 | tail -n 5)"

# A program loaded in a container of its own.
mkdir -p /tmp/kt-go
podman run -d --name kt-loader --network none --cap-drop ALL --cap-add BPF --cap-add PERFMON \
	-v /tmp/kt-go:/go localhost/kt-loader:test /ktload -w /go/now /subprogs.bpf.o >/dev/null ||
	fail "the loader container did not start"
loaded() { podman logs kt-loader 2>/dev/null | grep -q '^loaded kt_sock_main'; }
wait_until 60 loaded || fail "the loader loaded nothing: $(podman logs kt-loader 2>&1 | tail -n 5)"
id=$(podman logs kt-loader 2>/dev/null | awk '/^loaded kt_sock_main/ {print $4}')
cid=$(podman inspect kt-loader --format '{{.Id}}')
seen() {
	podman logs kt-tail 2>/dev/null |
		jq -e "select(.type_name == \"prog_load\" and .id == $id)" >/tmp/load.json 2>/dev/null
}
wait_until 30 seen || fail "the tail container never saw PROG_LOAD $id"
cat /tmp/load.json
[ "$(jq -r .container_id /tmp/load.json)" = "$cid" ] ||
	fail "PROG_LOAD $id attributed to container $(jq -r .container_id /tmp/load.json), the loader is $cid"
[ "$(jq -r .container_runtime /tmp/load.json)" = podman ] ||
	fail "runtime $(jq -r .container_runtime /tmp/load.json)"
[ "$(jq -r .comm /tmp/load.json)" = ktload ] || fail "comm $(jq -r .comm /tmp/load.json)"
echo "INFO PROG_LOAD $id reached the tail container (uid 20001), attributed to the loader's container ${cid:0:12} ($(jq -r .cgroup_path /tmp/load.json))" >&3

# The metrics: over HTTP (the manifest's --metrics-listen) and in the file.
curl -sS --max-time 10 http://127.0.0.1:9847/metrics >/tmp/m.txt || fail "GET /metrics"
grep -q '^ksymtap_backend_info{backend="bpf"} 1$' /tmp/m.txt || fail "metrics: backend_info"
grep -q '^ksymtap_clients_accepted_by_uid_total{uid="20001"} 1$' /tmp/m.txt ||
	fail "metrics: the tail container (uid 20001) not counted: $(grep by_uid /tmp/m.txt)"
[ -s /run/ksymtap/ksymtap.prom ] || fail "no metrics file"
grep -q "^ksymtap_records_total" /run/ksymtap/ksymtap.prom || fail "metrics file"

# The stop: SIGTERM, status 0, the socket gone, the client told (it ends 0).
touch /tmp/kt-go/now
podman pod stop -t 30 ksymtap-pod || fail "podman pod stop"
[ "$(podman inspect ksymtap-pod-ksymtap --format '{{.State.ExitCode}}')" = 0 ] ||
	fail "the daemon exited $(podman inspect ksymtap-pod-ksymtap --format '{{.State.ExitCode}}')"
[ -e $S ] && fail "the socket was left behind"
echo "INFO $(podman logs ksymtap-pod-ksymtap 2>&1 | grep -c .) lines of the pod's log; stopped with status 0, socket removed" >&3
[ "$(podman wait kt-tail)" = 0 ] || fail "the tail container did not end with 0"
podman kube down $K/ksymtap-daemonset.yaml || fail "podman kube down"
set +x
echo "PASS pod_daemonset ($(($(date +%s) - start))s)" >&3
echo DONE >&3
