#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The test runner behind `make test`: host unit tests, then the VM suite on
# each requested kernel.  Ends with one line "N passed, N failed, N skipped"
# over everything and exits non-zero on any failure.  A skip is never a pass.
#
#   tests/run.sh [--unit] [--san DIR] [--vm LINE]... [--pod LINE]...
#                [--vm-kernel PATH]... [--vm-arch amd64|arm64] [--only REGEX]
#   --san DIR: also the unit tests, the host tests and the fuzz corpora with
#   the sanitizer build in DIR (make SAN=1: build/asan); --vm-arch: of the
#   --vm-kernel images
#   LINE: 5.10 6.1 6.12 6.18 newest (tests/vm/kernels.sh), arm64:LINE for arm64;
#   each amd64 --vm LINE also boots the systemd suite (the package and its
#   unit); --pod LINE boots the pod suite (the DaemonSet under podman, amd64)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
unit= only= varch= san=
vms=()
while [ $# -gt 0 ]; do
	case $1 in
	--unit) unit=1; shift ;;
	--san) san=$2; shift 2 ;;
	--vm) vms+=("--line $2"); shift 2 ;;
	--pod) vms+=("--pod $2"); shift 2 ;;
	--vm-kernel) vms+=("--kernel $2"); shift 2 ;;
	--vm-arch) varch=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	*) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

pass=0 fail=0 skip=0
# Each failure's name, listed again just above the summary line, so the last
# lines of a long run (what CI shows) say which tests failed.
failures=$(mktemp)
trap 'rm -f "$failures"' EXIT
count() { # passed failed skipped
	pass=$((pass + $1)); fail=$((fail + $2)); skip=$((skip + $3))
}

# Unit test binaries in DIR; names prefixed with PREFIX.
run_units() { # dir prefix
	local t name out rc p f s start
	for t in "$1"/tests/unit/*/test_*; do
		[ -x "$t" ] || continue
		name=$2$(basename "$t")
		start=$SECONDS
		# --only: the cases whose "binary/case" name matches (tests/unit/unit.h).
		out=$(KT_UNIT_ONLY="$only" "$t" 2>&1)
		rc=$?
		p=$(grep -c '^PASS ' <<<"$out")
		f=$(grep -c '^FAIL ' <<<"$out")
		s=$(grep -c '^SKIP ' <<<"$out")
		# A binary that dies without saying FAIL still fails (a sanitizer's
		# report, a crash).
		if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
			f=1
			out+=$'\n'"FAIL $name: exited $rc"$'\n'"$(grep -E 'ERROR|runtime error|SUMMARY' <<<"$out" | head -n 5 | sed 's/^/  /')"
		fi
		grep -E '^(FAIL|SKIP) |^  ' <<<"$out" | sed "s|^|  [$name] |"
		grep '^FAIL ' <<<"$out" | sed "s|^FAIL |$name: |" >>"$failures"
		echo "  $name: $p passed, $f failed, $s skipped ($((SECONDS - start))s)"
		count "$p" "$f" "$s"
	done
}

# Host integration tests: scripts run against the real kernel of this machine
# (native perf records work here; tracing programs do not), with the ksymtap
# binary KT_BIN.  Exit 0 pass, 77 skip (after "SKIP: reason"), else fail.
run_hosts() { # ksymtap-binary prefix folder
	local t name out rc tmp start
	tmp=$(mktemp)
	for t in "$top"/tests/"${3:-host}"/*.sh; do
		[ -f "$t" ] || continue
		case $(basename "$t") in lib.sh | check-*.sh) continue ;; esac
		name=$2${3:-host}/$(basename "$t" .sh)
		if [ -n "$only" ] && ! grep -Eq "$only" <<<"$name"; then
			continue
		fi
		# A session of its own: whatever the test leaves running (a
		# daemon's forked child, say) is killed with it and cannot hold
		# the output open.
		start=$SECONDS
		(cd "$top" && KT_TOP="$top" KT_BIN="$1" exec setsid timeout -s KILL 300 bash "$t") \
			>"$tmp" 2>&1 &
		wait $!
		rc=$?
		kill -KILL -- -$! 2>/dev/null
		out=$(cat "$tmp")
		case $rc in
		0) echo "  PASS $name ($((SECONDS - start))s)"; count 1 0 0 ;;
		77) echo "  SKIP $name: $(grep '^SKIP:' <<<"$out" | tail -n 1 | sed 's/^SKIP: *//')"; count 0 0 1 ;;
		*) echo "  FAIL $name (exit $rc)"; echo "$name" >>"$failures"
		   tail -n 60 <<<"$out" | sed 's/^/    | /'; count 0 1 0 ;;
		esac
	done
	rm -f "$tmp"
}

# The host part: unit, host and lint tests; with --san the sanitizer build's
# unit and host tests and the fuzz corpora.  It runs while the first guests
# boot (below), in a slot of its own.
host_part() {
	if [ -n "$unit" ]; then
		echo "== unit tests (host)"
		run_units "$top/build" ""
		echo "== host tests"
		run_hosts "$top/build/ksymtap" ""
		# The checks of the tree and what it builds, once: they read the
		# sources and the plain build, not a ksymtap binary (layers, function
		# length, docs, help and man pages; the packages and the image; this
		# runner; each unit test case alone).
		echo "== lint"
		run_hosts "$top/build/ksymtap" "" lint
	fi
	if [ -n "$san" ]; then
		# Any report of AddressSanitizer, UndefinedBehaviorSanitizer or
		# LeakSanitizer ends its process non-zero: that test fails.
		export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
		echo "== unit tests, sanitizers ($san)"
		run_units "$top/$san" "asan/"
		echo "== host tests, sanitizers"
		run_hosts "$top/$san/ksymtap" "asan/"
		echo "== fuzz corpora, replayed once (tests/fuzz)"
		out=$("$top/tests/fuzz/run.sh" --replay "$top/$san/tests/fuzz")
		echo "$out"
		count "$(grep -c '^  PASS ' <<<"$out")" "$(grep -c '^  FAIL ' <<<"$out")" 0
		grep '^  FAIL ' <<<"$out" | sed 's/^  FAIL /fuzz: /' >>"$failures"
		[ -n "$(ls "$top/$san"/tests/fuzz/fuzz_* 2>/dev/null)" ] ||
			{ echo "  FAIL fuzz: no harness built in $san/tests/fuzz"; count 0 1 0
			  echo "fuzz: no harness built" >>"$failures"; }
	fi
}

# The host part starts first, in the background (its lines go straight to
# the output); the guests boot beside it.  On this 2-core machine the guests
# leave a quarter of the CPU idle (waits in the tests, make test at 134 % of
# 200 % on 2026-12-05), so the host part no longer adds its 4 min to the run.
host_counts=$(mktemp) host_failures=$(mktemp)
trap 'rm -f "$failures" "$host_counts" "$host_failures"' EXIT
(
	pass=0 fail=0 skip=0 failures=$host_failures
	host_part
	echo "$pass $fail $skip" >"$host_counts"
) &
host_pid=$!

# The kernel lines resolve to images first, with one refresh of the package
# lists (tests/vm/kernels.sh); then the kernels boot side by side, as many at
# once as there are CPUs (each guest runs single-threaded TCG, one host core),
# and their reports are printed in the order asked for, after the host part's.
vargs=() vname=() vout=() vcnt=() vpid=()
declare -A done_pid=()
for v in "${vms[@]}"; do
	case $v in
	"--line "*)
		line=${v#--line } arch=amd64
		case $line in arm64:*) arch=arm64 line=${line#arm64:} ;; esac
		if ! path=$("$top/tests/vm/kernels.sh" --arch $arch ${resolved:+--no-update} "$line" |
			cut -f 2); then
			echo "== VM tests: $line"
			echo "  FAIL vm: no kernel image for line $line (see above)"
			echo "vm: no kernel image for line $line" >>"$failures"
			count 0 1 0
			continue
		fi
		resolved=1
		vargs+=("--arch $arch --kernel $path")
		vname+=("$arch $line ($(basename "$(dirname "$path")"))")
		# contrib/ksymtap.service under a real systemd, on each amd64 line.
		if [ $arch = amd64 ] && { [ -z "$only" ] || grep -Eq "$only" <<<systemd_unit; }; then
			vargs+=("--arch amd64 --kernel $path --suite systemd")
			vname+=("amd64 $line ($(basename "$(dirname "$path")")), systemd")
		fi ;;
	"--pod "*)
		line=${v#--pod }
		{ [ -z "$only" ] || grep -Eq "$only" <<<pod_daemonset; } || continue
		if ! path=$("$top/tests/vm/kernels.sh" --arch amd64 ${resolved:+--no-update} "$line" |
			cut -f 2); then
			echo "== VM tests: $line, pod"
			echo "  FAIL vm: no kernel image for line $line (see above)"
			echo "vm: no kernel image for line $line" >>"$failures"
			count 0 1 0
			continue
		fi
		resolved=1
		vargs+=("--arch amd64 --kernel $path --suite pod")
		vname+=("amd64 $line ($(basename "$(dirname "$path")")), pod") ;;
	*) vargs+=("--arch ${varch:-amd64} $v") vname+=("${varch:-amd64} ${v#--kernel }") ;;
	esac
done
# arm64 guests share one unpacked root of Debian's arm64 busybox, bpftool,
# perf and setpriv: made (or refreshed) once here, not by each VM at once.
if grep -q -- '--arch arm64' <<<"${vargs[*]:-}"; then
	"$top/tests/vm/arm64root.sh" --no-update >/dev/null ||
		echo "  arm64 root could not be made (tests/vm/arm64root.sh)"
fi
# Likewise the Debian roots with systemd as init (tests/vm/systemd-root.sh,
# tests/vm/podman-root.sh).
if grep -q -- '--suite systemd' <<<"${vargs[*]:-}"; then
	"$top/tests/vm/systemd-root.sh" >/dev/null ||
		echo "  systemd root could not be made (tests/vm/systemd-root.sh)"
fi
if grep -q -- '--suite pod' <<<"${vargs[*]:-}"; then
	"$top/tests/vm/podman-root.sh" >/dev/null ||
		echo "  podman root could not be made (tests/vm/podman-root.sh)"
fi
# Longest first, so the last guest to start is a short one: under TCG an
# arm64 guest takes 2 to 4 times an amd64 one (measured 2026-12-03: arm64
# 648-1218 s, amd64 242-335 s), and within an arch the newest lines take
# longest. In the order asked (arm64 oldest first) the two slots ended
# 440 s apart; this order balances them.
order=()
for a in arm64 amd64; do
	for ((i = ${#vargs[@]} - 1; i >= 0; i--)); do
		case ${vargs[$i]} in "--arch $a "*) order+=("$i") ;; esac
	done
done
jobs=${KT_VM_JOBS:-$(nproc)}
# KT_VMTEST: what boots a guest (tests/lint/runner.sh puts a stand-in here
# to check the slots without booting one).
vmtest=${KT_VMTEST:-$top/tests/vm/vmtest.sh}
running=0
for i in "${order[@]}"; do
	vout[$i]=$(mktemp)
	vcnt[$i]=$(mktemp)
	# wait -n for the guests' own pids, not for any job: after run_hosts'
	# setsid subshells a bare wait -n returns at once (bash 5.2), and in CI
	# on b1fd0d5 all thirteen guests booted together on two cores, the pod
	# suite timed out and 30 tests failed.  tests/lint/runner.sh checks it.
	while [ "$running" -ge "$jobs" ]; do
		active=()
		for p in "${vpid[@]}"; do
			[ -n "${done_pid[$p]:-}" ] || active+=("$p")
		done
		wait -n -p gone "${active[@]}"
		done_pid[$gone]=1
		running=$((running - 1))
	done
	# shellcheck disable=SC2086
	"$vmtest" ${vargs[$i]} --counts "${vcnt[$i]}" ${only:+--only "$only"} \
		>"${vout[$i]}" 2>&1 &
	vpid[$i]=$!
	running=$((running + 1))
done
wait $host_pid
if [ -s "$host_counts" ]; then
	read -r p f s <"$host_counts"
	count "$p" "$f" "$s"
else
	echo "  FAIL the host part ended without its counts"
	echo "host part: ended without its counts" >>"$host_failures"
	count 0 1 0
fi
# The host part's failures first, as its lines came first.
cat "$failures" >>"$host_failures"
mv "$host_failures" "$failures"
for i in "${!vargs[@]}"; do
	wait "${vpid[$i]}"
	rc=$?
	echo "== VM tests: ${vname[$i]}"
	cat "${vout[$i]}"
	grep -E '^ *\[[^]]*\] FAIL ' "${vout[$i]}" | sed -E 's/^ *//; s/ *\([0-9]+s\)$//' >>"$failures"
	if [ -s "${vcnt[$i]}" ]; then
		read -r p f s <"${vcnt[$i]}"
		count "$p" "$f" "$s"
	elif [ $rc -ne 0 ]; then
		echo "  vmtest could not run: ${vname[$i]}"
		echo "vm: ${vname[$i]} could not run" >>"$failures"
		count 0 1 0
	fi
	rm -f "${vout[$i]}" "${vcnt[$i]}"
done

if [ -s "$failures" ]; then
	echo "failed:"
	cut -c 1-160 "$failures" | sed 's/^/  /'
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
