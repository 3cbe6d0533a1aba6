#!/usr/bin/env bash
# tools/tour must fail on a duplicated or missing passage number and on a
# passage that names a symbol the source no longer has; and the real tree's
# tour must check clean. Ends with "N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tour="$root/tools/tour"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

# expect NAME STATUS PATTERN -- runs tools/tour --check on $work/tree
expect() {
    local name=$1 want=$2 pattern=$3 out rc
    out=$("$tour" --check --root "$work/tree" 2>&1)
    rc=$?
    if [ "$rc" -eq "$want" ] && grep -qE "$pattern" <<<"$out"; then
        passed=$((passed + 1)); echo "PASS $name"
    else
        failed=$((failed + 1)); echo "FAIL $name (status $rc): $out"
    fi
}

fixture() {
    rm -rf "$work/tree"
    mkdir -p "$work/tree/kernel" "$work/tree/boot"
    printf '/* Tour 1: First.\n * Calls `real_function`. */\nint real_function(void);\n' \
        >"$work/tree/kernel/a.c"
    printf '; Tour 2: Second.\n; Jumps to `real_label`.\nreal_label:\n    ret\n' \
        >"$work/tree/boot/b.asm"
}

fixture
expect "clean fixture checks" 0 "2 passages, 0 problems"
printf '/* Tour 2: Again. */\nint x;\n' >"$work/tree/kernel/c.c"
expect "duplicate number fails" 1 "passage 2 appears 2 times"
fixture
printf '/* Tour 4: Gap. */\nint y;\n' >"$work/tree/kernel/c.c"
expect "missing number fails" 1 "passage 3 is missing"
fixture
sed -i 's/int real_function/int renamed_function/' "$work/tree/kernel/a.c"
expect "stale symbol fails" 1 "names .real_function., which no longer exists"

if out=$("$tour" --check 2>&1); then
    passed=$((passed + 1)); echo "PASS the source's own tour checks clean"
else
    failed=$((failed + 1)); echo "FAIL the source's own tour: $out"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
