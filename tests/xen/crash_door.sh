# shellcheck shell=bash disable=SC2154 # root: tests/lib.sh sets it, sourced first
# tests/xen/crash_door.sh, sourced after tests/lib.sh: a guest that dies
# before it can say how it went, through one door. crash_copy IMAGE SYMBOL
# makes $tmp/crash.elf, a copy of IMAGE with a ud2 at SYMBOL (the entry
# point under test); crash_door NAME STATUS VERDICT [TOOLS/RUN OPTIONS...]
# runs it and checks tools/run's status and that the console holds exactly
# one verdict line, matching the regex VERDICT. $console is left for more.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

crash_copy() {
    "$root/tests/xen/ud2_at.sh" "$1" "$2" "$tmp/crash.elf" || {
        echo "FAIL cannot make the crashing copy of $1"
        exit 1
    }
}

crash_door() {
    local name=$1 want=$2 verdict=$3 rc=0
    shift 3
    "$root/tools/run" "$@" --quiet --log "$tmp/$name.log" --image "$tmp/crash.elf" \
        --timeout 120 2>"$tmp/$name.err" || rc=$?
    console=$(tr -d '\r' <"$tmp/$name.log")
    check "$name: status $want" "$([ "$rc" = "$want" ] && echo 1)" \
        "status $rc: $(cat "$tmp/$name.err")"
    check "$name: one verdict line, tools/run's: $verdict" \
        "$([ "$(grep -c '^patchbay: ' <<<"$console")" = 1 ] &&
            grep -qx "$verdict" <<<"$console" && echo 1)" \
        "console: $(tail -n 3 <<<"$console")"
}
