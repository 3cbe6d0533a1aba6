#!/usr/bin/env bash
# tools/tour against small source trees: --check accepts dense and sparse
# numbering and fails on a repeated or non-positive number and on a passage
# that names a symbol the source no longer has; the rendered tour is in
# number order and each excerpt is the whole definition its passage sits on.
# The real tree's tour must check clean. Ends with "N passed, N failed".
set -u
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
tour="$root/tools/tour"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT


# expect NAME STATUS PATTERN -- runs tools/tour --check on $work/tree
expect() {
    local name=$1 want=$2 pattern=$3 out rc
    out=$("$tour" --check --root "$work/tree" 2>&1)
    rc=$?
    if [ "$rc" -eq "$want" ] && grep -qE "$pattern" <<<"$out"; then
        pass "$name"
    else
        fail "$name (status $rc): $out"
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

# ---- --check: numbering and names ----

fixture
expect "dense numbering checks" 0 "2 passages, 0 problems"
printf '/* Tour 2: Again. */\nint x;\n' >"$work/tree/kernel/c.c"
expect "duplicate number fails" 1 "passage 2 appears 2 times"
fixture
printf '/* Tour 0: Zero. */\nint x;\n' >"$work/tree/kernel/c.c"
expect "passage 0 fails" 1 "passage 0 .*numbers start at 1"
fixture
sed -i 's/Tour 1:/Tour 10:/' "$work/tree/kernel/a.c"
sed -i 's/Tour 2:/Tour 20:/' "$work/tree/boot/b.asm"
printf '/* Tour 30: Third. */\nint x;\n' >"$work/tree/kernel/c.c"
expect "sparse numbering checks" 0 "3 passages, 0 problems"
printf '/* Tour 20: Again. */\nint y;\n' >"$work/tree/kernel/d.c"
expect "sparse duplicate fails" 1 "passage 20 appears 2 times \(.*(b.asm|d.c).*(b.asm|d.c)"
fixture
sed -i 's/int real_function/int renamed_function/' "$work/tree/kernel/a.c"
expect "stale symbol fails" 1 "names .real_function., which no longer exists"

# ---- the rendered tour ----

rm -rf "$work/tree"
mkdir -p "$work/tree/kernel" "$work/tree/boot" "$work/tree/pv"
# Passage 100 sits on a function with blank lines in its body; the function
# after it must not be shown. Passage 5 is on a group of structs.
cat >"$work/tree/kernel/sched.c" <<'EOF'
#include "sched.h"

/* Tour 100: A long function.
 * `long_function` has blank lines inside. */
int long_function(int a)
{
    int b = a + 1;

    if (b > 2) {
        b = 3;
    }

    for (int i = 0; i < 4; i++) {
        b += i;

        b -= 1;
    }
    return b; /* the last line */
}

int not_shown(void)
{
    return 0;
}
EOF
cat >"$work/tree/pv/ops.h" <<'EOF'
/* Tour 5: Structs in a group. */
struct first_ops {
    void (*f)(void);
};
struct second_ops {
    int x;
};

struct third_not_shown {
    int y;
};

/* Tour 7: A macro.
 * `TOUR_MACRO` spans lines. */
#define TOUR_MACRO(x)                                                              \
    do {                                                                           \
        (void)(x);                                                                 \
    } while (0)
int after_the_macro_not_shown;
EOF
cat >"$work/tree/boot/entry.asm" <<'EOF'
; Tour 40: Assembly.
entry:
    mov eax, 1
    ret

not_shown_label:
    hlt
EOF
# A function longer than the cap is cut and marked.
{
    printf '/* Tour 60: Too long. */\nvoid huge(void)\n{\n'
    for i in $(seq 1 300); do printf '    step(%d);\n' "$i"; done
    printf '}\n'
} >"$work/tree/kernel/huge.c"

out="$work/tour.md"
if "$tour" --root "$work/tree" -o "$out" >/dev/null 2>"$work/err"; then
    pass "render exits 0"
else
    fail "render: $(cat "$work/err")"
fi
order=$(grep '^## ' "$out" | tr '\n' '|')
if [ "$order" = "## 5. Structs in a group.|## 7. A macro.|## 40. Assembly.|## 60. Too long.|## 100. A long function.|" ]; then
    pass "passages in number order"
else
    fail "passage order: $order"
fi

# section N: the lines of passage N's section in the rendered tour
section() { awk -v h="## $1. " 'index($0, h) == 1 { on = 1; next } /^## / { on = 0 } on' "$out"; }
# fenced N: the code block of passage N
fenced() { section "$1" | awk '/^```/ { n++; next } n == 1'; }

long=$(fenced 100)
if [ "$(head -1 <<<"$long")" = "int long_function(int a)" ] &&
    [ "$(tail -1 <<<"$long")" = "}" ] &&
    grep -qF 'return b; /* the last line */' <<<"$long" &&
    grep -qF 'b -= 1;' <<<"$long"; then
    pass "whole function, past its blank lines, to the closing brace"
else
    fail "function excerpt: $long"
fi
if grep -q 'not_shown' <<<"$long"; then fail "the next function leaked in"; else pass "stops at the function's end"; fi
if [ "$(grep -c '^$' <<<"$long")" -eq 3 ]; then
    pass "blank lines inside the function kept"
else
    fail "blank lines in function excerpt: $(grep -c '^$' <<<"$long")"
fi

structs=$(fenced 5)
if grep -qF 'struct first_ops {' <<<"$structs" && grep -qF 'struct second_ops {' <<<"$structs" &&
    [ "$(tail -1 <<<"$structs")" = "};" ] && ! grep -q third_not_shown <<<"$structs"; then
    pass "struct group up to the blank line"
else
    fail "struct excerpt: $structs"
fi

macro=$(fenced 7)
if [ "$(wc -l <<<"$macro")" -eq 5 ] && grep -qF '} while (0)' <<<"$macro"; then
    pass "a #define with its continuation lines"
else
    fail "macro excerpt: $macro"
fi

asm=$(fenced 40)
if [ "$asm" = $'entry:\n    mov eax, 1\n    ret' ]; then
    pass "nasm up to the blank line"
else
    fail "nasm excerpt: $asm"
fi

huge=$(fenced 60)
lines=$(wc -l <<<"$huge")
if [ "$lines" -gt 12 ] && [ "$lines" -lt 300 ] && [ "$(tail -1 <<<"$huge")" = "    /* ... */" ]; then
    pass "a very long function is cut at the cap and marked"
else
    fail "long excerpt: $lines lines, ends with $(tail -1 <<<"$huge")"
fi

# ---- the real tree ----

if out=$("$tour" --check 2>&1); then
    pass "the source's own tour checks clean"
else
    fail "the source's own tour: $out"
fi
summary
