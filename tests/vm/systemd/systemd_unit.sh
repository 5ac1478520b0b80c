#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# contrib/ksymtap.service under a real systemd (Debian bookworm's 252), as
# the README's deployment section says to install and use it: systemd-analyze
# verify is clean; the service starts with the capabilities the unit grants
# and serves the table; as documented, the group-read variant lets a member
# of ksymtap-readers read the table and the live records of a program loaded
# afterwards; the metrics file is written; systemctl stop ends it cleanly.
# Results on /dev/ttyS1 as inside.sh gives them (PASS/FAIL name, DONE).
exec 3>/dev/ttyS1
echo "INFO kernel $(uname -r), systemd $(systemctl --version | head -n 1 | awk '{print $2}')" >&3
BIN=/ksymtap/bin
U=/etc/systemd/system/ksymtap.service
S=/run/ksymtap/ksymtap.sock
log=/tmp/systemd_unit.log
exec >"$log" 2>&1
set -x

fail() {
	set +x
	echo "FAIL: $*"
	journalctl -u ksymtap --no-pager | tail -n 30
	echo "FAIL systemd_unit (exit 1)" >&3
	tail -n 80 "$log" | sed 's/^/  | /' >&3
	echo DONE >&3
	exit 1
}
wait_for() { # cmd... (up to 30 s)
	local i
	for i in $(seq 300); do "$@" && return 0; sleep 0.1; done
	return 1
}

start=$(date +%s)
out=$(systemd-analyze verify "$U" 2>&1) || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify is not clean: $out"
systemd-analyze security ksymtap.service --no-pager | tail -n 1 | sed 's/^/INFO security: /' >&3

# A program loaded before the service starts: it must be in the table.
$BIN/ktload -w /tmp/go0 $BIN/subprogs.bpf.o >/tmp/pre.txt &
wait_for grep -q '^loaded' /tmp/pre.txt || fail "workload did not load"
pre_id=$(awk '/^loaded kt_sock_main/ {print $4}' /tmp/pre.txt)

# 1. As shipped: root only.
systemctl start ksymtap || fail "systemctl start"
wait_for test -S $S || fail "no socket"
[ "$(stat -c %a $S)" = 600 ] || fail "socket mode $(stat -c %a $S), expected 600"
ksymtap tail -s $S --snapshot -f json >/tmp/root.json || fail "root client"
jq -e "select(.type_name == \"prog_load\" and .id == $pre_id)" /tmp/root.json | grep -q . ||
	fail "program $pre_id not in the table"
journalctl -u ksymtap --no-pager | grep 'ksymtap: ready' || fail "no ready line in the journal"
journalctl -u ksymtap --no-pager | grep -i 'ksymtap: error' && fail "an error in the journal"

# 2. The group-read variant, enabled exactly as the unit's comment says.
groupadd --system ksymtap-readers
useradd --no-create-home --groups ksymtap-readers tester
sed -i -e 's|^#Environment="KSYMTAP_SOCKET_OPTS=|Environment="KSYMTAP_SOCKET_OPTS=|' \
	-e 's|^#SupplementaryGroups=ksymtap-readers|SupplementaryGroups=ksymtap-readers|' "$U"
systemctl daemon-reload && systemctl restart ksymtap || fail "restart with the group-read variant"
wait_for test -S $S || fail "no socket after restart"
[ "$(stat -c '%a %G' $S)" = "660 ksymtap-readers" ] || fail "socket $(stat -c '%a %G' $S)"
runuser -u tester -- ksymtap tail -s $S -f json >/tmp/tester.json 2>/tmp/tester.err &
T=$!
wait_for grep -q snapshot_end /tmp/tester.json || fail "tester got no table: $(cat /tmp/tester.err)"
jq "select(.type_name == \"prog_load\" and .id == $pre_id)" /tmp/tester.json 2>/dev/null | grep -q . ||
	fail "tester: program $pre_id not in the table"
$BIN/ktload -w /tmp/go1 $BIN/subprogs.bpf.o >/tmp/load.txt &
wait_for grep -q '^loaded' /tmp/load.txt || fail "workload did not load"
id=$(awk '/^loaded kt_sock_main/ {print $4}' /tmp/load.txt)
has_load() { jq "select(.type_name == \"prog_load\" and .id == $1)" "$2" 2>/dev/null | grep -q .; }
wait_for has_load "$id" /tmp/tester.json ||
	fail "tester: live program $id not seen"
n=$(jq -c 'select(.kind == "ksymbol" and (.name | test("^bpf_prog_[0-9a-f]+_kt_(sock_main|sub_one|sub_two)$")))' \
	/tmp/tester.json 2>/dev/null | wc -l)
[ "$n" -ge 6 ] || fail "tester: $n images of the two programs, expected 6"
runuser -u nobody -- ksymtap tail -s $S --snapshot -f json >/dev/null 2>&1 &&
	fail "a user outside the group could read"
wait_for test -s /run/ksymtap/ksymtap.prom || fail "no metrics file"
grep -q '^ksymtap_records_total' /run/ksymtap/ksymtap.prom || fail "metrics"

# 3. systemctl stop: a clean end.
touch /tmp/go0 /tmp/go1
systemctl stop ksymtap || fail "systemctl stop"
[ "$(systemctl show -p Result --value ksymtap)" = success ] ||
	fail "stopped with Result=$(systemctl show -p Result --value ksymtap)"
[ "$(systemctl show -p ExecMainStatus --value ksymtap)" = 0 ] ||
	fail "exit status $(systemctl show -p ExecMainStatus --value ksymtap)"
[ -e $S ] && fail "socket left behind"
wait $T
set +x
echo "PASS systemd_unit ($(($(date +%s) - start))s)" >&3
echo DONE >&3
