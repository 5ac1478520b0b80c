#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Boot a kernel under QEMU and run tests/vm/tests/*.sh inside it, like the
# kernel's tools/testing/selftests/bpf/vmtest.sh.  The guest is a busybox
# initramfs with build/ksymtap, the test programs, bpftool and perf (with the
# libraries ldd lists).  Results come back on the second serial port, the
# console on the first; the run fails on any failing test, a kernel panic, or
# a timeout.
#
#   tests/vm/vmtest.sh --line LINE         newest Debian kernel of a line
#                                         (5.10 6.1 6.12 6.18 newest: kernels.sh)
#   tests/vm/vmtest.sh --kernel PATH       any bzImage/vmlinuz
#   --arch amd64|arm64 (default amd64): arm64 boots qemu-system-aarch64 -M
#            virt with build/arm64/ and Debian's arm64 busybox, bpftool and
#            perf (tests/vm/arm64root.sh)
#   options: --counts FILE (write "passed failed skipped"), --timeout SEC,
#            --only REGEX (tests to run), --keep (leave the work dir),
#            --verbose (show the output of passing tests too),
#            --suite tests|bench|systemd|pod|soak (default tests; systemd: the
#            package and its unit under a real systemd, amd64; pod: the
#            DaemonSet under podman, amd64; soak: tests/soak/, make soak), --test-timeout SEC (per
#            test script, default 180), --bench-out FILE (append the guest's
#            "BENCH key=value" lines to FILE), --env NAME=VALUE (exported to
#            the tests; repeatable), --icount (deterministic TCG: one host
#            thread, guest clocks count executed instructions, 1 ns each, so
#            host load does not enter guest timings)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ksymtap
line= kernel= counts= timeout=${KT_VM_TIMEOUT:-} only= keep= suite=tests verbose= arch=amd64
# Single-threaded TCG by default: with thread=multi guests hung and once died
# executing half of a just-patched instruction (docs/kernel-facts.md).
test_timeout=180 bench_out= guest_env= accel=(-accel "tcg,thread=${KT_VM_TCG_THREAD:-single}")
mem=${KT_VM_MEM:-1G}

die() { echo "vmtest: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--line) line=$2; shift 2 ;;
	--arch) arch=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--counts) counts=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--verbose) verbose=1; shift ;;
	--suite) suite=$2; shift 2 ;;
	--test-timeout) test_timeout=$2; shift 2 ;;
	--bench-out) bench_out=$2; shift 2 ;;
	--icount) accel=(-accel tcg,thread=single -icount shift=0,sleep=off); shift ;;
	--env) guest_env+="export ${2%%=*}='${2#*=}'"$'\n'; shift 2 ;;
	-h|--help) sed -n '3,25p' "$0"; exit 0 ;;
	*) die "unknown argument '$1'" ;;
	esac
done
[ -n "$line$kernel" ] || die "need --line LINE or --kernel PATH"

case $arch in
amd64|x86|x86_64) arch=amd64 qemu=qemu-system-x86_64 bdir=$top/build make_hint=make ;;
arm64|aarch64) arch=arm64 qemu=qemu-system-aarch64 bdir=$top/build/arm64 make_hint="make ARCH=arm64" ;;
*) die "unknown architecture '$arch' (amd64 or arm64)" ;;
esac
for t in $qemu busybox cpio; do
	command -v $t >/dev/null || die "$t not found (run 'make deps' as root)"
done
[ -x "$bdir/ksymtap" ] || die "${bdir#$top/}/ksymtap missing (run '$make_hint')"
# arm64: the guest's busybox, bpftool and perf are Debian's arm64 builds.
aroot=
if [ $arch = arm64 ]; then
	aroot=$("$top/tests/vm/arm64root.sh" ${KT_KERNELS_NO_UPDATE:+--no-update}) ||
		die "no arm64 busybox/bpftool/perf (tests/vm/arm64root.sh)"
fi

# A kernel line's newest Debian image (tests/vm/kernels.sh, cached outside
# the repo).  KT_KERNELS_NO_UPDATE: the caller refreshed the package lists.
resolve_line() {
	"$top/tests/vm/kernels.sh" --arch $arch ${KT_KERNELS_NO_UPDATE:+--no-update} "$1" |
		cut -f 2
}

if [ -n "$line" ]; then
	kernel=$(resolve_line "$line") || die "no kernel for line $line"
fi
[ -r "$kernel" ] || die "kernel image '$kernel' not readable"
kname=$(basename "$(dirname "$kernel")")
[ "$kname" = . ] && kname=$(basename "$kernel")
kname=${kname#linux-image-}
kname=${kname#linux-binary-unsigned-}
kname=${kname%-unsigned}
# A kernel image given by path: tell the architectures apart in names.
case $kname in *-$arch) ;; *) [ $arch = arm64 ] && kname=$kname-arm64 ;; esac
# What the report lines are marked with: the kernel, and the suite when it is
# not the test suite (three suites boot the same kernel in one make test).
label=$kname
[ "$suite" = tests ] || label="$kname $suite"

# One directory per run: two runs on the same kernel (make test beside make
# bench) must not share an initramfs.
work=$top/build/vm/$kname.$suite.$$
rm -rf "$work"
mkdir -p "$work/root"
root=$work/root

# --- initramfs ------------------------------------------------------------
copy_with_libs() { # binary [dest]
	local bin=$1 dest=${2:-$1} lib
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$bin" "$root$dest"
	for lib in $(ldd "$bin" 2>/dev/null | awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# The same for a foreign (arm64) binary from the unpacked root $aroot: its
# DT_NEEDED libraries, transitively, and its interpreter, from there.
copy_foreign_with_libs() { # path-in-aroot
	local todo=("$1") seen=" " f lib d path
	mkdir -p "$root$(dirname "$1")"
	cp -L "$aroot$1" "$root$1"
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for lib in $(readelf -d "$aroot$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') \
			$(readelf -l "$aroot$f" 2>/dev/null | sed -n 's/.*interpreter: \(.*\)\]/\1/p'); do
			case $seen in *" $lib "*) continue ;; esac
			seen+="$lib "
			path=
			if [ "${lib#/}" != "$lib" ]; then
				path=$lib
			else
				for d in /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /lib /usr/lib; do
					[ -e "$aroot$d/$lib" ] && path=$d/$lib && break
				done
			fi
			if [ -z "$path" ] || [ ! -e "$aroot$path" ]; then
				echo "vmtest: $lib (needed by $f) not in $aroot" >&2
				continue
			fi
			mkdir -p "$root$(dirname "$path")"
			cp -L "$aroot$path" "$root$path"
			todo+=("$path")
		done
	done
}

# A Debian root with systemd as init (SRC, made by tests/vm/*-root.sh) and a
# unit that runs SCRIPT (as /ksymtap/test.sh) once the system is up, reports
# on the second serial port and powers off.
node_root() { # src script
	[ $arch = amd64 ] || die "--suite $suite: amd64 only (no arm64 node root)"
	rm -rf "$root"
	cp -a "$1" "$root"
	install -m 0644 "$top/tests/vm/systemd/kt-test.service" "$root/etc/systemd/system/"
	mkdir -p "$root/etc/systemd/system/multi-user.target.wants" "$root/ksymtap/bin"
	ln -sf /etc/systemd/system/kt-test.service \
		"$root/etc/systemd/system/multi-user.target.wants/kt-test.service"
	install -m 0755 "$2" "$root/ksymtap/test.sh"
	install -m 0644 "$top/tests/lib.sh" "$root/ksymtap/common.sh"
	# No login prompts or units this test does not need.
	ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
	ln -sf /dev/null "$root/etc/systemd/system/getty@tty1.service"
	: >"$root/etc/machine-id"
	# systemd's 90 s start timeout is a real machine's: a TCG guest on a
	# busy host took 123 s to fail systemd-modules-load and then lost
	# journald to the timeout (CI, 2026-12-04), and the test never came.
	mkdir -p "$root/etc/systemd/system.conf.d"
	printf '[Manager]\nDefaultTimeoutStartSec=15min\n' >"$root/etc/systemd/system.conf.d/kt-tcg.conf"
}

# --suite systemd: the Debian package (make deb) installed with dpkg into a
# bookworm root (tests/vm/systemd-root.sh), as the README's Install says,
# then tests/vm/systemd/systemd_unit.sh.
systemd_root() {
	local sroot deb
	deb=$(ls "$top"/build/deb/ksymtap_*_amd64.deb 2>/dev/null | head -n 1)
	[ -f "$deb" ] || die "--suite systemd: no build/deb/ksymtap_*_amd64.deb (make deb)"
	sroot=$("$top/tests/vm/systemd-root.sh") || die "no systemd root (tests/vm/systemd-root.sh)"
	node_root "$sroot" "$top/tests/vm/systemd/systemd_unit.sh"
	cp "$deb" "$root/ksymtap/ksymtap.deb"
	# The README's from-source way too: make install, staged here (its
	# prerequisites are built: -o keeps make from touching them while
	# other guests copy them), copied to / in the guest.
	make -s -C "$top" -o all -o man install DESTDIR="$root/ksymtap/source-install" \
		PREFIX=/usr/local >/dev/null || die "--suite systemd: make install failed"
	for f in ktload subprogs.bpf.o; do
		cp "$bdir/tests/vm/$f" "$root/ksymtap/bin/"
	done
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/initramfs.cpio"
}

# --suite pod: contrib/ksymtap-daemonset.yaml under podman on a trixie node
# (tests/vm/podman-root.sh) with the image make image wrote, and a loader
# image (ktload, static, and what it loads): tests/vm/pod/pod_test.sh.
pod_root() {
	local proot oci
	oci=$(ls "$top"/build/image/ksymtap-*.oci.tar 2>/dev/null | head -n 1)
	[ -f "$oci" ] || die "--suite pod: no build/image/ksymtap-*.oci.tar (make image)"
	proot=$("$top/tests/vm/podman-root.sh") || die "no podman root (tests/vm/podman-root.sh)"
	node_root "$proot" "$top/tests/vm/pod/pod_test.sh"
	cp "$oci" "$root/ksymtap/ksymtap.oci.tar"
	cp "$top/contrib/ksymtap-daemonset.yaml" "$root/ksymtap/"
	"$bdir/ksymtap" --version | cut -d' ' -f2 >"$root/ksymtap/version"
	mkdir -p "$root/ksymtap/loader"
	cp "$bdir/tests/vm/ktload" "$bdir/tests/vm/subprogs.bpf.o" "$root/ksymtap/loader/"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/initramfs.cpio"
}

# A node suite takes 40 to 70 s here (2026-12-04) and gets 15 minutes; the
# test suites take up to 20 minutes (arm64) and get 30.
if [ "$suite" = systemd ]; then
	systemd_root
	mem=${KT_VM_MEM:-2G} timeout=${timeout:-900}
elif [ "$suite" = pod ]; then
	pod_root
	mem=${KT_VM_MEM:-3G} timeout=${timeout:-900}
else
timeout=${timeout:-1800}
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,run,etc,root,usr/bin,usr/sbin,ksymtap}
if [ $arch = arm64 ]; then
	cp "$aroot/bin/busybox" "$root/bin/busybox"
else
	cp "$(command -v busybox)" "$root/bin/busybox"
fi
# The host's busybox lists the applets (the same Debian version).
for a in $(busybox --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
cp "$bdir/ksymtap" "$root/ksymtap/ksymtap"
ln -s /ksymtap/ksymtap "$root/usr/bin/ksymtap"
cp -r "$top/tests/vm/lib.sh" "$top/tests/vm/inside.sh" "$root/ksymtap/"
cp "$top/tests/lib.sh" "$root/ksymtap/common.sh"
mkdir -p "$root/ksymtap/tests" "$root/ksymtap/bin"
if [ "$suite" = bench ]; then
	# run.sh is the host side; lib.sh the scripts' helpers.
	for f in "$top"/tests/bench/*.sh; do
		case $(basename "$f") in
		run.sh) ;;
		lib.sh) cp "$f" "$root/ksymtap/bench_lib.sh" ;;
		*) cp "$f" "$root/ksymtap/tests/" ;;
		esac
	done
	for f in "$bdir"/tests/bench/*; do
		[ -f "$f" ] && cp "$f" "$root/ksymtap/bin/"
	done
elif [ "$suite" = soak ]; then
	cp "$top"/tests/soak/*.sh "$root/ksymtap/tests/"
else
	cp "$top"/tests/vm/tests/*.sh "$root/ksymtap/tests/"
fi
for f in "$bdir"/tests/vm/* "$bdir"/tests/bench/ktbload; do
	[ -f "$f" ] && cp "$f" "$root/ksymtap/bin/"
done
if [ $arch = arm64 ]; then
	copy_foreign_with_libs /usr/sbin/bpftool
	copy_foreign_with_libs /usr/bin/perf
	copy_foreign_with_libs /usr/bin/setpriv
	copy_foreign_with_libs /usr/bin/jq
else
	copy_with_libs "$(command -v bpftool)" /usr/sbin/bpftool
	# Debian's /usr/bin/perf is the binary itself (linux-perf 6.1).
	copy_with_libs "$(readlink -f "$(command -v perf)")" /usr/bin/perf
	# util-linux's, for the deployment tests' reduced capabilities.
	copy_with_libs "$(command -v setpriv)" /usr/bin/setpriv
	# The tests read ksymtap's JSON with a real parser.
	copy_with_libs "$(command -v jq)" /usr/bin/jq
	# The OTLP test's receiver (tests/otlp, make deps): node and the
	# modules receiver.js loads, for the otlp_export test.
	otlp=$top/tests/otlp
	if [ "$suite" = tests ] && command -v node >/dev/null &&
		[ -d "$otlp/node_modules/@opentelemetry/otlp-transformer" ]; then
		copy_with_libs "$(readlink -f "$(command -v node)")" /usr/bin/node
		mkdir -p "$root/ksymtap/otlp/node_modules/@opentelemetry/otlp-transformer/build/src"
		cp "$otlp"/receiver.js "$otlp"/compare.js "$root/ksymtap/otlp/"
		cp -r "$otlp"/node_modules/protobufjs "$otlp"/node_modules/@protobufjs \
			"$otlp"/node_modules/long "$root/ksymtap/otlp/node_modules/"
		cp "$otlp"/node_modules/@opentelemetry/otlp-transformer/package.json \
			"$root/ksymtap/otlp/node_modules/@opentelemetry/otlp-transformer/"
		cp -r "$otlp"/node_modules/@opentelemetry/otlp-transformer/build/src/generated \
			"$root/ksymtap/otlp/node_modules/@opentelemetry/otlp-transformer/build/src/"
	fi
fi
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
cat >"$root/init" <<INIT
#!/bin/sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin:/ksymtap/bin
${guest_env}exec /ksymtap/inside.sh "$only" "$verbose" "$test_timeout"
INIT
chmod +x "$root/init" "$root/ksymtap/inside.sh"
(cd "$root" && find . | cpio -o -H newc --quiet) >"$work/initramfs.cpio"
fi

# --- boot -----------------------------------------------------------------
console=$work/console.log results=$work/results.txt
: >"$console"
: >"$results"
echo "vmtest: booting $label (qemu tcg, timeout ${timeout}s)" >&2
start=$(date +%s)
set +e
cmdline="quiet panic=-1 oops=panic softlockup_panic=1"
rdinit=
case $suite in systemd | pod) rdinit=" rdinit=/sbin/init" ;; esac
if [ $arch = arm64 ]; then
	# -M virt has one UART: results share it with the console, each line
	# marked (inside.sh, kt.results=console), and the kernel keeps quieter.
	# pauth-impdef: Debian's arm64 kernels sign every return address
	# (CONFIG_ARM64_PTR_AUTH_KERNEL), and TCG emulates the architected
	# QARMA5 for each one; QEMU's own cheaper algorithm keeps pointer
	# authentication on and the guest unchanged (issue 31: suite time).
	timeout --foreground -k 5 "$timeout" qemu-system-aarch64 \
		"${accel[@]}" -M virt -cpu max,pauth-impdef=on -m "$mem" -smp 2 \
		-kernel "$kernel" -initrd "$work/initramfs.cpio" \
		-append "console=ttyAMA0 $cmdline loglevel=${KT_VM_LOGLEVEL:-1} kt.results=console" \
		-display none -monitor none -no-reboot \
		-serial "file:$console" </dev/null
	qrc=$?
	sed -n 's/\r$//; s/.*@KT@ //p' "$console" >"$results"
else
	timeout --foreground -k 5 "$timeout" qemu-system-x86_64 \
		"${accel[@]}" -cpu max -m "$mem" -smp 2 \
		-kernel "$kernel" -initrd "$work/initramfs.cpio" \
		-append "console=ttyS0 $cmdline loglevel=${KT_VM_LOGLEVEL:-5}${rdinit}" \
		-display none -monitor none -no-reboot \
		-serial "file:$console" -serial "file:$results" </dev/null
	qrc=$?
fi
set -e
elapsed=$(($(date +%s) - start))

# --- results --------------------------------------------------------------
pass=0 fail=0 skip=0
# The hook_table test's lines, kept for make hook-table.
hooks=$top/build/vm/$kname.hooks
: >"$hooks.tmp"
while IFS= read -r l; do
	l=${l%$'\r'}
	case $l in
	"PASS "*) pass=$((pass + 1)); echo "  [$label] $l" ;;
	"FAIL "*) fail=$((fail + 1)); echo "  [$label] $l" ;;
	"SKIP "*) skip=$((skip + 1)); echo "  [$label] $l" ;;
	"  | "*) echo "  [$label] $l" ;;
	"INFO "*) echo "  [$label] $l" ;;
	"HOOK "*) echo "${l#HOOK }" >>"$hooks.tmp" ;;
	"BENCH "*) echo "  [$label] $l"
		if [ -n "$bench_out" ]; then echo "$kname ${l#BENCH }" >>"$bench_out"; fi ;;
	esac
done <"$results"

if [ -s "$hooks.tmp" ]; then mv "$hooks.tmp" "$hooks"; else rm -f "$hooks.tmp"; fi
problem=
if grep -q "Kernel panic" "$console"; then
	problem="kernel panic (see $console)"
elif [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	problem="timed out after ${timeout}s (see $console)"
elif ! grep -q "^DONE" "$results"; then
	problem="guest stopped before the suite finished (qemu exit $qrc; see $console)"
fi
if [ -n "$problem" ]; then
	fail=$((fail + 1))
	echo "  [$label] FAIL vm: $problem"
	tail -n 20 "$console" | sed "s/^/  [$label]   console: /"
fi
echo "vmtest: $label: $pass passed, $fail failed, $skip skipped in ${elapsed}s" >&2
[ -n "$counts" ] && echo "$pass $fail $skip" >"$counts"
[ -n "$keep" ] || rm -rf "$root" "$work/initramfs.cpio"
# The newest run's logs stay reachable under the plain kernel name.
[ -L "$top/build/vm/$kname" ] || rm -rf "$top/build/vm/$kname"
ln -sfn "$(basename "$work")" "$top/build/vm/$kname"
[ $fail -eq 0 ]
