#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Every command's synopsis in README.md ("## Synopsis") names exactly the
# options its --help lists, and every option --help lists is described
# somewhere in README.md (by its long name).  Needs no privileges.
. "${KT_TOP:-.}/tests/host/lib.sh"
R=${KT_TOP:-.}/README.md
[ -x "$KT" ] || fail "build/ksymtap missing"

# Long option names of a command's --help (its option lines only), with the
# short ones mapped to them: "-b --backend" pairs on stdout as "s l".
help_opts() { # cmd
	"$KT" "$1" --help | awk '
	/^Examples:/ { exit }
	/^  +-/ {
		short = ""; long = ""
		if (match($0, /^  -[a-zA-Z],/)) short = substr($0, 3, 2)
		if (match($0, /--[a-z][a-z-]*/)) long = substr($0, RSTART, RLENGTH)
		if (long != "") print (short == "" ? "-" : short), long
	}'
}

# The synopsis lines of a command: from "    ksymtap CMD" in the Synopsis
# section to the next line that starts another command or ends the block.
synopsis() { # cmd
	awk -v cmd="$1" '
	/^## Synopsis/ { in_s = 1; next }
	in_s && /^## / { exit }
	in_s && /^    ksymtap / { c = $2; gsub(/[][]/, "", c); on = (c == cmd) }
	in_s && on && /^    / { print }
	in_s && /^$/ { on = 0 }' "$R"
}

bad=0
for cmd in stream snapshot record inject resolve kallsyms symbolize disasm compare serve tail report; do
	help_opts $cmd >h.$$ || fail "ksymtap $cmd --help failed"
	syn=$(synopsis $cmd)
	[ -n "$syn" ] || { echo "no synopsis of '$cmd' in README.md's Synopsis section"; bad=1; continue; }
	# Options the synopsis names, short ones mapped to long through --help.
	named=$( { grep -oE -- '--[a-z][a-z-]*' <<<"$syn"; \
		grep -oE -- '(^|[[ |])-[a-zA-Z]\b' <<<"$syn" | grep -oE -- '-[a-zA-Z]' |
		while read -r s; do awk -v s="$s" '$1 == s { print $2 }' h.$$; done; } | sort -u)
	listed=$(awk '{ print $2 }' h.$$ | sort -u)
	if [ "$named" != "$listed" ]; then
		echo "ksymtap $cmd: README synopsis and --help differ (< synopsis, > --help):"
		diff <(echo "$named") <(echo "$listed") | grep '^[<>]'
		bad=1
	fi
	for o in $listed; do
		grep -q -- "$o" "$R" || { echo "ksymtap $cmd $o: not in README.md"; bad=1; }
	done
	rm -f h.$$
done
[ $bad = 0 ] || fail "synopses differ from --help (above)"
