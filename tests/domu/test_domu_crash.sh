#!/usr/bin/env bash
# tests/domu/test_domu_crash.sh [IMAGE]: a domU that dies before it can say
# how it went must end `tools/run --domu` with status 102 and one verdict
# line, tools/run's, naming Xen's reason. The domU is a copy of the image
# whose Xen PV entry point is a ud2: with no trap table yet, Xen crashes
# the domain at once. Ends with "N passed, N failed".
set -euo pipefail
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=tests/xen/crash_door.sh
source "$root/tests/xen/crash_door.sh"

crash_copy "${1:-$build/patchbay.elf}" xen_pv_entry
crash_door domU 102 \
    'patchbay: FAIL the domU crashed without a verdict; xen: domain_crash_sync called from .* at xen_pv_entry.*' \
    --domu
check "the domU printed nothing" "$([ "$(grep -vc '^patchbay: ' <<<"$console")" = 0 ] && echo 1)" \
    "$(head -n 3 <<<"$console")"
summary
