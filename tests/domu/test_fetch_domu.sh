#!/usr/bin/env bash
# tests/domu/test_fetch_domu.sh: tools/fetch-domu on a copy of the cache
# (BUILD pointed at a temporary directory), damaged in each way it must
# notice: a truncated .deb, a .deb altered at the same size, a deleted
# .deb, an altered initramfs or disk archive. Each must give one line
# naming the file and what is wrong, put it right (fetching only that
# package again, about 30 KB, with two runs at once), and leave a cache the
# next run accepts in silence. A root/ unpacked without the kernel parts
# taken since is unpacked again in silence. Ends with "N passed, N failed".
set -euo pipefail

# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
fetch=$root/tools/fetch-domu

# The real cache, fetched if need be.
"$fetch"
src=$build/domu

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export BUILD=$tmp/build
dom=$BUILD/domu

# A fresh copy of the cache: the large files hard-linked (the damage below
# replaces a file, never writes through a link), the small ones copied.
copy() {
    rm -rf "$BUILD"
    mkdir -p "$BUILD"
    cp -al "$src" "$dom"
    for f in debs.list initrd.stamp root.list fetch.log; do
        [ ! -e "$src/$f" ] || cp --remove-destination "$src/$f" "$dom/$f"
    done
}

# run_fetch NAME: runs fetch-domu (bounded: it must never hang); its
# stderr lands in $tmp/NAME.err and its status in $rc.
run_fetch() {
    rc=0
    timeout 300 "$fetch" >"$tmp/$1.out" 2>"$tmp/$1.err" || rc=$?
}

# expect_repair NAME REGEX: one line matching REGEX, status 0, then a
# silent second run, and the package set as it was.
expect_repair() {
    local name=$1 want=$2 lines
    run_fetch "$name"
    lines=$(cat "$tmp/$name.out" "$tmp/$name.err")
    check "$name: exit status 0" "$([ "$rc" = 0 ] && echo 1)" "status $rc: $lines"
    check "$name: one line naming the problem" \
        "$([ "$(grep -c . <<<"$lines")" = 1 ] && grep -Eq "$want" <<<"$lines" && echo 1)" \
        "got: $lines"
    run_fetch "$name-again"
    check "$name: the next run is silent" \
        "$([ "$rc" = 0 ] && [ ! -s "$tmp/$name-again.err" ] && [ ! -s "$tmp/$name-again.out" ] && echo 1)" \
        "status $rc: $(cat "$tmp/$name-again.out" "$tmp/$name-again.err")"
    check "$name: the same packages" "$(cmp -s "$src/debs.list" "$dom/debs.list" && echo 1)" \
        "$(diff "$src/debs.list" "$dom/debs.list" || true)"
}

victim=$(awk '$1 == "libuuid1" { print $5 }' "$src/debs.list")
size=$(awk '$1 == "libuuid1" { print $3 }' "$src/debs.list")
[ -n "$victim" ] || { echo "FAIL no libuuid1 in $src/debs.list"; exit 1; }
# shellcheck disable=SC2001 # sed's & (bash's needs bash 5.2)
victim_re=$(sed 's/[.+]/\\&/g' <<<"$victim")   # as a regex: debs' names hold . and +

copy
run_fetch intact
check "an intact cache: silent, status 0" \
    "$([ "$rc" = 0 ] && [ ! -s "$tmp/intact.err" ] && [ ! -s "$tmp/intact.out" ] && echo 1)" \
    "status $rc: $(cat "$tmp/intact.err")"

copy
head -c 1000 "$src/debs/$victim" >"$tmp/part"
mv "$tmp/part" "$dom/debs/$victim"
expect_repair truncated \
    "^fetch-domu: $victim_re is 1000 bytes, not $size \(truncated or corrupt\); downloading again$"

copy
cp "$src/debs/$victim" "$tmp/altered"
printf 'X' | dd of="$tmp/altered" bs=1 seek=500 conv=notrunc status=none
mv "$tmp/altered" "$dom/debs/$victim"
expect_repair altered \
    "^fetch-domu: $victim_re does not match its SHA256 in debs.list; downloading again$"

# Deleted, and two runs at once: one repairs, the other waits on the lock.
copy
rm "$dom/debs/$victim"
run_fetch parallel-a &
a=$!
run_fetch parallel-b
rc_b=$rc
wait $a && rc_a=0 || rc_a=$?
lines=$(cat "$tmp"/parallel-[ab].err)
check "deleted, two runs at once: both exit 0" "$([ "$rc_b" = 0 ] && [ "$rc_a" = 0 ] && echo 1)" \
    "statuses $rc_a $rc_b: $lines"
check "deleted, two runs at once: one line naming the problem" \
    "$([ "$(grep -c . <<<"$lines")" = 1 ] &&
       grep -Eq "^fetch-domu: $victim_re is missing; downloading again$" <<<"$lines" && echo 1)" \
    "got: $lines"
check "deleted: the package is back" \
    "$([ "$(sha256sum <"$dom/debs/$victim")" = "$(sha256sum <"$src/debs/$victim")" ] && echo 1)"

copy
cp "$src/initrd.cpio" "$tmp/initrd"
printf 'X' | dd of="$tmp/initrd" bs=1 seek=200 conv=notrunc status=none
mv "$tmp/initrd" "$dom/initrd.cpio"
run_fetch initrd
check "an altered initramfs is named and built again" \
    "$([ "$rc" = 0 ] && grep -Eq 'initrd\.cpio does not match its SHA256 in initrd\.stamp; building it again$' "$tmp/initrd.err" && echo 1)" \
    "status $rc: $(cat "$tmp/initrd.err")"
run_fetch initrd-again
check "an altered initramfs: the next run is silent" \
    "$([ "$rc" = 0 ] && [ ! -s "$tmp/initrd-again.err" ] && echo 1)" "$(cat "$tmp/initrd-again.err")"

# The disk archive (tools/run --disk) is checked as the initramfs is.
copy
cp "$src/disk.cpio" "$tmp/disk"
printf 'X' | dd of="$tmp/disk" bs=1 seek=200 conv=notrunc status=none
mv "$tmp/disk" "$dom/disk.cpio"
run_fetch disk
check "an altered disk archive is named and built again" \
    "$([ "$rc" = 0 ] && grep -Eq 'disk\.cpio does not match its SHA256 in initrd\.stamp; building it again$' "$tmp/disk.err" && echo 1)" \
    "status $rc: $(cat "$tmp/disk.err")"
run_fetch disk-again
check "an altered disk archive: the next run is silent" \
    "$([ "$rc" = 0 ] && [ ! -s "$tmp/disk-again.err" ] && echo 1)" "$(cat "$tmp/disk-again.err")"

# A root/ unpacked by an older fetch-domu, without the kernel parts taken
# since (its root.list has no such line): unpacked again, in silence.
copy
sed -i '/^# kernel parts: /d' "$dom/root.list"
rm -f "$dom"/root/lib/modules/*/kernel/drivers/block/xen-blkfront.ko
run_fetch parts
check "kernel parts added since: unpacked again, silent, status 0" \
    "$([ "$rc" = 0 ] && [ ! -s "$tmp/parts.err" ] && cmp -s "$src/root.list" "$dom/root.list" &&
       ls "$dom"/root/lib/modules/*/kernel/drivers/block/xen-blkfront.ko >/dev/null && echo 1)" \
    "status $rc: $(cat "$tmp/parts.err")"

summary
