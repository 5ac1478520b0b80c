# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# ksymtap disasm on this machine's kernel, the program gone: a program with
# subprograms and BTF line info, loaded and unloaded while `ksymtap record -b
# native` ran.  Each function's bytes are those the kernel gave in
# bpf_prog_info while it lived (ktcode), its source lines those of bpftool
# prog dump xlated linum (code_check), and every instruction, address,
# mnemonic and operands, is what llvm-objdump prints for the same bytes at
# the same address.  Then the same llvm-objdump check on files `ksymtap
# record` wrote in the amd64 and arm64 guests (tests/host/data/, made by
# tests/vm/tests/record_code.sh with KT_CODE_FILE=1): their program's
# functions and their BPF trampolines (whose bytes came from /proc/kcore),
# decoded here whatever this machine is.
# And the errors: an address nothing held, bad input.
. "${KT_TOP:-.}/tests/vm/lib.sh" 2>/dev/null # code_check, prog_load_time
. "${KT_TOP:-.}/tests/host/lib.sh"
set -u

need_root
command -v perf >/dev/null || skip "perf not installed (make deps)"
command -v llvm-objdump >/dev/null || skip "llvm-objdump not installed (make deps: llvm)"
B=${KT_TOP:-.}/build
OBJ=$B/tests/vm/subprogs.bpf.o
for f in "$KT" "$B/tests/vm/ktcode" "$B/tests/vm/ktload" "$OBJ"; do
	[ -e "$f" ] || fail "$f missing (make vm-build)"
done
tmpdir

# The instructions of a disasm JSON as "ADDR MNEMONIC OPERANDS", and the
# same from llvm-objdump of its bytes placed at its address, with spaces
# and objdump's <symbol> notes and "# imm = ..." comments left out, numbers
# as unsigned 64-bit decimals (Capstone writes them in hex, as GNU objdump
# does, unsigned where llvm-objdump writes some signed) and no '#' (arm64:
# Capstone marks a branch's or a literal load's target as an immediate,
# llvm-objdump does not).
decimal() {
	perl -pe 'no warnings; s/#//g; s/(?<![%\w])(-?)(0x[0-9a-f]+|\d+)(?!\w)/sprintf("%u", ($1 ? -1 : 1) * (substr($2, 0, 2) eq "0x" ? hex($2) : $2))/ge'
}
ours() { # json
	jq -r '.insns[] | (.addr | ltrimstr("0x")) + " " + .mnemonic + " " + .operands' "$1" |
		awk '{ a = $1; m = $2; $1 = $2 = ""; gsub(/ /, ""); print a, m, $0 }' | decimal
}
objdumps() { # json objcopy-target dir
	jq -r '.insns[].bytes' "$1" | tr -d '\n' | perl -ne 'print pack("H*", $_)' >"$3/f.bin"
	llvm-objcopy -I binary -O "$2" --rename-section=.data=.text,code,alloc,load,readonly \
		"$3/f.bin" "$3/f.o" || fail "llvm-objcopy failed"
	# arm64's adr: llvm-objdump prints the offset, Capstone (as GNU objdump)
	# the address it makes.
	llvm-objdump -d -z --no-show-raw-insn --adjust-vma="$(jq -r .start "$1")" "$3/f.o" |
		awk '/^ *[0-9a-f]+:/ {
			a = $1; sub(":", "", a); m = $2; $1 = $2 = ""
			sub(/ *# imm = .*$/, ""); sub(/ *<.*>$/, ""); gsub(/ /, ""); print a, m, $0 }' |
		perl -ane 'no warnings; if ($F[1] eq "adr" && $F[2] =~ /^(\w+),#(-?)(\d+)$/) {
			$_ = sprintf("%s adr %s,0x%x\n", $F[0], $1, $2 ? hex($F[0]) - $3 : hex($F[0]) + $3) } print' |
		decimal
}
objdump_check() { # json objcopy-target
	ours "$1" >"$T/ours.txt"
	objdumps "$1" "$2" "$T" >"$T/objdump.txt"
	[ -s "$T/objdump.txt" ] || fail "llvm-objdump printed nothing for $1"
	diff "$T/objdump.txt" "$T/ours.txt" >"$T/objdump.diff" ||
		{ cat "$T/objdump.diff"; fail "$(basename "$1"): instructions differ from llvm-objdump's (< llvm-objdump, > disasm)"; }
}

"$KT" record -b native --no-snapshot -o "$T/k.data" 2>"$T/k.err" &
K=$!
wait_for "$T/k.err" '^ksymtap: ready' 30 || fail "not ready: $(cat "$T/k.err")"
"$B/tests/vm/ktload" -w "$T/go" "$OBJ" >"$T/load.txt" 2>&1 &
L=$!
wait_for "$T/load.txt" '^loaded kt_sock_main' 30 || fail "workload: $(cat "$T/load.txt")"
id=$(awk '/^loaded kt_sock_main/ {print $4}' "$T/load.txt")
"$B/tests/vm/ktcode" "$id" >"$T/code.txt" || fail "ktcode $id"
bpftool prog dump xlated id "$id" linum >"$T/xlated.txt" || fail "bpftool prog dump xlated id $id linum"
touch "$T/go"
wait $L || fail "ktload exited $?"
sleep 0.2
kill -INT $K
wait $K || fail "ksymtap record exited $?: $(cat "$T/k.err")"

t=$(prog_load_time "$T/k.data" "$id")
[ -n "$t" ] || fail "perf script shows no PROG_LOAD of $id in the record file"
code_check "-i $T/k.data" "$T/code.txt" "$T/xlated.txt" "$t" "$T"
n=0
for j in "$T"/disasm.*.json; do
	objdump_check "$j" elf64-x86-64
	n=$((n + $(jq '.insns | length' "$j")))
done
echo "INFO prog $id: $(grep -c '^func ' "$T/code.txt") functions, $n instructions as llvm-objdump's, bytes as the kernel's"

# Files `ksymtap record` wrote in the guests (amd64 and arm64 newest), decoded
# here: every function of their program and every trampoline (its bytes:
# the TEXT_POKE after its KSYMBOL).
fixture() { # file arch objcopy-target
	local a m=0 k=0
	[ -f "$1" ] || fail "$1 missing"
	for a in $(perf script -i "$1" --show-bpf-events 2>/dev/null |
		awk '/PERF_RECORD_KSYMBOL/ && $13 == "0x0" && $15 ~ /(kt_(sock_main|sub_one|sub_two)$|^bpf_trampoline_)/ {print $7}'); do
		"$KT" disasm -i "$1" -f json "$a" >"$T/fix.json" 2>"$T/fix.err" ||
			fail "disasm of $1 at $a: $(cat "$T/fix.err")"
		[ "$(jq -r .arch "$T/fix.json")" = "$2" ] || fail "$1: arch $(jq -r .arch "$T/fix.json")"
		objdump_check "$T/fix.json" "$3"
		if jq -e '.prog_id' "$T/fix.json" >/dev/null; then m=$((m + 1)); else k=$((k + 1)); fi
	done
	[ "$m" = 3 ] || fail "$1: $m of 3 functions"
	[ "$k" -gt 0 ] || fail "$1: no trampoline"
	echo "INFO $2 (a guest's file): 3 functions and $k trampolines as llvm-objdump's"
}
D=${KT_TOP:-.}/tests/host/data
fixture "$D/amd64-subprogs.data" x86_64 elf64-x86-64
fixture "$D/arm64-subprogs.data" aarch64 elf64-littleaarch64

# Errors: one line each, status 1; the other addresses still answered.
a=$(awk '/^func / {print $2; exit}' "$T/code.txt")
"$KT" disasm -i "$T/k.data" --at "$t" 1 zz "$a" >"$T/mixed.out" 2>"$T/mixed.err" && fail "disasm of bad addresses exited 0"
[ "$(wc -l <"$T/mixed.err")" = 2 ] || fail "not one line per bad address: $(cat "$T/mixed.err")"
grep -q "'zz' is not an address" "$T/mixed.err" || fail "no error for zz: $(cat "$T/mixed.err")"
grep -q "^=> $a " "$T/mixed.out" || fail "the good address was not answered: $(head -3 "$T/mixed.out")"
"$KT" disasm -i /nonexistent 1 2>"$T/e.err" && fail "a missing file exited 0"
[ "$(wc -l <"$T/e.err")" = 1 ] || fail "a missing file: $(cat "$T/e.err")"
true
