#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Resolve kernel lines to Debian kernel images, download what is not cached,
# and print one "LINE<TAB>PATH" per line asked for.  The package lists live in
# a private apt state under ~/.cache/ksymtap/apt (the system's apt sources are
# never touched) and are refreshed at every run, so "newest" is whatever
# Debian has published today: a new kernel that breaks a hook shows up in
# make test by itself.  Offline, the lists (and images) already cached are
# used, with a warning.
#
#   tests/vm/kernels.sh [--arch amd64|arm64] [--no-update] LINE...
#
# LINE: 5.10 (bullseye), 6.1, 6.12 (bookworm), 6.18 (trixie-backports),
# newest (the highest version in trixie-backports or sid), or an exact
# package name.  Images are cached as ~/.cache/ksymtap/kernels/PACKAGE/vmlinuz.
set -euo pipefail

arch=amd64 update=1
die() { echo "kernels: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=$2; shift 2 ;;
	--no-update) update=; shift ;;
	-h|--help) sed -n '3,16p' "$0"; exit 0 ;;
	-*) die "unknown option '$1'" ;;
	*) break ;;
	esac
done
case $arch in
x86|x86_64|amd64) arch=amd64 ;;
arm64|aarch64) arch=arm64 ;;
*) die "unknown architecture '$arch' (amd64 or arm64)" ;;
esac
[ $# -gt 0 ] || die "no kernel line given (5.10 6.1 6.12 6.18 newest)"

. "$(dirname "$0")/apt.sh"
cache=$kt_cache
mkdir -p "$cache/kernels"
[ -n "$update" ] && kt_apt_update

packages() {
	apt-cache "${A[@]}" search --names-only '^linux-(image|binary-unsigned)-[0-9]' 2>/dev/null |
		awk '{print $1}'
}

# The newest package of a line (sort -V on the whole name: the version
# comes first after a common prefix).
resolve() { # line
	local a=$arch all
	all=$(packages)
	case $1 in
	5.10) grep -E "^linux-image-5\.10\.0-[0-9]+-$a-unsigned\$" <<<"$all" | sort -V | tail -n 1 ;;
	6.1) grep -E "^linux-image-6\.1\.0-[0-9]+-$a-unsigned\$" <<<"$all" | sort -V | tail -n 1 ;;
	6.12) grep -E "^linux-image-6\.12\.[0-9]+\+deb12-$a-unsigned\$" <<<"$all" | sort -V | tail -n 1 ;;
	6.18) grep -E "^linux-image-6\.18\.[0-9]+\+deb13-$a\$" <<<"$all" | sort -V | tail -n 1 ;;
	newest)
		# From 7.x the image is in linux-binary-unsigned-VERSION-ARCH and
		# linux-image-VERSION-ARCH is a meta package; before, the image
		# package holds it.  The highest version of either name.
		sed -nE "s/^linux-(binary-unsigned|image)-([0-9]+\.[0-9]+\.[0-9]+\+deb[0-9]+(\.[0-9]+)?)-$a(-unsigned)?\$/\2 &/p" <<<"$all" |
			sort -V -k1,1 | awk -v v="" '{ if ($1 != v) { v = $1; best = $2 } else if ($2 ~ /binary-unsigned/) best = $2 } END { print best }' ;;
	linux-*) grep -Fx "$1" <<<"$all" || true ;;
	*) die "unknown kernel line '$1' (5.10 6.1 6.12 6.18 newest, or a package name)" ;;
	esac
}

# Cached image of a line when the lists have nothing (offline, no lists yet).
cached() { # line
	local pat
	case $1 in
	5.10) pat="linux-image-5.10.0-*-$arch-unsigned" ;;
	6.1) pat="linux-image-6.1.0-*-$arch-unsigned" ;;
	6.12) pat="linux-image-6.12.*+deb12-$arch-unsigned" ;;
	6.18) pat="linux-image-6.18.*+deb13-$arch" ;;
	newest) pat="linux-*-[7-9].*-$arch" ;;
	*) pat=$1 ;;
	esac
	(cd "$cache/kernels" && ls -d $pat 2>/dev/null | sort -V | tail -n 1) || true
}

fetch() { # package -> path of its vmlinuz
	local pkg=$1 dir=$cache/kernels/$1 tmp member
	if [ -s "$dir/vmlinuz" ]; then
		echo "$dir/vmlinuz"
		return
	fi
	echo "kernels: downloading $pkg" >&2
	tmp=$(mktemp -d "$cache/kernels/.dl.XXXXXX")
	(cd "$tmp" && apt-get "${A[@]}" -q download "$pkg" >"$tmp/log" 2>&1) ||
		{ cat "$tmp/log" >&2; rm -rf "$tmp"; die "apt-get download $pkg failed"; }
	# ./boot/vmlinuz-* (up to 6.x), ./usr/lib/modules/*/vmlinuz* (7.x).
	member=$(dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -t |
		grep -E '^\./boot/vmlinuz-|^\./usr/lib/modules/[^/]+/vmlinuz' | head -n 1)
	[ -n "$member" ] || { rm -rf "$tmp"; die "$pkg holds no kernel image"; }
	dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" "$member"
	mkdir -p "$dir"
	mv "$tmp/$member" "$dir/vmlinuz.tmp" && mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
	rm -rf "$tmp"
	echo "$dir/vmlinuz"
}

for line in "$@"; do
	pkg=$(resolve "$line")
	if [ -z "$pkg" ]; then
		pkg=$(cached "$line")
		[ -n "$pkg" ] || die "no Debian kernel package for line $line ($arch) and none cached"
		echo "kernels: no package for $line in the lists; using cached $pkg" >&2
	fi
	printf '%s\t%s\n' "$line" "$(fetch "$pkg")"
done
