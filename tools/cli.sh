# shellcheck shell=bash
# tools/cli.sh: what every shell tool of tools/ does first with its
# arguments, sourced so each answers --help the same way, without side
# effects, and refuses what it does not take with status 2 and one line.

# cli_help FILE: FILE's header comment, the lines after the shebang.
cli_help() {
    sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$1"
}

# cli_args TOOL FILE MAX ARGS...: --help or -h prints the header and exits
# 0; an unknown option, or more than MAX arguments (-1: any number), exits 2.
cli_args() {
    local tool=$1 file=$2 max=$3 a
    shift 3
    case "${1:-}" in -h | --help)
        cli_help "$file"
        exit 0
        ;;
    esac
    for a in "$@"; do
        case $a in -*)
            echo "$tool: unknown option $a (tools/$tool --help)" >&2
            exit 2
            ;;
        esac
    done
    if [ "$max" -ge 0 ] && [ "$#" -gt "$max" ]; then
        echo "$tool: takes at most $max argument(s), given $# (tools/$tool --help)" >&2
        exit 2
    fi
}
