#!/usr/bin/env bash
# tests/xen/ud2_at.sh IMAGE SYMBOL OUT: writes OUT, a copy of IMAGE whose
# code at SYMBOL starts with a ud2, for the tests of what tools/run says
# when Xen ends a guest that dies at its entry before it can say anything.
set -euo pipefail

image=$1 symbol=$2 out=$3
# The file offset of SYMBOL: its address in the PT_LOAD that holds it.
addr=$(nm "$image" | awk -v s="$symbol" '$3 == s { print $1 }')
[ -n "$addr" ] || { echo "ud2_at: no $symbol in $image" >&2; exit 1; }
offset=
while read -r type off vaddr _ filesz _; do
    if [ "$type" = LOAD ] && (( 16#$addr >= vaddr && 16#$addr < vaddr + filesz )); then
        offset=$(( 16#$addr - vaddr + off ))
        break
    fi
done < <(readelf -lW "$image" | grep '^ *LOAD ')
[ -n "$offset" ] || { echo "ud2_at: $symbol ($addr) is in no PT_LOAD of $image" >&2; exit 1; }
cp "$image" "$out"
printf '\x0f\x0b' | dd of="$out" bs=1 seek="$offset" conv=notrunc status=none
