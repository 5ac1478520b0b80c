#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The man pages (docs/man/*.scd, scdoc) and --help agree: every command that
# `ksymtap --help` lists has its page ksymtap-CMD(8), named in ksymtap(8);
# the page make man built names in its OPTIONS section exactly the options
# its command's --help lists, with the same short forms (both are made from
# user/cmd/options.c: this proves it); every page builds with scdoc and
# renders with man(1) without a warning (as lintian renders them).
. "${KT_TOP:-.}/tests/host/lib.sh"
M=${KT_TOP:-.}/docs/man
# What make man made of them: OPTIONS filled in, then scdoc.
B=$(dirname "$KT")/man
[ -x "$KT" ] || fail "build/ksymtap missing"
command -v scdoc >/dev/null || skip "scdoc missing (make deps)"
command -v man >/dev/null || skip "man missing (make deps: man-db)"
tmpdir

# "s l" pairs ("-" where there is no short form) from --help's option lines.
help_opts() { # cmd
	"$KT" "$1" --help | awk '
	/^Examples?:/ { exit }
	/^  +-/ {
		short = ""; long = ""
		if (match($0, /^  -[a-zA-Z],/)) short = substr($0, 3, 2)
		if (match($0, /--[a-z][a-z-]*/)) long = substr($0, RSTART, RLENGTH)
		if (long != "") print (short == "" ? "-" : short), long
	}' | sort -u
}
# The same from the page's OPTIONS section: lines "*-b*, *--backend* ...".
page_opts() { # page
	awk '
	/^# / { on = ($0 == "# OPTIONS") ; next }
	on && /^\*-/ {
		short = ""; long = ""
		if (match($0, /^\*-[a-zA-Z]\*,/)) short = substr($0, 2, 2)
		if (match($0, /\*--[a-z][a-z-]*\*/)) long = substr($0, RSTART + 1, RLENGTH - 2)
		if (long != "") print (short == "" ? "-" : short), long
	}' "$1" | sort -u
}

cmds=$("$KT" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
	on && /^  [a-z]/ { print $1 }' | grep -vx -e help -e version)
[ "$(wc -w <<<"$cmds")" -ge 11 ] || fail "ksymtap --help lists only: $cmds"
bad=0
for cmd in $cmds; do
	p=$M/ksymtap-$cmd.8.scd
	if [ ! -f "$p" ]; then
		echo "no man page for '$cmd' ($p)"
		bad=1
		continue
	fi
	grep -q "^\*$cmd\*\$" "$M/ksymtap.8.scd" || { echo "ksymtap(8) does not list '$cmd'"; bad=1; }
	help_opts "$cmd" >"$T/h" || fail "ksymtap $cmd --help failed"
	[ -f "$B/ksymtap-$cmd.8.scd" ] || fail "$B/ksymtap-$cmd.8.scd missing (make man)"
	grep -qx '@OPTIONS@' "$p" || { echo "$p: no @OPTIONS@ line for the generated list"; bad=1; }
	page_opts "$B/ksymtap-$cmd.8.scd" >"$T/p"
	[ -s "$T/h" ] || { echo "ksymtap $cmd --help lists no option"; bad=1; }
	if ! cmp -s "$T/h" "$T/p"; then
		echo "ksymtap-$cmd(8) and 'ksymtap $cmd --help' differ (< page, > --help):"
		diff "$T/p" "$T/h" | grep '^[<>]'
		bad=1
	fi
done
for p in "$M"/*.8.scd; do
	n=$(basename "$p" .scd)
	p=$B/$n.scd
	case $n in ksymtap.8) ;; *) grep -qx "$(sed 's/^ksymtap-//; s/\.8$//' <<<"$n")" <<<"$cmds" ||
		{ echo "$n: a page for a command ksymtap --help does not list"; bad=1; } ;; esac
	scdoc <"$p" >"$T/$n" 2>"$T/err" || { echo "$n: scdoc: $(cat "$T/err")"; bad=1; continue; }
	w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$T/$n" 2>&1 >/dev/null)
	[ -z "$w" ] || { echo "$n: man warns: $w"; bad=1; }
done
[ $bad = 0 ] || fail "the man pages and --help differ (above)"
echo "# $(wc -w <<<"$cmds") commands, $(ls "$M"/*.8.scd | wc -l) pages"
