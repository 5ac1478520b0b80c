# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Sourced by kernels.sh and arm64root.sh: a private apt state under
# ~/.cache/ksymtap/apt over Debian's archive (bullseye to sid, amd64 and
# arm64), so that the system's apt sources and dpkg database are never
# touched.  Sets A=(apt options); kt_apt_update refreshes the lists once per
# run (several runs at once share it through a lock), offline it keeps the
# cached ones with a warning.
kt_cache=${XDG_CACHE_HOME:-$HOME/.cache}/ksymtap
kt_apt_state=$kt_cache/apt
mkdir -p "$kt_apt_state/lists/partial" "$kt_apt_state/archives/partial"
kt_keyring=/usr/share/keyrings/debian-archive-keyring.gpg
if [ ! -r "$kt_keyring" ]; then
	echo "$kt_keyring missing (run 'make deps' as root)" >&2
	exit 2
fi
# The archive's URIs as the system's own sources name them (a mirror or a
# proxy configured there is used here too).
kt_main_uri=http://deb.debian.org/debian kt_sec_uri=http://deb.debian.org/debian-security
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
	kt_main_uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
	kt_sec_uri=$(awk '/^URIs:/ {u = $2} END {print u}' /etc/apt/sources.list.d/debian.sources)
	case $kt_sec_uri in *security*) ;; *) kt_sec_uri=${kt_main_uri%/debian}/debian-security ;; esac
fi
kt_new=$(mktemp "$kt_apt_state/sources.list.XXXXXX")
{
	for s in bullseye bookworm trixie-backports sid; do
		echo "deb [arch=amd64,arm64 signed-by=$kt_keyring] $kt_main_uri $s main"
	done
	for s in bullseye-security bookworm-security; do
		echo "deb [arch=amd64,arm64 signed-by=$kt_keyring] $kt_sec_uri $s main"
	done
} >"$kt_new"
chmod 644 "$kt_new"
if cmp -s "$kt_new" "$kt_apt_state/sources.list" 2>/dev/null; then
	rm -f "$kt_new"
else
	mv "$kt_new" "$kt_apt_state/sources.list"
fi
A=(-o "Dir::Etc::SourceList=$kt_apt_state/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$kt_apt_state/lists" -o "Dir::Cache=$kt_apt_state"
	-o "Dir::Cache::Archives=$kt_apt_state/archives" -o "Dir::State::status=/dev/null"
	-o APT::Architectures=amd64,arm64 -o APT::Sandbox::User=root -o Acquire::Retries=3
	-o "Dir::State::Lock=$kt_apt_state/lock.apt" -o "Debug::NoLocking=1")

kt_apt_update() {
	exec 9>"$kt_apt_state/lock"
	flock 9
	if ! apt-get "${A[@]}" -q update >"$kt_apt_state/update.log" 2>&1; then
		echo "apt-get update failed (offline?); using the cached package lists" >&2
	fi
	flock -u 9
	exec 9>&-
}
