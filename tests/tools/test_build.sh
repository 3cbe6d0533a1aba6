#!/usr/bin/env bash
# Build rules that must hold on a fresh clone: every generated file's rule
# makes its own directory, so no order of a parallel build can fail on a
# missing build/. Ends with "N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

mkdir "$work/clone"
(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -x -C "$work/clone"
if out=$(make -s -C "$work/clone" build/ksyms_empty.c 2>&1) && [ -s "$work/clone/build/ksyms_empty.c" ]; then
    passed=$((passed + 1)); echo "PASS build/ksyms_empty.c builds before anything made build/"
else
    failed=$((failed + 1)); echo "FAIL build/ksyms_empty.c on a fresh clone: $out"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
