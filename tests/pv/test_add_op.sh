#!/usr/bin/env bash
# Adding a paravirt op touches at most four source files: tests/pv/add_op.patch
# (the worked example of docs/pv-ops.md) adds io_delay, a site op, to a copy
# of the tree. The copy must build, list the new sites, patch them natively
# to the registry's instruction and under Xen to a direct call, and boot.
# Ends with "N passed, N failed".
set -u
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
patch_file="$root/tests/pv/add_op.patch"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -x -C "$work/"
files=$(grep -c '^+++ ' "$patch_file")
sources=$(grep '^+++ ' "$patch_file" | grep -cvE '^\+\+\+ b/(docs|tests)/')
[ "$sources" -le 4 ]
check_status "the patch touches $sources source files (at most 4)" $? "$(grep '^+++ ' "$patch_file")"
(cd "$work" && patch -p1 --quiet <"$patch_file")
check_status "the patch applies to this tree ($files files)" $?
(cd "$work" && make -s -j2 image >"$work/build.log" 2>&1)
check_status "the tree with io_delay builds" $? "$(tail -n 5 "$work/build.log")"

(cd "$work" && tools/pvsites build/patchbay.elf --json --disasm >"$work/pvsites.json" \
    2>"$work/pvsites.err")
summary=$(python3 - "$work/pvsites.json" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    sites = [s for s in json.load(f) if s["op"] == "io_delay"]
# The padding comes first: the instruction is the site's last two bytes.
native = {s["backends"]["native"]["bytes"].replace(" ", "")[-4:] for s in sites}
xen = {s["backends"]["xen-pv"]["result"] for s in sites}
print(len(sites), ",".join(sorted(native)), ",".join(sorted(xen)))
PY
)
read -r count native xen <<<"$summary"
[ "${count:-0}" -gt 0 ]
check_status "pvsites lists $count io_delay sites" $? "$(cat "$work/pvsites.err")"
[ "$native" = "e680" ]
check_status "natively each becomes the registry's out %al,\$0x80 (e6 80)" $? "got '$native'"
[ "$xen" = "call" ]
check_status "under Xen PV each becomes a direct call" $? "got '$xen'"

(cd "$work" && tools/run --quiet --timeout 60 --log "$work/boot.log" >/dev/null 2>&1)
rc=$?
[ $rc -eq 0 ] && grep -q '^patchbay: PASS' "$work/boot.log"
check_status "it boots natively to PASS" $? "status $rc: $(tail -n 3 "$work/boot.log" 2>/dev/null)"

summary
