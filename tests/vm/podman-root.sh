#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# A Kubernetes-like node for the VM test of the DaemonSet's pod
# (tests/vm/vmtest.sh --suite pod): Debian trixie (stable) with systemd as
# init and podman 5 with crun, conmon and catatonit, the runtime pieces a
# CRI-O node has, plus curl and jq for the test.  Trixie, not the host's
# bookworm: bookworm's podman 4.3 reads neither a DaemonSet nor hostPID
# (podman#17168, 4.5).  debootstrap --variant=minbase from Debian's archive;
# documentation and locales left out.  Built once and cached as
# ~/.cache/ksymtap/podman-root/root (amd64); its path is printed.  The
# package list is part of the cache's key: change it and the root is made
# anew.
#
#   tests/vm/podman-root.sh
set -euo pipefail
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ksymtap/podman-root
root=$cache/root
pkgs=systemd-sysv,systemd,dbus,util-linux,passwd,podman,crun,conmon,catatonit,curl,jq,ca-certificates
if [ -x "$root/usr/bin/podman" ] && [ "$(cat "$cache/.done" 2>/dev/null)" = "$pkgs" ]; then
	echo "$root"
	exit 0
fi
command -v debootstrap >/dev/null || { echo "podman-root: debootstrap not found (make deps)" >&2; exit 2; }
mirror=http://deb.debian.org/debian
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
	mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
rm -rf "$cache"
mkdir -p "$cache"
echo "podman-root: debootstrap trixie (minbase + systemd + podman), once" >&2
debootstrap --variant=minbase --include="$pkgs" \
	trixie "$root.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$cache/debootstrap.log" >&2; exit 2; }
rm -rf "$root.tmp"/usr/share/{doc,man,info,locale} "$root.tmp"/var/cache/apt/archives/*.deb \
	"$root.tmp"/var/lib/apt/lists/*
# The VM's root is its initramfs (a tmpfs): overlayfs on it is not what a
# node's disk gives, and the images here are small, so podman copies (vfs).
# And the root cannot be pivoted away from (pivot_root(2) refuses the
# initramfs' rootfs): the runtime chroots instead.  A node's root is a real
# file system, where neither is needed.
mkdir -p "$root.tmp/etc/containers"
printf '[engine]\nno_pivot_root = true\n' >"$root.tmp/etc/containers/containers.conf"
printf '[storage]\ndriver = "vfs"\nrunroot = "/run/containers/storage"\ngraphroot = "/var/lib/containers/storage"\n' \
	>"$root.tmp/etc/containers/storage.conf"
mv "$root.tmp" "$root"
echo "$pkgs" >"$cache/.done"
echo "$root"
