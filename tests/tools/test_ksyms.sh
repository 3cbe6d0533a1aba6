#!/usr/bin/env bash
# tools/ksyms against nm: the table it writes must hold exactly the symbols
# nm calls T or t (functions and asm labels in code), with nm's addresses
# and sizes, in nm's order; and --check must catch code that moved between
# two links. Uses the kernel image when built, and a small fixture always.
# Ends with "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
ksyms=$root/tools/ksyms
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/fixture.c" <<'EOC'
int counter;
static int helper(int x) { return x + counter; }
int visible(int x) { return helper(x) * 2; }
__asm__(".text\n.globl asm_label\nasm_label: ret\nlocal_label: ret\n");
void _start(void) { counter = visible(1); for (;;) ; }
EOC
gcc -O1 -fno-inline -ffreestanding -nostdlib -static -no-pie -fno-pie -o "$work/fixture" \
    "$work/fixture.c" || { echo "cannot build the fixture"; exit 1; }
gcc -O1 -fno-inline -ffreestanding -nostdlib -static -no-pie -fno-pie -Wl,-Ttext=0x500000 \
    -o "$work/moved" "$work/fixture.c" || exit 1

# What nm says, in the table's own format.
from_nm() {
    nm -n -S --defined-only "$1" | python3 -c '
import sys
for line in sys.stdin:
    f = line.split()
    if len(f) == 4 and f[2] in ("T", "t"):
        print("    {0x%x, 0x%x, \"%s\"}," % (int(f[0], 16), int(f[1], 16), f[3]))
    elif len(f) == 3 and f[1] in ("T", "t"):
        print("    {0x%x, 0x0, \"%s\"}," % (int(f[0], 16), f[2]))'
}

compare() {
    local name=$1 image=$2
    "$ksyms" "$image" | grep '^    {' >"$work/table" || true
    from_nm "$image" >"$work/nm"
    if [ -s "$work/nm" ] && diff -u "$work/nm" "$work/table" >"$work/diff"; then
        pass "$name: the table is nm's T/t symbols ($(wc -l <"$work/nm"))"
    else
        fail "$name: the table differs from nm"
        head -20 "$work/diff"
    fi
}

compare fixture "$work/fixture"
"$ksyms" "$work/fixture" >"$work/fixture.c.out"
for label in asm_label local_label helper visible; do
    if grep -q "\"$label\"" "$work/fixture.c.out"; then
        pass "fixture: $label listed"
    else
        fail "fixture: $label missing"
    fi
done
if grep -q '"counter"' "$work/fixture.c.out"; then
    fail "fixture: a data symbol listed"
else
    pass "fixture: data symbols left out"
fi
[ -f "$root/build/patchbay.elf" ] && compare "kernel image" "$root/build/patchbay.elf"

if "$ksyms" --check "$work/fixture" "$work/fixture" 2>/dev/null; then
    pass "--check: the same link passes"
else
    fail "--check: the same link fails"
fi
err=$("$ksyms" --check "$work/fixture" "$work/moved" 2>&1)
if [ $? -ne 0 ] && grep -q "code moved between the two links" <<<"$err"; then
    pass "--check: moved code fails"
else
    fail "--check: moved code: $err"
fi
err=$("$ksyms" "$work/does-not-exist" 2>&1)
if [ $? -ne 0 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && grep -q "No such file" <<<"$err"; then
    pass "a missing image: one line"
else
    fail "a missing image: $err"
fi

summary
