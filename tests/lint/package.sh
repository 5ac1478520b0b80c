#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# What ships (make deb, make image, make install), as Debian's and the OCI
# tools read it: lintian finds no error and no warning in either .deb; each
# holds the binary of its architecture (reporting the package's version),
# every man page of docs/man, the unit pointed at /usr/bin, the sysusers.d
# file and the docs; the OCI archive is one index of an amd64 and an arm64
# image FROM scratch, each /ksymtap alone (the build's own binary), with its
# entrypoint and org.opencontainers.image labels; make install puts the same
# files under any PREFIX.  Installing, starting and purging the package
# under a real systemd is the systemd VM test's (tests/vm/systemd/).
. "${KT_TOP:-.}/tests/host/lib.sh"
top=${KT_TOP:-.}
for t in lintian dpkg-deb jq; do
	command -v $t >/dev/null || skip "$t missing (make deps)"
done
tmpdir
head=$(git -C "$top" rev-parse --short HEAD)

# --- the packages ----------------------------------------------------------------
for a in amd64 arm64; do
	deb=$(ls "$top"/build/deb/ksymtap_*_$a.deb 2>/dev/null)
	[ -f "$deb" ] || fail "no build/deb/ksymtap_*_$a.deb (make deb)"
	ver=$(dpkg-deb -f "$deb" Version)
	case $ver in *"$head"*) ;; *) fail "$deb: version $ver does not name HEAD ($head)" ;; esac
	[ "$(dpkg-deb -f "$deb" Architecture)" = $a ] || fail "$deb: architecture"
	dpkg-deb -x "$deb" "$T/$a" || fail "dpkg-deb -x $deb"
	for f in usr/bin/ksymtap lib/systemd/system/ksymtap.service usr/lib/sysusers.d/ksymtap.conf \
		usr/share/doc/ksymtap/README.md.gz usr/share/doc/ksymtap/copyright \
		usr/share/doc/ksymtap/docs/security.md.gz; do
		[ -e "$T/$a/$f" ] || fail "$deb lacks /$f"
	done
	for p in "$top"/docs/man/*.8.scd; do
		n=$(basename "$p" .scd)
		[ -f "$T/$a/usr/share/man/man8/$n.gz" ] || fail "$deb lacks the man page $n"
	done
	grep -q '^ExecStart=/usr/bin/ksymtap serve' "$T/$a/lib/systemd/system/ksymtap.service" ||
		fail "$deb: the unit does not start /usr/bin/ksymtap"
	case $a in
	amd64) m=x86-64 ;;
	arm64) m=aarch64 ;;
	esac
	file -b "$T/$a/usr/bin/ksymtap" | grep -q "statically linked" ||
		fail "$deb: the binary is not static: $(file -b "$T/$a/usr/bin/ksymtap")"
	readelf -h "$T/$a/usr/bin/ksymtap" | grep -qi "Machine: *.*${m/x86-64/X86-64}" ||
		fail "$deb: not an $m binary"
done
out=$("$T/amd64/usr/bin/ksymtap" --version)
[ "$out" = "ksymtap $(dpkg-deb -f "$top"/build/deb/ksymtap_*_amd64.deb Version)" ] ||
	fail "the packaged binary says '$out', the package $(dpkg-deb -f "$top"/build/deb/ksymtap_*_amd64.deb Version)"
lintian --fail-on error,warning "$top"/build/deb/ksymtap_*_amd64.deb "$top"/build/deb/ksymtap_*_arm64.deb \
	>"$T/lintian" 2>&1 || fail "lintian: $(cat "$T/lintian")"
grep -E '^[EW]: ' "$T/lintian" && fail "lintian reported the above"
echo "# lintian: $(grep -c . "$T/lintian") info lines, no error or warning"

# --- the image ---------------------------------------------------------------------
oci=$(ls "$top"/build/image/ksymtap-*.oci.tar 2>/dev/null)
[ -f "$oci" ] || fail "no build/image/ksymtap-*.oci.tar (make image)"
mkdir "$T/oci"
tar -xf "$oci" -C "$T/oci" || fail "$oci is not a tar archive"
blob() { echo "$T/oci/blobs/sha256/${1#sha256:}"; }
idx=$(jq -r '.manifests[0].digest' "$T/oci/index.json")
[ "$(jq -r '.manifests[0].mediaType' "$T/oci/index.json")" = application/vnd.oci.image.index.v1+json ] ||
	fail "the archive's one entry is not an image index"
[ "$(jq -r '[.manifests[].platform.architecture] | sort | join(" ")' "$(blob "$idx")")" = "amd64 arm64" ] ||
	fail "the index's platforms: $(jq -c '[.manifests[].platform]' "$(blob "$idx")")"
for a in amd64 arm64; do
	man=$(jq -r ".manifests[] | select(.platform.architecture == \"$a\" and .platform.os == \"linux\") | .digest" "$(blob "$idx")")
	cfg=$(blob "$(jq -r .config.digest "$(blob "$man")")")
	[ "$(jq -r '.config.Entrypoint | join(" ")' "$cfg")" = /ksymtap ] || fail "$a: entrypoint"
	[ "$(jq -r .architecture "$cfg")" = $a ] || fail "$a: config architecture"
	for l in title version revision created licenses; do
		[ "$(jq -r ".config.Labels[\"org.opencontainers.image.$l\"] // empty" "$cfg")" ] ||
			fail "$a: no label org.opencontainers.image.$l"
	done
	[ "$(jq -r '.config.Labels["org.opencontainers.image.revision"]' "$cfg")" = "$(git -C "$top" rev-parse HEAD)" ] ||
		fail "$a: the revision label is not HEAD"
	[ "$(jq '.layers | length' "$(blob "$man")")" = 1 ] || fail "$a: more than one layer"
	layer=$(blob "$(jq -r '.layers[0].digest' "$(blob "$man")")")
	[ "$(tar -tzf "$layer")" = ksymtap ] || fail "$a: the layer holds $(tar -tzf "$layer" | tr '\n' ' ')"
	bin=$top/build/ksymtap
	[ $a = arm64 ] && bin=$top/build/arm64/ksymtap
	cmp -s <(tar -xzOf "$layer" ksymtap) "$bin" || fail "$a: /ksymtap is not ${bin#$top/}"
done
[ "$(jq -r '.config.Labels["org.opencontainers.image.version"]' "$cfg")" = "$("$top/build/ksymtap" --version | cut -d' ' -f2)" ] ||
	fail "the version label is not ksymtap --version's"

# --- make install --------------------------------------------------------------------
# -o: make test built the prerequisites; relinking build/ksymtap here (after
# any edit of the tree, git describe's +dirty) would change the binary under
# the tests that run after this one (the image's check, the sanitizers' pass).
make -C "$top" -s -o all -o man install PREFIX=/opt/kt DESTDIR="$T/inst" >"$T/install.log" 2>&1 ||
	fail "make install: $(tail -n 5 "$T/install.log")"
for f in bin/ksymtap lib/systemd/system/ksymtap.service lib/sysusers.d/ksymtap.conf \
	share/man/man8/ksymtap.8 share/man/man8/ksymtap-serve.8 share/doc/ksymtap/README.md; do
	[ -e "$T/inst/opt/kt/$f" ] || fail "make install PREFIX=/opt/kt: no /opt/kt/$f"
done
grep -q '^ExecStart=/opt/kt/bin/ksymtap serve' "$T/inst/opt/kt/lib/systemd/system/ksymtap.service" ||
	fail "make install PREFIX=/opt/kt: the unit does not start /opt/kt/bin/ksymtap"
