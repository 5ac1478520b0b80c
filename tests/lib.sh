# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# What every test script shares, host, guest (busybox sh) and node suites
# alike: a test exits 0 to pass, 77 to skip (after "SKIP: reason"), anything
# else to fail (after "FAIL: reason").  tests/host/lib.sh and tests/vm/lib.sh
# source it; in the guests it is /ksymtap/common.sh.
#
# A suite that must say more on a failure (the node suites: the journal, the
# results port) defines on_fail before it calls fail.

fail() {
	echo "FAIL: $*"
	if command -v on_fail >/dev/null 2>&1; then
		on_fail
	fi
	exit 1
}
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "# $*"; }

# Wait until FILE contains PATTERN (grep -E, binary files too), up to SEC seconds.
wait_for() { # file pattern sec
	local i=0
	while [ $i -lt $(($3 * 10)) ]; do
		grep -aEq "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# Wait until CMD succeeds, up to SEC seconds.
wait_until() { # sec cmd...
	local i=0 n=$(($1 * 10))
	shift
	while [ $i -lt $n ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
