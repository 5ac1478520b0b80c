#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The Debian package (make deb) under a real systemd (Debian bookworm's
# 252), as the README's Install section says to use it: dpkg -i makes the
# socket's reader group (sysusers.d), enables and starts ksymtap.service;
# systemd-analyze verify is clean; the service runs with the capabilities
# the unit grants and serves the table; as documented, the group-read
# drop-in lets a member of ksymtap-readers read the table and the live
# records of a program loaded afterwards; Prometheus's node exporter reads
# the metrics file through its textfile collector; systemctl stop ends it
# cleanly; dpkg --purge removes what the package made.  Then the README's
# from-source way: make install's tree (staged by vmtest.sh), then
# systemd-sysusers && systemctl daemon-reload && systemctl enable --now.
# Results on /dev/ttyS1 as inside.sh gives them (PASS/FAIL name, DONE).
exec 3>/dev/ttyS1
echo "INFO kernel $(uname -r), systemd $(systemctl --version | head -n 1 | awk '{print $2}')" >&3
BIN=/ksymtap/bin
U=/lib/systemd/system/ksymtap.service
S=/run/ksymtap/ksymtap.sock
log=/tmp/systemd_unit.log
exec >"$log" 2>&1
set -x

# fail, wait_until (tests/lib.sh); a failure also says the unit's journal
# and this log on the results port.
. /ksymtap/common.sh
on_fail() {
	set +x
	journalctl -u ksymtap --no-pager | tail -n 30
	echo "FAIL systemd_unit (exit 1)" >&3
	tail -n 80 "$log" | sed 's/^/  | /' >&3
	echo DONE >&3
}

start=$(date +%s)
# A program loaded before the package is installed: it must be in the table.
$BIN/ktload -w /tmp/go0 $BIN/subprogs.bpf.o >/tmp/pre.txt &
wait_until 30 grep -q '^loaded' /tmp/pre.txt || fail "workload did not load"
pre_id=$(awk '/^loaded kt_sock_main/ {print $4}' /tmp/pre.txt)

# 1. Install: the group, the unit enabled and started (Debian's policy for
# daemons), man pages and docs in place.
dpkg -i /ksymtap/ksymtap.deb || fail "dpkg -i"
getent group ksymtap-readers || fail "the package made no group ksymtap-readers"
[ "$(systemctl is-enabled ksymtap)" = enabled ] || fail "not enabled on install"
wait_until 30 test -S $S || fail "no socket after install: $(systemctl status ksymtap --no-pager)"
[ "$(systemctl is-active ksymtap)" = active ] || fail "not active after install"
for f in /usr/bin/ksymtap /usr/share/man/man8/ksymtap.8.gz /usr/share/man/man8/ksymtap-serve.8.gz \
	/usr/share/doc/ksymtap/README.md.gz /usr/share/doc/ksymtap/copyright; do
	[ -e $f ] || fail "the package did not install $f"
done
out=$(systemd-analyze verify "$U" 2>&1) || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify is not clean: $out"
systemd-analyze security ksymtap.service --no-pager | tail -n 1 | sed 's/^/INFO security: /' >&3
caps=$(awk '/^CapEff/ {print $2}' /proc/"$(systemctl show -p MainPID --value ksymtap)"/status)
[ "$caps" = 000000c400000000 ] || fail "the service runs with CapEff $caps, not just BPF, PERFMON, SYSLOG"

# 2. As shipped: root only.
[ "$(stat -c %a $S)" = 600 ] || fail "socket mode $(stat -c %a $S), expected 600"
ksymtap tail -s $S --snapshot -f json >/tmp/root.json || fail "root client"
jq -e "select(.type_name == \"prog_load\" and .id == $pre_id)" /tmp/root.json | grep -q . ||
	fail "program $pre_id not in the table"
journalctl -u ksymtap --no-pager | grep 'ksymtap: ready' || fail "no ready line in the journal"
journalctl -u ksymtap --no-pager | grep -i 'ksymtap: error' && fail "an error in the journal"

# 3. The group-read variant, as the README says: a drop-in (systemctl edit).
useradd --no-create-home --groups ksymtap-readers tester
mkdir -p /etc/systemd/system/ksymtap.service.d
cat >/etc/systemd/system/ksymtap.service.d/readers.conf <<'EOF'
[Service]
Environment="KSYMTAP_SOCKET_OPTS=--socket-mode=0660 --socket-group=ksymtap-readers"
SupplementaryGroups=ksymtap-readers
EOF
systemctl daemon-reload && systemctl restart ksymtap || fail "restart with the group-read drop-in"
wait_until 30 test -S $S || fail "no socket after restart"
[ "$(stat -c '%a %G' $S)" = "660 ksymtap-readers" ] || fail "socket $(stat -c '%a %G' $S)"
runuser -u tester -- ksymtap tail -s $S -f json >/tmp/tester.json 2>/tmp/tester.err &
T=$!
wait_until 30 grep -q snapshot_end /tmp/tester.json || fail "tester got no table: $(cat /tmp/tester.err)"
jq "select(.type_name == \"prog_load\" and .id == $pre_id)" /tmp/tester.json 2>/dev/null | grep -q . ||
	fail "tester: program $pre_id not in the table"
$BIN/ktload -w /tmp/go1 $BIN/subprogs.bpf.o >/tmp/load.txt &
wait_until 30 grep -q '^loaded' /tmp/load.txt || fail "workload did not load"
id=$(awk '/^loaded kt_sock_main/ {print $4}' /tmp/load.txt)
has_load() { jq "select(.type_name == \"prog_load\" and .id == $1)" "$2" 2>/dev/null | grep -q .; }
wait_until 30 has_load "$id" /tmp/tester.json ||
	fail "tester: live program $id not seen"
n=$(jq -c 'select(.kind == "ksymbol" and (.name | test("^bpf_prog_[0-9a-f]+_kt_(sock_main|sub_one|sub_two)$")))' \
	/tmp/tester.json 2>/dev/null | wc -l)
[ "$n" -ge 6 ] || fail "tester: $n images of the two programs, expected 6"
runuser -u nobody -- ksymtap tail -s $S --snapshot -f json >/dev/null 2>&1 &&
	fail "a user outside the group could read"

# 4. The metrics file, through node exporter's textfile collector.
wait_until 30 test -s /run/ksymtap/ksymtap.prom || fail "no metrics file"
prometheus-node-exporter --web.listen-address=127.0.0.1:9100 --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory=/run/ksymtap >/tmp/ne.log 2>&1 &
NE=$!
scrape() { curl -sf --max-time 5 http://127.0.0.1:9100/metrics >/tmp/ne.txt; }
wait_until 30 scrape || fail "node exporter does not answer: $(cat /tmp/ne.log)"
grep -q '^node_textfile_scrape_error 0$' /tmp/ne.txt || fail "node exporter: $(grep textfile /tmp/ne.txt)"
grep -q '^ksymtap_records_total{kind="bpf_event",source="bpf_prog"} [1-9]' /tmp/ne.txt ||
	fail "node exporter does not pass ksymtap's records_total on"
grep -q '^ksymtap_backend_info{backend="bpf"} 1$' /tmp/ne.txt || fail "node exporter: backend_info"
kill $NE

# 5. systemctl stop: a clean end.
touch /tmp/go0 /tmp/go1
systemctl stop ksymtap || fail "systemctl stop"
[ "$(systemctl show -p Result --value ksymtap)" = success ] ||
	fail "stopped with Result=$(systemctl show -p Result --value ksymtap)"
[ "$(systemctl show -p ExecMainStatus --value ksymtap)" = 0 ] ||
	fail "exit status $(systemctl show -p ExecMainStatus --value ksymtap)"
[ -e $S ] && fail "socket left behind"
wait $T

# 6. Purge: what the package made goes (the tester left the group first).
userdel tester
rm -r /etc/systemd/system/ksymtap.service.d
systemctl start ksymtap || fail "start before purge"
dpkg --purge ksymtap || fail "dpkg --purge"
[ -e /usr/bin/ksymtap ] && fail "purge left /usr/bin/ksymtap"
[ -e $U ] && fail "purge left the unit"
[ -e $S ] && fail "purge left the socket (the service still running?)"
systemctl is-active ksymtap && fail "the service still runs after purge"
ls /etc/systemd/system/multi-user.target.wants/ksymtap.service 2>/dev/null && fail "purge left the enablement"
getent group ksymtap-readers && fail "purge left the group ksymtap-readers"

# 7. From source, as the README says: make install (PREFIX=/usr/local),
# then its second line, word for word.
cp -a /ksymtap/source-install/. / || fail "copying make install's tree"
systemd-sysusers && systemctl daemon-reload && systemctl enable --now ksymtap ||
	fail "make install: systemd-sysusers && systemctl daemon-reload && systemctl enable --now ksymtap"
getent group ksymtap-readers || fail "make install: systemd-sysusers made no group ksymtap-readers"
wait_until 30 test -S $S || fail "make install: no socket: $(systemctl status ksymtap --no-pager)"
systemctl show -p ExecStart --value ksymtap | grep -q 'path=/usr/local/bin/ksymtap ' ||
	fail "make install: the unit does not run /usr/local/bin/ksymtap"
$BIN/ktload -w /tmp/go2 $BIN/subprogs.bpf.o >/tmp/src.txt &
wait_until 30 grep -q '^loaded' /tmp/src.txt || fail "workload did not load"
id=$(awk '/^loaded kt_sock_main/ {print $4}' /tmp/src.txt)
/usr/local/bin/ksymtap tail -s $S --snapshot -f json >/tmp/src.json || fail "make install: client"
has_load "$id" /tmp/src.json || fail "make install: program $id not in the table"
touch /tmp/go2
systemctl disable --now ksymtap || fail "make install: systemctl disable --now"
[ "$(systemctl show -p Result --value ksymtap)" = success ] ||
	fail "make install: stopped with Result=$(systemctl show -p Result --value ksymtap)"
set +x
echo "PASS systemd_unit ($(($(date +%s) - start))s)" >&3
echo DONE >&3
