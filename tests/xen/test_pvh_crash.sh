#!/usr/bin/env bash
# tests/xen/test_pvh_crash.sh [IMAGE]: a PVH guest that dies before it can
# say how it went must end `tools/run --pvh` with one verdict line,
# tools/run's, naming what Xen printed: a triple fault of vCPU 0 and the
# guest RIP. The guest is a copy of the image whose PVH entry point is a
# ud2: with no IDT yet, the #UD becomes a triple fault at once, which Xen
# reports for an HVM vCPU as "dNv0 Triple fault" and a register dump, not
# as a crash. As dom0 (--xen --pvh) Xen then resets the machine: status 99.
# As a domU (--domu --pvh) Xen reboots the domain, which xl reports as a
# reboot: status 102. Ends with "N passed, N failed".
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
"$root/tests/xen/ud2_at.sh" "$image" pvh_entry "$tmp/crash.elf" || {
    echo "FAIL cannot make the crashing copy of $image"; exit 1; }

# door NAME STATUS VERDICT [TOOLS/RUN OPTIONS...]: one run, its checks.
door() {
    local name=$1 want=$2 verdict=$3 rc=0 console
    shift 3
    "$root/tools/run" "$@" --quiet --log "$tmp/$name.log" --image "$tmp/crash.elf" \
        --timeout 120 2>"$tmp/$name.err" || rc=$?
    console=$(tr -d '\r' <"$tmp/$name.log")
    check "$name: status $want" "$([ "$rc" = "$want" ] && echo 1)" \
        "status $rc: $(cat "$tmp/$name.err")"
    check "$name: one verdict line, tools/run's, naming the triple fault and the RIP" \
        "$([ "$(grep -c '^patchbay: ' <<<"$console")" = 1 ] &&
           grep -qx "$verdict" <<<"$console" && echo 1)" \
        "console: $(tail -n 2 <<<"$console")"
}

door dom0 99 'patchbay: FAIL xen: d0v0 triple fault at pvh_entry' --xen --pvh
door domU 102 \
    'patchbay: FAIL the domU stopped (reboot) without a verdict; xen: d1v0 triple fault at pvh_entry' \
    --domu --pvh

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
