#!/usr/bin/env bash
# Build rules that must hold on a fresh clone: every generated file's rule
# makes its own directory, so no order of a parallel build can fail on a
# missing build/. Ends with "N passed, N failed".
set -u
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir "$work/clone"
(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -x -C "$work/clone"
if out=$(make -s -C "$work/clone" build/ksyms_empty.c 2>&1) && [ -s "$work/clone/build/ksyms_empty.c" ]; then
    pass "build/ksyms_empty.c builds before anything made build/"
else
    fail "build/ksyms_empty.c on a fresh clone" "$out"
fi
summary
