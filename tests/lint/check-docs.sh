#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Every file path the documentation names exists in the tree: README.md,
# BENCHMARKS.md, docs/*.md, docs/man/*.scd and user/*/README, read for words
# that start with a top-level folder of this tree (user/, tests/, bpf/,
# include/, docs/, contrib/, debian/, bench/) and, for paths into user/,
# also a folder and a file name without it (record/symtab.c, as the code's
# own comments write them).  A name with * or {...} is a pattern: it must
# match something, and so must one with a placeholder in capitals
# (tests/fuzz/corpus/NAME/).  build/ and run-time paths are not checked.
#
#   tests/lint/check-docs.sh [--src DIR]
#
# One line per missing path, "doc:line: path", and exit 1; exit 0 and one
# summary line when every path exists; exit 2 when it cannot check.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$2; shift 2 ;;
	*) echo "check-docs: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
cd "$src" || exit 2
[ -f README.md ] || { echo "check-docs: no README.md in $src" >&2; exit 2; }

layers=$(ls -d user/*/ 2>/dev/null | sed 's|user/||; s|/$||' | paste -sd'|')
docs=$(ls README.md BENCHMARKS.md docs/*.md docs/man/*.scd user/*/README 2>/dev/null)
bad=0 n=0
# "doc line word" for every word that looks like a path of this tree.
while read -r doc line p; do
	n=$((n + 1))
	# Trailing punctuation of prose, and a :LINE or :FUNCTION suffix.
	p=${p%%[\`\'\"\),.;:]}
	p=${p%%[\`\'\"\),.;:]}
	p=${p%%:*}
	# Placeholders in capitals are patterns.
	p=$(echo "$p" | sed -E 's#(^|/)[A-Z][A-Z0-9_]*(/|$)#\1*\2#g')
	case $p in
	*'*'* | *'{'*)
		# shellcheck disable=SC2086
		compgen -G "$(echo "$p" | sed 's/{[^}]*}/*/g')" >/dev/null && continue ;;
	*/) [ -d "$p" ] && continue ;;
	*) [ -e "$p" ] && continue ;;
	esac
	case $p in
	user/*) ;;
	*) [ -e "user/$p" ] && continue ;;
	esac
	echo "$doc:$line: $p"
	bad=$((bad + 1))
done < <(for d in $docs; do
	grep -noE "(^|[^A-Za-z0-9_./~$-])((user|tests|bpf|include|docs|contrib|debian|bench)/[A-Za-z0-9_.*{},/-]*[A-Za-z0-9_*}/]|($layers)/[A-Za-z0-9_-]+\.[ch])" "$d" |
		sed -E "s|^([0-9]+):[^A-Za-z0-9_.*{}/-]?|$d \1 |"
done)
if [ $bad -gt 0 ]; then
	echo "check-docs: $bad of $n paths named in the docs do not exist"
	exit 1
fi
echo "check-docs: $n paths named in the docs exist"
