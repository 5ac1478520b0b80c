#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The layer rule of user/ (user/LAYERS): a file includes headers from, and
# calls into, only its own folder and the folders listed below it.
#
#   tests/lint/check-layers.sh [--src DIR] [--objs DIR]
#   --src DIR   the tree whose user/ is checked (default: this checkout)
#   --objs DIR  its objects, OUTPUT/user (default: build/user); the calls are
#               read from their symbols (nm), so a call through a prototype
#               written by hand is seen as well as one through a header
#
# One line per breach, "file:line: what: rule", and exit 1; exit 0 and one
# summary line when the tree keeps the rule; exit 2 when it cannot check.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top objs=
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$2; shift 2 ;;
	--objs) objs=$2; shift 2 ;;
	*) echo "check-layers: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
objs=${objs:-$src/build/user}
cd "$src" || exit 2
[ -f user/LAYERS ] || { echo "check-layers: no user/LAYERS in $src" >&2; exit 2; }

# rank[layer]: 0 for the top one; a file may reach layers of its rank or more.
declare -A rank
layers=()
while read -r name _; do
	case $name in '#'* | '') continue ;; esac
	rank[$name]=${#layers[@]}
	layers+=("$name")
done <user/LAYERS
bad=0
breach() { echo "$1"; bad=$((bad + 1)); }

# Every folder is a layer, with a README that says what it may include.
for d in user/*/; do
	d=${d%/} l=${d#user/}
	if [ -z "${rank[$l]+x}" ]; then
		breach "$d: a folder that user/LAYERS does not list: add it where it belongs"
		continue
	fi
	below=("${layers[@]:$((rank[$l] + 1))}")
	want="May include: its own folder"
	[ ${#below[@]} -gt 0 ] && want+=", $(
		IFS=,
		echo "${below[*]}" | sed 's/,/, /g'
	)"
	want+=" (user/LAYERS)."
	if [ ! -f "$d/README" ]; then
		breach "$d/README: missing: two lines, what the folder holds and '$want'"
	elif [ "$(sed -n 2p "$d/README")" != "$want" ]; then
		breach "$d/README:2: says '$(sed -n 2p "$d/README")': user/LAYERS makes it '$want'"
	fi
done
for f in user/*.[ch]; do
	[ -e "$f" ] && breach "$f: outside every layer: move it into the folder of its layer"
done

# Includes, as written.  A user header is named by its folder; what
# include/ holds and what the build generates stand outside the layers.
for f in user/*/*.[ch]; do
	from=${f#user/} from=${from%%/*}
	while IFS=: read -r line inc; do
		inc=${inc#*\"} inc=${inc%\"*}
		case $inc in
		*.pb-c.h)
			# protoc-c's code of encode/proto/'s messages: encode's own.
			if [ ! -f "user/encode/proto/${inc%.pb-c.h}.proto" ]; then
				breach "$f:$line: includes \"$inc\": no such message in user/encode/proto/"
			elif [ "$from" != encode ]; then
				breach "$f:$line: includes \"$inc\": only encode/ uses the generated OTLP messages"
			fi ;;
		*/*)
			to=${inc%%/*}
			if [ -z "${rank[$to]+x}" ] || [ ! -f "user/$inc" ]; then
				breach "$f:$line: includes \"$inc\": no such header in user/"
			elif [ "${rank[$to]}" -lt "${rank[$from]}" ]; then
				breach "$f:$line: includes \"$inc\": $from may not include $to, a layer above it (user/LAYERS)"
			fi ;;
		*)
			[ -f "include/$inc" ] && continue
			case $inc in ksymtap.skel.h | version.h) continue ;; esac
			breach "$f:$line: includes \"$inc\": name a user header by its folder, \"LAYER/$inc\"" ;;
		esac
	done < <(grep -n '^#include "' "$f")
done

# Calls (and any other reference to a symbol another object defines).
if ! ls "$objs"/*/*.o >/dev/null 2>&1; then
	echo "check-layers: no objects in $objs (make first)" >&2
	exit 2
fi
defs=$(mktemp) uses=$(mktemp)
trap 'rm -f "$defs" "$uses"' EXIT
for o in "$objs"/*/*.o; do
	rel=${o#"$objs"/} rel=${rel%.o}
	# An object left behind by a source that moved or went is not the tree.
	[ -f "user/$rel.c" ] || continue
	nm -g --defined-only "$o" | awk -v f="$rel" 'NF == 3 { print $3, f }' >>"$defs"
	nm -u "$o" | awk -v f="$rel" '{ print $2, f }' >>"$uses"
done
sort -k1,1 -o "$defs" "$defs"
sort -k1,1 -o "$uses" "$uses"
while read -r sym user def; do
	from=${user%%/*} to=${def%%/*}
	[ -n "${rank[$from]+x}" ] && [ -n "${rank[$to]+x}" ] || continue
	if [ "${rank[$to]}" -lt "${rank[$from]}" ]; then
		breach "user/$user.c: calls $sym (user/$def.c): $from may not call into $to, a layer above it (user/LAYERS)"
	fi
done < <(join "$uses" "$defs")

if [ $bad -gt 0 ]; then
	echo "check-layers: $bad breach(es) of the layer rule"
	exit 1
fi
echo "check-layers: $(ls user/*/*.[ch] | wc -l) files in ${#layers[@]} layers keep the rule"
