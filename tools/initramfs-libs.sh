# shellcheck shell=bash
# tools/initramfs-libs.sh: sourced by tools/domu/mkinitramfs and
# tools/kvm/mkinitramfs. copy_libs ROOT STAGE BINARY... copies into STAGE
# the shared libraries the binaries need, found under ROOT (unpacked
# Debian packages) through their ELF NEEDED entries breadth first, plus
# libgcc_s.so.1, which glibc loads at run time for pthread_cancel, and the
# dynamic loader the binaries' PT_INTERP names.

LIBDIRS=(lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu)
LIBDIR=lib/x86_64-linux-gnu          # where every library goes in the initramfs

copy_libs() {
    local root=$1 stage=$2 lib path
    shift 2
    find_lib() {
        local d
        for d in "${LIBDIRS[@]}"; do
            [ -e "$root/$d/$1" ] && { echo "$root/$d/$1"; return; }
        done
        echo "mkinitramfs: library $1 not found under $root" >&2
        exit 1
    }
    needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
    local -A done_libs
    local queue=() b
    mkdir -p "$stage/$LIBDIR" "$stage/lib64"
    for b in "$@"; do mapfile -t -O "${#queue[@]}" queue < <(needed "$root/$b"); done
    queue+=(libgcc_s.so.1)
    while [ ${#queue[@]} -gt 0 ]; do
        lib=${queue[0]} queue=("${queue[@]:1}")
        [ -z "${done_libs[$lib]:-}" ] || continue
        done_libs[$lib]=1
        path=$(find_lib "$lib")
        cp -L "$path" "$stage/$LIBDIR/$lib"
        mapfile -t -O "${#queue[@]}" queue < <(needed "$stage/$LIBDIR/$lib")
    done
    cp -L "$(find_lib ld-linux-x86-64.so.2)" "$stage/lib64/ld-linux-x86-64.so.2"
}
