#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Function length in user/ and bpf/: none over 80 lines; over 60 only with
# its reason in the comment right above it, which starts "Over 60 lines"
# (a table or a switch over the kernel's layouts reads better whole).  A
# function runs from a line that opens it at column 0 ("{" after its
# signature) to its closing "}" at column 0, both counted.
#
#   tests/lint/check-functions.sh [--src DIR]
#
# One line per function that breaks the rule, "file:line: NAME: N lines:
# rule", and exit 1; exit 0 with one summary line otherwise.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top
[ "${1:-}" = --src ] && src=$2
cd "$src" || exit 2
awk '
FNR == 1 { sig = ""; start = 0; reason = 0; prev = "" }
# The signature: a line at column 0 that names a function.
/^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ && !/^(if|for|while|switch|return)\b/ {
	sig = $0; sigline = FNR
	reason = (prev ~ /Over 60 lines/ || above ~ /Over 60 lines/)
}
/^\{/ && sig != "" { start = sigline; name = sig; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); name = w[n] }
/^\}/ && start {
	len = FNR - start + 1
	total++
	if (len > 80) {
		printf "%s:%d: %s: %d lines: over 80, split it\n", FILENAME, start, name, len; bad++
	} else if (len > 60 && !reason) {
		printf "%s:%d: %s: %d lines: over 60 without its reason above it (\"Over 60 lines: ...\")\n", FILENAME, start, name, len; bad++
	}
	start = 0; sig = ""
}
# The comment just above a signature (its last lines).
/^\/\*|^ \*/ { above = above " " $0 }
!/^\/\*|^ \*/ && !/^[A-Za-z_].*\(/ { if ($0 !~ /^static|^int|^void/) above = "" }
{ prev = $0 }
END {
	if (bad) { printf "check-functions: %d function(s) break the rule\n", bad; exit 1 }
	printf "check-functions: %d functions, none over 80 lines, each over 60 with its reason\n", total
}' user/*/*.c bpf/*.c
