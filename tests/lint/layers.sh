# The layer rule of user/ (user/LAYERS) holds on this tree, includes and
# calls both (tests/lint/check-layers.sh); and the check sees a breach of each
# kind planted in a copy: an include of a layer above, a call into one, a
# file outside every folder, a README that no longer says its rule.
. "${KT_TOP:-.}/tests/host/lib.sh"
top=${KT_TOP:-.}
check=$top/tests/lint/check-layers.sh
objs=$(dirname "$KT")/user
command -v nm >/dev/null || skip "nm missing (binutils)"
out=$("$check" --src "$top" --objs "$objs") || fail "the tree breaks the layer rule:
$out"
echo "# $out"

tmpdir
mkdir -p "$T/src" "$T/objs"
cp -r "$top/user" "$top/include" "$T/src/"
cp -r "$objs/." "$T/objs/"
# util/log.c includes a header of cmd (the top layer) ...
sed -i '0,/^#include "/s||#include "run/cli.h"\n#include "|' "$T/src/user/util/log.c"
# ... record/ calls into backend/, from an object of its own ...
printf 'int kt_backend_open();\nint kt_planted(void) { return kt_backend_open(); }\n' \
	>"$T/src/user/record/planted.c"
cc -c "$T/src/user/record/planted.c" -o "$T/objs/record/planted.o" ||
	fail "cannot compile the planted call"
# ... a source stands in user/ itself, and a README lost its rule.
touch "$T/src/user/stray.c"
sed -i 2d "$T/src/user/encode/README"

out=$("$check" --src "$T/src" --objs "$T/objs")
rc=$?
[ $rc = 1 ] || fail "check-layers exit $rc on a tree with breaches, want 1:
$out"
expect() { # pattern what
	grep -Eq "$1" <<<"$out" || fail "check-layers does not report $2; it said:
$out"
}
expect '^user/util/log\.c:[0-9]+: includes "run/cli\.h": util may not include run, a layer above it' \
	"the upward include"
expect '^user/record/planted\.c: calls kt_backend_open \(user/backend/open\.c\): record may not call into backend' \
	"the upward call"
expect '^user/stray\.c: outside every layer' "the file outside the layers"
expect "^user/encode/README:2: says ''" "the README without its rule"
[ "$(grep -c . <<<"$out")" = 5 ] || fail "want 4 breaches and the summary, got:
$out"
