#!/usr/bin/env bash
# tests/domu/test_dom0_template.sh: dom0 templates (tools/pbtools/run/dom0_template.py)
# in a directory of their own. The first domU run saves its dom0 as a
# template, the second starts from it: both end as a fresh boot does (the
# kernel's fault=pf verdict, status 1), and the restored run's whole console
# still begins with Xen's boot. A damaged template (its saved state cut
# short) ends its run at once with a line saying so, not at the time-out,
# and is deleted (the first run shows a missing one is saved anew). With
# PATCHBAY_DOM0_TEMPLATES=off a run neither saves nor restores. Ends with
# "N passed, N failed".
set -uo pipefail
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PATCHBAY_DOM0_TEMPLATE_DIR=$tmp/templates

# run NAME: a domU run of fault=pf; its console in $tmp/NAME.log (the
# domU's) and $tmp/NAME.full.log, its stderr in $tmp/NAME.err, status in $rc.
run() {
    rc=0
    timeout 300 "$root/tools/run" --domu --quiet --timeout 120 --log "$tmp/$1.log" \
        --image "$build/patchbay.elf" -- fault=pf 2>"$tmp/$1.err" || rc=$?
}
verdict() { tail -n 1 "$tmp/$1.log"; }

run first
check "the first run saves its dom0 and ends as a fresh boot (status 1, #PF)" \
    "$([ $rc = 1 ] && grep -q '^run: dom0 saved as template' "$tmp/first.err" &&
        [ "$(verdict first)" = 'patchbay: FAIL trap #PF' ] && echo 1)" \
    "status $rc, $(verdict first); $(head -n 2 "$tmp/first.err")"
state=$(ls "$tmp"/templates/*.state 2>/dev/null)
check "one template saved" "$([ -n "$state" ] && [ "$(wc -w <<<"$state")" = 1 ] && echo 1)" "$state"

run second
check "the second run starts from it and ends the same" \
    "$([ $rc = 1 ] && grep -q '^run: dom0 from template' "$tmp/second.err" &&
        [ "$(verdict second)" = 'patchbay: FAIL trap #PF' ] && echo 1)" \
    "status $rc, $(verdict second); $(head -n 2 "$tmp/second.err")"
check "its whole console begins with Xen's boot, and says dom0 waited once" \
    "$(head -n 1 "$tmp/second.full.log" | grep -q '(XEN)' &&
        [ "$(grep -c "dom0: waiting for the run's files" "$tmp/second.full.log")" = 1 ] && echo 1)" \
    "$(head -n 1 "$tmp/second.full.log")"

truncate -s 4096 "$state"
run damaged
check "a damaged template ends its run before the time-out, saying so" \
    "$([ $rc != 0 ] && [ $rc != 124 ] && grep -q 'dom0 template restore\|QEMU failed' "$tmp/damaged.err" &&
        grep -q '^patchbay: FAIL' "$tmp/damaged.log" && echo 1)" \
    "status $rc; $(tail -n 2 "$tmp/damaged.err")"
check "and is deleted, so the next run saves a new one" "$([ ! -e "$state" ] && echo 1)"

PATCHBAY_DOM0_TEMPLATES=off run off
check "PATCHBAY_DOM0_TEMPLATES=off: a fresh boot, no template line" \
    "$([ $rc = 1 ] && ! grep -q 'template' "$tmp/off.err" && echo 1)" \
    "status $rc; $(head -n 2 "$tmp/off.err")"
summary
