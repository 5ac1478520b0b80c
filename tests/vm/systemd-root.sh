#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A minimal Debian bookworm root with systemd as init, for the VM test of
# the Debian package and its unit under a real systemd (tests/vm/vmtest.sh
# --suite systemd): debootstrap --variant=minbase from Debian's archive, plus
# systemd-sysv, Prometheus's node exporter (it reads the metrics file), curl
# and jq; documentation and locales left out.  Built once and cached as
# ~/.cache/ksymtap/systemd-root/root (amd64); its path is printed.  The
# package list is part of the cache's key.
#
#   tests/vm/systemd-root.sh
set -euo pipefail
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ksymtap/systemd-root
root=$cache/root
pkgs=systemd-sysv,systemd,dbus,util-linux,passwd,prometheus-node-exporter,curl,jq,man-db
if [ -x "$root/lib/systemd/systemd" ] && [ "$(cat "$cache/.done" 2>/dev/null)" = "$pkgs" ]; then
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
echo "systemd-root: debootstrap bookworm (minbase + systemd + node exporter), once" >&2
debootstrap --variant=minbase --include="$pkgs" \
	bookworm "$root.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$cache/debootstrap.log" >&2; exit 2; }
rm -rf "$root.tmp"/usr/share/{doc,info,locale} "$root.tmp"/var/cache/apt/archives/*.deb \
	"$root.tmp"/var/lib/apt/lists/*
# The test starts node exporter itself, on the metrics file's directory.
rm -f "$root.tmp"/etc/systemd/system/multi-user.target.wants/prometheus-node-exporter*
mv "$root.tmp" "$root"
echo "$pkgs" >"$cache/.done"
echo "$root"
