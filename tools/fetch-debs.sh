# shellcheck shell=bash disable=SC2154 # the variables are the sourcing script's
# tools/fetch-debs.sh: what tools/fetch-domu and tools/fetch-kvm share,
# sourced by both: fetching Debian packages with apt-get download, checking
# each .deb against the SHA256 of apt's record for its version, and
# unpacking them with dpkg-deb, never installing anything.
#
# The sourcing script sets: prog (its name, for messages), dir (its cache),
# debs (the .deb files), manifest (debs.list: "PACKAGE VERSION SIZE SHA256
# FILE" a line), log, want (resolve's answer), PKGS (the packages), and
# optionally KERNEL_META (a metapackage naming the kernel package to add)
# and KERNEL_PARTS (what to take of that kernel package).

die() { echo "$prog: $*" >&2; exit 1; }
say() { echo "$prog: $*" >&2; }

sha() { sha256sum "$1" | cut -d' ' -f1; }

# problem_debs: prints why the cached package set is unusable (one line), or
# nothing when every .deb debs.list names is there with its size and SHA256.
problem_debs() {
    [ -s "$manifest" ] || { echo "no package list ($manifest)"; return; }
    local file names=()
    while read -r _ _ _ _ file; do
        [ -n "$file" ] || { echo "$manifest is malformed"; return; }
        [ -f "$debs/$file" ] || { echo "$file is missing"; return; }
        names+=("$file")
    done <"$manifest"
    local pkg
    for pkg in "${PKGS[@]}"; do
        awk -v p="$pkg" '$1 == p { found = 1 } END { exit !found }' "$manifest" ||
            { echo "debs.list has no $pkg (the package set grew)"; return; }
    done
    # One stat and one sha256sum for all: this runs before every boot.
    (cd "$debs" && stat -c '%s %n' "${names[@]}" && sha256sum "${names[@]}") |
        awk -v list="$manifest" '
            BEGIN { while ((getline l < list) > 0) { split(l, f, " "); size[f[5]] = f[3]; sum[f[5]] = f[4] } }
            length($1) != 64 && $1 != size[$2] {
                print $2 " is " $1 " bytes, not " size[$2] " (truncated or corrupt)"; exit }
            length($1) == 64 && $1 != sum[$2] {
                print $2 " does not match its SHA256 in debs.list"; exit }'
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        sudo -n "$@"
    else
        return 1
    fi
}

# The package lists are missing on a fresh machine or container: update
# them once, as fetch-xen does, when apt does not know a package.
lists_updated=
update_lists() {
    [ -z "$lists_updated" ] || return 1
    lists_updated=1
    say "apt does not know $1; running apt-get update"
    as_root apt-get update >>"$log" 2>&1 ||
        die "apt-get update could not run (log: $log); as root: apt-get update"
}

# apt_records SPEC...: "PACKAGE VERSION SIZE SHA256 DEPENDS" for each PACKAGE
# or PACKAGE=VERSION apt knows (its candidate, or that version). One
# apt-cache call for all: each takes seconds.
apt_records() {
    apt-cache show --no-all-versions "$@" 2>>"$log" | awk '
        function out() { if (p != "") print p, v, z, s, d; p = v = z = s = d = "" }
        $1 == "Package:" { out(); p = $2 } $1 == "Version:" { v = $2 }
        $1 == "Size:" { z = $2 } $1 == "SHA256:" { s = $2 }
        $1 == "Depends:" { sub(/^Depends: */, ""); gsub(/ /, ""); d = $0 }
        END { out() }' || true
}

# resolve: writes $want, "PACKAGE VERSION SIZE SHA256" for every .deb to
# have: the versions debs.list pins while apt still has them (a repair
# fetches the same files), apt's candidates for packages PKGS gained since
# and for everything otherwise.
resolve() {
    local specs=() n records kernel pkg
    if [ -s "$manifest" ]; then
        mapfile -t specs < <(awk '{ print $1 "=" $2 }' "$manifest")
        for pkg in "${PKGS[@]}"; do
            awk -v p="$pkg" '$1 == p { found = 1 } END { exit !found }' "$manifest" ||
                specs+=("$pkg")
        done
        records=$(apt_records "${specs[@]}")
        n=$(grep -c . <<<"$records" || true)
        if [ "$n" -eq ${#specs[@]} ]; then
            cut -d' ' -f1-4 <<<"$records" >"$want"
            return
        fi
    fi
    local probe=${KERNEL_META:-${PKGS[0]}}
    records=$(apt_records "${PKGS[@]}" ${KERNEL_META:+"$KERNEL_META"})
    if ! grep -q "^$probe " <<<"$records"; then
        update_lists "$probe"
        records=$(apt_records "${PKGS[@]}" ${KERNEL_META:+"$KERNEL_META"})
    fi
    kernel=
    if [ -n "${KERNEL_META:-}" ]; then
        # linux-image-amd64 depends on "linux-image-6.1.0-56-amd64(=6.1.192-2)".
        kernel=$(awk -v m="$KERNEL_META" '$1 == m { print $5 }' <<<"$records" |
                 grep -o 'linux-image-[0-9][^(,|]*-amd64' | head -n 1)
        [ -n "$kernel" ] || die "cannot tell which kernel $KERNEL_META depends on (log: $log)"
        records=$(grep -v "^$KERNEL_META " <<<"$records"; apt_records "$kernel")
    fi
    for pkg in "${PKGS[@]}" $kernel; do
        grep -q "^$pkg " <<<"$records" || die "apt knows no package $pkg (log: $log)"
    done
    cut -d' ' -f1-4 <<<"$records" >"$want"
}

# download: every .deb $want lists into $debs, each checked against the size
# and SHA256 of apt's record for its version; writes the new debs.list.
download() {
    local tmp=$dir/debs.tmp pkg ver size sum f deb fetch=() list=()
    local -A have
    rm -rf "$tmp"
    mkdir -p "$tmp" "$debs"
    # Keep the cached files that still match (linked: should the download
    # fail, the cache stays as it was); fetch the rest.
    while read -r pkg ver size sum; do
        deb=$(awk -v p="$pkg" -v v="$ver" '$1 == p && $2 == v { print $5 }' "$manifest" 2>/dev/null || true)
        if [ -n "$deb" ] && [ -f "$debs/$deb" ] && [ "$(sha "$debs/$deb")" = "$sum" ]; then
            ln "$debs/$deb" "$tmp/"
        else
            fetch+=("$pkg=$ver")
        fi
    done <"$want"
    if [ ${#fetch[@]} -gt 0 ]; then
        # apt-get download saves the .deb files into the current directory.
        (cd "$tmp" && apt-get download "${fetch[@]}") >>"$log" 2>&1 || {
            update_lists "${fetch[0]}" &&
                (cd "$tmp" && apt-get download "${fetch[@]}") >>"$log" 2>&1
        } || { tail -n 5 "$log" >&2; die "apt-get download failed (log: $log)"; }
    fi
    for f in "$tmp"/*.deb; do
        # shellcheck disable=SC2016 # dpkg-deb's format, not the shell's
        have[$(dpkg-deb --showformat='${Package}=${Version}' -W "$f")]=$f
    done
    while read -r pkg ver size sum; do
        deb=${have[$pkg=$ver]:-}
        [ -n "$deb" ] || die "apt-get download gave no .deb for $pkg=$ver (log: $log)"
        f=$(basename "$deb")
        [ "$(stat -c %s "$deb")" = "$size" ] ||
            die "downloaded $f is $(stat -c %s "$deb") bytes; apt's record for $pkg=$ver says $size"
        [ "$(sha "$deb")" = "$sum" ] ||
            die "downloaded $f does not match the SHA256 of apt's record for $pkg=$ver"
        list+=("$pkg $ver $size $sum $f")
    done <"$want"
    rm -rf "$debs"
    mv "$tmp" "$debs"
    printf '%s\n' "${list[@]}" >"$manifest.tmp"
    mv "$manifest.tmp" "$manifest"
    rm -f "$want"
}

# unpack: every .deb into root/ (and root.list, root_list of it).
unpack() {
    local tmp=$dir/root.tmp deb
    rm -rf "$tmp"
    mkdir -p "$tmp"
    for deb in "$debs"/*.deb; do
        case $(basename "$deb") in
        linux-image-*)
            dpkg-deb --fsys-tarfile "$deb" |
                tar -x -C "$tmp" --wildcards "${KERNEL_PARTS[@]}"
            ;;
        *) dpkg-deb -x "$deb" "$tmp" ;;
        esac >>"$log" 2>&1 || die "unpacking $(basename "$deb") failed (log: $log)"
    done
    rm -rf "$dir/root"
    mv "$tmp" "$dir/root"
    root_list >"$dir/root.list"
}
