#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A minimal Debian bookworm root with systemd as init, for the VM test of
# contrib/ksymtap.service under a real systemd (tests/vm/vmtest.sh --suite
# systemd).  debootstrap --variant=minbase from Debian's archive, plus
# systemd-sysv; documentation and locales left out.  Built once and cached
# as ~/.cache/ksymtap/systemd-root/root (amd64); its path is printed.
#
#   tests/vm/systemd-root.sh
set -euo pipefail
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ksymtap/systemd-root
root=$cache/root
if [ -x "$root/lib/systemd/systemd" ] && [ -e "$cache/.done" ]; then
	echo "$root"
	exit 0
fi
command -v debootstrap >/dev/null || { echo "systemd-root: debootstrap not found (make deps)" >&2; exit 2; }
mirror=http://deb.debian.org/debian
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
	mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
rm -rf "$cache"
mkdir -p "$cache"
echo "systemd-root: debootstrap bookworm (minbase + systemd), once" >&2
debootstrap --variant=minbase --include=systemd-sysv,systemd,dbus,util-linux,passwd \
	bookworm "$root.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$cache/debootstrap.log" >&2; exit 2; }
rm -rf "$root.tmp"/usr/share/{doc,man,info,locale} "$root.tmp"/var/cache/apt/archives/*.deb \
	"$root.tmp"/var/lib/apt/lists/*
mv "$root.tmp" "$root"
touch "$cache/.done"
echo "$root"
