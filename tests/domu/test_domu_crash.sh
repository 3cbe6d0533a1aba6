#!/usr/bin/env bash
# tests/domu/test_domu_crash.sh [IMAGE]: a domU that dies before it can say
# how it went must end `tools/run --domu` with status 102 and one verdict
# line, tools/run's, naming Xen's reason. The domU is a copy of the image
# whose Xen PV entry point is a ud2: with no trap table yet, Xen crashes
# the domain at once. Ends with "N passed, N failed".
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
image=${1:-$build/patchbay.elf}
passed=0 failed=0

check() {   # check NAME OK [DETAIL]
    if [ "$2" = 1 ]; then
        passed=$((passed + 1)); echo "PASS $1"
    else
        failed=$((failed + 1)); echo "FAIL $1: ${3:-}"
    fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$root/tests/xen/ud2_at.sh" "$image" xen_pv_entry "$tmp/crash.elf" || {
    echo "FAIL cannot make the crashing copy of $image"; exit 1; }

rc=0
"$root/tools/run" --domu --quiet --log "$tmp/console.log" --image "$tmp/crash.elf" \
    --timeout 120 2>"$tmp/stderr" || rc=$?
console=$(tr -d '\r' <"$tmp/console.log")
check "status 102 (the domU stopped without a verdict)" "$([ "$rc" = 102 ] && echo 1)" \
    "status $rc: $(cat "$tmp/stderr")"
check "one verdict line, tools/run's, naming Xen's reason and the RIP" \
    "$([ "$(grep -c '^patchbay: ' <<<"$console")" = 1 ] &&
       grep -q '^patchbay: FAIL the domU crashed without a verdict; xen: domain_crash_sync called from .* at xen_pv_entry' <<<"$console" && echo 1)" \
    "console: $(tail -n 3 <<<"$console")"
check "the domU printed nothing" "$([ "$(grep -vc '^patchbay: ' <<<"$console")" = 0 ] && echo 1)" \
    "$(head -n 3 <<<"$console")"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
