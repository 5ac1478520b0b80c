#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# What an arm64 test VM needs besides build/arm64/: Debian bookworm's arm64
# busybox-static, bpftool, jq, perf (linux-perf, the same line as the host's) and
# setpriv (util-linux),
# with every library they load, unpacked into a cache directory whose path
# is printed: ~/.cache/ksymtap/arm64/root.  apt computes the package closure
# from an empty dpkg status (tests/vm/apt.sh); nothing is installed.
#
#   tests/vm/arm64root.sh [--no-update]
set -euo pipefail
update=1
[ "${1:-}" = --no-update ] && update=
. "$(dirname "$0")/apt.sh"
root=$kt_cache/arm64/root
want="busybox-static bpftool linux-perf util-linux jq"
stamp=$root/.packages

[ -n "$update" ] && kt_apt_update
# One builder at a time: VMs of several arm64 kernels start together.
exec 8>"$kt_cache/arm64.lock"
flock 8
B=("${A[@]}" -o APT::Architecture=arm64 -o APT::Default-Release=bookworm)
# The closure of the three, as apt would install them on an empty arm64
# system: "name version arch" per package.
mapfile -t pkgs < <(apt-get "${B[@]}" -q -s install --no-install-recommends $want 2>/dev/null |
	sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*\[\([a-z0-9]*\)\])\( \[\]\)*$/\1 \2 \3/p' | sed 's/:arm64 / /')
[ ${#pkgs[@]} -gt 0 ] || { echo "arm64root: apt resolved no packages for: $want" >&2; exit 2; }
names=$(printf '%s\n' "${pkgs[@]}" | sort)
if [ -x "$root/bin/busybox" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$names" ]; then
	echo "$root"
	exit 0
fi
echo "arm64root: fetching ${#pkgs[@]} arm64 packages" >&2
apt-get "${B[@]}" -q install --download-only --no-install-recommends -y $want >/dev/null
rm -rf "$root.new"
mkdir -p "$root.new"
for p in "${pkgs[@]}"; do
	read -r name ver arch <<<"$p"
	f=$kt_apt_state/archives/${name}_${ver//:/%3a}_$arch.deb
	[ -f "$f" ] || { echo "arm64root: $f not downloaded" >&2; exit 2; }
	dpkg-deb -x "$f" "$root.new"
done
echo "$names" >"$root.new/.packages"
rm -rf "$root"
mv "$root.new" "$root"
echo "$root"
