#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# docs/kernel-facts.md's table of hooks x kernels, from the VM suite's own
# runs: the hook_table test leaves build/vm/KERNEL.hooks ("hook|target|state|
# legacy" lines, what `ksymtap -v` said on that kernel).  With --update FILE,
# the table replaces what stands between the hook-table markers in FILE.
#
#   tests/vm/hook_table.sh [--update FILE]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
update=
[ "${1:-}" = --update ] && update=$2

mapfile -t files < <(ls "$top"/build/vm/*.hooks 2>/dev/null | sort -V)
[ ${#files[@]} -gt 0 ] || { echo "hook_table: no build/vm/*.hooks (run make test first)" >&2; exit 2; }

table() {
	awk -F '|' '
	FNR == 1 {
		k = FILENAME; sub(".*/", "", k); sub("\\.hooks$", "", k)
		nk++; kern[nk] = k
	}
	{
		if (!($1 in seen)) { seen[$1] = 1; nh++; hook[nh] = $1; target[$1] = $2 }
		st = $3
		if ($1 == "sources") cell[$1, nk] = $2
		else if (st == "live") cell[$1, nk] = "attached"
		else { sub("^off: ", "", st); sub("kernel has no .*", "absent", st); cell[$1, nk] = st }
		legacy[nk] = $4 == "yes" ? "no bpf_loop: _legacy twins" : "bpf_loop"
	}
	END {
		printf "| hook (kernel function) |"
		for (i = 1; i <= nk; i++) printf " %s |", kern[i]
		printf "\n|---|"
		for (i = 1; i <= nk; i++) printf "---|"
		printf "\n"
		for (j = 1; j <= nh; j++) {
			h = hook[j]
			if (h == "sources") continue
			printf "| %s (%s) |", h, target[h]
			for (i = 1; i <= nk; i++) printf " %s |", ((h, i) in cell) ? cell[h, i] : "not run"
			printf "\n"
		}
		printf "| program hooks |"
		for (i = 1; i <= nk; i++) printf " %s |", legacy[i]
		printf "\n| ready line sources |"
		for (i = 1; i <= nk; i++) printf " %s |", cell["sources", i]
		printf "\n"
	}' "${files[@]}"
}

if [ -z "$update" ]; then
	table
	exit 0
fi
grep -q '<!-- hook-table begin -->' "$update" || { echo "hook_table: no markers in $update" >&2; exit 2; }
tmp=$(mktemp)
table >"$tmp.table"
awk -v tf="$tmp.table" '
/<!-- hook-table begin -->/ { print; while ((getline l < tf) > 0) print l; skip = 1; next }
/<!-- hook-table end -->/ { skip = 0 }
!skip' "$update" >"$tmp"
mv "$tmp" "$update"
rm -f "$tmp.table"
