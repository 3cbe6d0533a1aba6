# shellcheck shell=bash
# tests/lib.sh: what every shell test shares, sourced first: the top of
# the tree ($root), the build directory ($build, from BUILD, made
# absolute), one PASS or FAIL line per check, and the closing summary
# line `N passed, N failed` that the suite's table counts.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
passed=0 failed=0

# pass NAME; fail NAME [DETAIL]
pass() {
    passed=$((passed + 1))
    echo "PASS $1"
}
fail() {
    failed=$((failed + 1))
    echo "FAIL $1${2:+: $2}"
}

# check NAME OK [DETAIL]: passes when OK is 1 (e.g. "$([ ... ] && echo 1)").
check() {
    if [ "${2:-}" = 1 ]; then pass "$1"; else fail "$1" "${3:-}"; fi
}

# check_status NAME STATUS [DETAIL]: passes when STATUS (a $?) is 0.
check_status() {
    if [ "${2:-1}" -eq 0 ]; then pass "$1"; else fail "$1" "${3:-}"; fi
}

# check_cmd NAME COMMAND...: passes when COMMAND succeeds.
check_cmd() {
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}

# summary: the closing line; its status is the test's (0: nothing failed).
summary() {
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
}
