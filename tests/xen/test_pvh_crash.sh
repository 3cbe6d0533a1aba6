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
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# shellcheck source=tests/xen/crash_door.sh
source "$root/tests/xen/crash_door.sh"

crash_copy "${1:-$build/patchbay.elf}" pvh_entry
crash_door dom0 99 'patchbay: FAIL xen: d0v0 triple fault at pvh_entry' --xen --pvh
crash_door domU 102 \
    'patchbay: FAIL the domU stopped (reboot) without a verdict; xen: d1v0 triple fault at pvh_entry' \
    --domu --pvh
summary
