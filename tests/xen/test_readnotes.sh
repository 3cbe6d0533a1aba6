#!/usr/bin/env bash
# tests/xen/test_readnotes.sh [IMAGE]: Xen's own note reader (readnotes, from
# xen-utils; tools/fetch-xen provides it) must find in the image every note a
# PV dom0 and a PVH boot need, with the values and addresses the image has.
# Prints one PASS/FAIL line per check and "N passed, N failed"; exits 1 if
# any check failed, 2 if the image or the tool is missing.
set -u

# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
image=${1:-$build/patchbay.elf}
readnotes=$build/xen/readnotes

[ -f "$image" ] || { echo "test_readnotes: $image not found; build it with make" >&2; exit 2; }
if [ ! -x "$readnotes" ]; then
    BUILD=$build "$root/tools/fetch-xen" || { echo "test_readnotes: no readnotes" >&2; exit 2; }
fi

notes=$("$readnotes" "$image" 2>&1)
raw=$(readelf -n "$image")

# A string note: "NAME: value".
check_string() {
    local name=$1 want=$2 got
    got=$(sed -n "s/^$name: //p" <<<"$notes")
    if [ "$got" = "$want" ]; then pass "$name = $want"; else fail "$name" "got '$got', want '$want'"; fi
}

# A numeric note: "NAME:   0x... (N bytes)".
note_value() {
    sed -n "s/^$1: *\(0x[0-9a-f]*\|[0-9]*\) .*/\1/p" <<<"$notes"
}

check_number() {
    local name=$1 want=$2 got
    got=$(note_value "$name")
    if [ -n "$got" ] && [ $((got)) -eq $((want)) ]; then
        pass "$name = $want"
    else
        fail "$name" "got '${got:-none}', want $want"
    fi
}

symbol() {
    local addr
    addr=$(nm "$image" | awk -v s="$1" '$3 == s { print $1 }')
    echo "0x${addr:-0}"
}

check_string GUEST_OS patchbay
check_string XEN_VERSION xen-3.0
check_string LOADER generic
check_string PAE_MODE yes
check_number ENTRY "$(symbol xen_pv_entry)"
check_number HYPERCALL_PAGE "$(symbol hypercall_page)"
check_number PHYS32_ENTRY "$(symbol pvh_entry)"
check_number VIRT_BASE 0
check_number PADDR_OFFSET 0

page=$(note_value HYPERCALL_PAGE)
if [ -n "$page" ] && [ $((page % 4096)) -eq 0 ]; then
    pass "HYPERCALL_PAGE is page-aligned"
else
    fail "HYPERCALL_PAGE is page-aligned" "address '${page:-none}'"
fi

if grep -q '^FEATURES: ' <<<"$notes" && ! grep -q '^FEATURES: .*!' <<<"$notes"; then
    pass "FEATURES present, none required"
else
    fail "FEATURES present, none required" "$(grep '^FEATURES' <<<"$notes" || echo missing)"
fi

# readnotes does not name SUPPORTED_FEATURES (type 0x11); Xen builds dom0 only
# if it has XENFEAT_dom0 (bit 11): little-endian bytes 00 08 00 00.
if grep -A1 'Unknown note type: (0x00000011)' <<<"$raw" | grep -q 'description data: 00 08 00 00'; then
    pass "SUPPORTED_FEATURES has dom0"
else
    fail "SUPPORTED_FEATURES has dom0" "not found by readelf -n"
fi

if grep -qi 'error\|warning' <<<"$notes"; then
    fail "readnotes reports no problem" "$(grep -i 'error\|warning' <<<"$notes" | head -1)"
else
    pass "readnotes reports no problem"
fi

summary
