#!/bin/bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The serve handshake's limits as docs/serve.md gives them (native backend,
# root): a line of 255 bytes is read whole, a longer one is refused (not cut:
# a misspelt key past byte 255 must not pass), one trailing \r is forgiven,
# a \r inside the line is not dropped with what follows it.
. "${KT_TOP:-.}/tests/host/lib.sh"
need_root
HELLO=${KT_TOP:-.}/build/tests/host/kthello
[ -x "$HELLO" ] || skip "build/tests/host/kthello missing (make host-build)"
"$KT" -b native -d 0.1 >/dev/null 2>&1 || skip "native backend does not open here"
tmpdir
S=$T/sock
"$KT" serve -b native -s "$S" 2>"$T/err" &
SRV=$!
trap 'kill -9 $SRV 2>/dev/null; rm -rf "$T"' EXIT
wait_for "$T/err" '^ksymtap: ready' 30 || fail "serve did not start: $(cat "$T/err")"

pad() { printf '%*s' "$1" '' | tr ' ' ' '; } # N spaces

# 255 bytes: "mode=snapshot" + spaces, then a newline: accepted.
line="mode=snapshot$(pad $((255 - 13)))"
[ ${#line} = 255 ] || fail "test line is ${#line} bytes"
"$HELLO" "$S" "$line\\n" >"$T/a" || fail "kthello"
grep -q snapshot_end "$T/a" || fail "a 255-byte handshake was not accepted: $(head -c 200 "$T/a")"

# 256 bytes, the typo past byte 255: refused, with the documented line.
line="mode=snapshot$(pad $((256 - 13 - 10)))fromat=raw"
"$HELLO" "$S" "$line\\n" >"$T/b"
grep -q '^ksymtap: error: handshake longer than 255 bytes$' "$T/b" ||
	fail "a 266-byte handshake was not refused: $(head -c 200 "$T/b")"

# CRLF: one trailing \r forgiven.
"$HELLO" "$S" 'mode=snapshot format=text\r\n' >"$T/c"
grep -q '^ksymtap: error' "$T/c" && fail "a trailing \\r was refused: $(cat "$T/c")"
[ -s "$T/c" ] || fail "no answer to a CRLF handshake"

# A \r inside: refused, not half parsed.
"$HELLO" "$S" 'mode=snapshot\rfromat=raw\n' >"$T/d"
grep -q '^ksymtap: error: a carriage return inside the handshake$' "$T/d" ||
	fail "a \\r inside the line was not refused: $(head -c 200 "$T/d")"
kill -TERM $SRV
wait $SRV || fail "serve exited $? on SIGTERM"
