# tools/domu/lifecycle.sh: the lifecycle plan's part of dom0's /init
# (tools/domu/init), which sources it.
# shellcheck shell=sh
# shellcheck disable=SC2154 # the variables /init sets before it sources this
#
# With a lifecycle plan (tools/run --lifecycle: LIFECYCLE in
# /patchbay/params, steps save-restore, move or migrate), /init carries the
# plan out against the running domain once the guest says it takes suspend
# requests, each step ending in a new domain, and takes the status from the
# last one.

# The lifecycle plan's bounds, in seconds: no wait of the door is endless.
READY_WAIT=60    # for the guest to write control/feature-suspend = 1
ACK_WAIT=10      # for it to acknowledge a suspend request (libxl would wait 60)
STEP_WAIT=120    # for one step's xl commands to end (save-restore, move)
MIGRATE_WAIT=300 # for a live migration's: its copy rounds chase the guest's writes
END_WAIT=120     # for the last domain to stop after the last step
LC_DIR=/run/lifecycle                  # checkpoints, and each step's xl output

# lc_fail WHY: a step of the plan failed: its xl output on dom0's lines,
# the domU's last lines, and the end with status 104.
lc_fail() {
    show_step
    close_console
    finish 104 "lifecycle-door: $*"
}

# show_step: the step's xl output, and how each command ended, as dom0's
# lines (tools/run --verbose shows them).
show_step() {
    for f in "$LC_DIR"/*.log; do
        [ -e "$f" ] && sed "s|^|dom0: ${f##*/}: |" "$f"
    done
    for f in "$LC_DIR"/*.rc; do
        [ -e "$f" ] && read -r rc at <"$f" &&
            echo "dom0: ${f##*/}: status $rc after $(seconds $((at - t_step))) s"
    done
}

# wait_ready: returns once the guest has written control/feature-suspend
# = 1, as it does when it watches control/shutdown; returns 1 if the domain
# stops first (its own status then counts); ends the run after READY_WAIT s.
wait_ready() {
    t0=$(now_cs)
    while [ "$(xenstore-read "/local/domain/$domid/control/feature-suspend" 2>/dev/null)" != 1 ]; do
        why=$(domain_state "$domid")
        if [ "$why" != running ]; then
            echo "dom0: domain $domid stopped ($why) before it took suspend requests"
            return 1
        fi
        [ "$(since_cs "$t0")" -lt $((READY_WAIT * 100)) ] ||
            lc_fail "the guest did not write control/feature-suspend = 1 within $READY_WAIT s"
        sleep 0.5
    done
}

# run_xl NAME CMD...: runs CMD (xl), its pid in $LC_DIR/NAME.pid for the
# watchdog to end; once it has ended, its status and the time in NAME.rc.
run_xl() {
    name=$LC_DIR/$1
    shift
    # shellcheck disable=SC2016 # the inner shell's $$ and $0
    sh -c 'echo $$ >"$0"; exec "$@"' "$name.pid" "$@"
    echo "$? $(now_cs)" >"$name.rc.tmp" && mv "$name.rc.tmp" "$name.rc"
}

# watch_step LIMIT NAME...: waits for the xl commands run_xl started as NAME...
# to end; when one fails, ends the others (the other end of a pipe can
# wait for ever on a helper that still holds it). A watchdog ends them, and
# the run, when the guest leaves a suspend request unacknowledged for
# ACK_WAIT s, or the step takes LIMIT s.
watch_step() {
    limit=$1
    shift
    t0=$(now_cs) asked=''
    while :; do
        running=''
        for n in "$@"; do
            if [ ! -e "$LC_DIR/$n.rc" ]; then
                running=1
            elif [ "$(cut -d' ' -f1 "$LC_DIR/$n.rc")" != 0 ]; then
                end_xl "$@"
                return
            fi
        done
        [ -n "$running" ] || return 0
        if [ "$(xenstore-read "/local/domain/$domid/control/shutdown" 2>/dev/null)" = suspend ]; then
            [ -n "$asked" ] || asked=$(now_cs)
            [ "$(since_cs "$asked")" -lt $((ACK_WAIT * 100)) ] ||
                stop_step "the guest did not acknowledge the suspend request within $ACK_WAIT s"
        else
            asked=''
        fi
        [ "$(since_cs "$t0")" -lt $((limit * 100)) ] ||
            stop_step "xl did not finish within $limit s"
        sleep 0.5
    done
}

# end_xl NAME...: ends those of the xl commands NAME... still running, and
# waits (briefly) for their statuses.
end_xl() {
    for n in "$@"; do
        [ -e "$LC_DIR/$n.rc" ] || kill "$(cat "$LC_DIR/$n.pid" 2>/dev/null)" 2>/dev/null
    done
    for n in "$@"; do
        tries=0
        while [ ! -e "$LC_DIR/$n.rc" ] && [ $tries -lt 10 ]; do
            sleep 0.5
            tries=$((tries + 1))
        done
    done
}

# stop_step WHY: the watchdog ends the step's xl commands and the run. A
# suspend request still pending is withdrawn: a late acknowledgement would
# suspend a guest nobody saves any more. A guest that stopped on its own
# meanwhile ends the run with its own status instead.
stop_step() {
    for f in "$LC_DIR"/*.pid; do
        kill "$(cat "$f")" 2>/dev/null
    done
    guest_stopped "watchdog: $*"
    if [ "$(xenstore-read "/local/domain/$domid/control/shutdown" 2>/dev/null)" = suspend ]; then
        xenstore-write "/local/domain/$domid/control/shutdown" ""
    fi
    lc_fail "$what: $*"
}

# guest_stopped WHY: when the domain $domid has stopped on its own during
# the step (ended its run, or crashed), its own status says more than xl's
# failure to move it (WHY): the run ends with it. Returns otherwise.
guest_stopped() {
    why=$(domain_state "$domid")
    case $why in
    running | gone | suspend) return ;;
    esac
    show_step
    echo "dom0: $what: $1"
    echo "dom0: domain $domid stopped ($why) during $what"
    early="during $what"
    end_run
}

# check_xl NAME...: ends the run unless every xl command run_xl ran as NAME
# exited 0, naming the one that failed first: in a pipe, the other one's
# failure follows from it.
check_xl() {
    failed='' first=''
    for n in "$@"; do
        read -r rc at <"$LC_DIR/$n.rc"
        if [ "$rc" != 0 ] && { [ -z "$failed" ] || [ "$at" -lt "$first" ]; }; then
            failed=$n first=$at code=$rc
        fi
    done
    [ -n "$failed" ] || return 0
    log=$LC_DIR/$failed.log
    error=$(grep -m 1 -E 'error|[Ff]ailed' "$log" || tail -n 1 "$log")
    guest_stopped "xl $failed exited with status $code: $error"
    lc_fail "$what: xl $failed exited with status $code: $error"
}

# step_save_restore: xl save to a checkpoint in dom0's tmpfs (it destroys
# the domain), then xl restore of it into a new domain.
step_save_restore() {
    run_xl save xl -v save "$domid" "$LC_DIR/checkpoint" >"$LC_DIR/save.log" 2>&1 &
    watch_step $STEP_WAIT save
    check_xl save
    size=$(stat -c %s "$LC_DIR/checkpoint")
    # -e: no xl waits in the background for the domain's death; /init
    # watches it itself, through every domain of the plan.
    run_xl restore xl -v restore -e "$LC_DIR/checkpoint" >"$LC_DIR/restore.log" 2>&1 &
    watch_step $STEP_WAIT restore
    check_xl restore
    rm -f "$LC_DIR/checkpoint"
    moved="checkpoint $(megabytes "$size")"
}

# step_move: xl save piped into xl restore, a stop-and-copy into a new
# domain (dom0 has no /dev/stdout: /proc/self/fd/N are the pipe's ends).
# The new domain is created while the old one still exists, and libxl
# refuses a second domain of the same name: it is restored as
# NAME--incoming, as a migration's is, and renamed. Nothing counts the
# stream's bytes on the way: every extra hop costs dom0 a system call and
# a switch per pipe-full (a dd in the pipe made a move half as long again,
# a dd reading 4 KiB at a time 4 times as long): the line gives libxc's
# own count of the frames it went through (a PVH domain's include the
# holes of its physical map).
step_move() {
    sed "s/^name = .*/name = \"$NAME--incoming\"/" /patchbay/domu.cfg >"$LC_DIR/incoming.cfg"
    {
        run_xl save xl -v save "$domid" /proc/self/fd/1 2>"$LC_DIR/save.log" |
            run_xl restore xl -v restore -e "$LC_DIR/incoming.cfg" /proc/self/fd/0 \
                >"$LC_DIR/restore.log" 2>&1
    } &
    watch_step $STEP_WAIT save restore
    check_xl save restore
    if ! new=$(xl domid "$NAME--incoming" 2>/dev/null) ||
            ! xl rename "$new" "$NAME" >>"$LC_DIR/restore.log" 2>&1; then
        lc_fail "$what: the new domain $NAME--incoming could not be renamed $NAME"
    fi
    # "xc: detail: Frames: 32768/32768  100%", the last of libxc's progress
    frames=$(sed -n 's|.*Frames: \([0-9]*\)/\1 .*|\1|p' "$LC_DIR/save.log" | tail -n 1)
    moved="libxc: ${frames:-?} frames"
}

# step_migrate: a live migration to localhost: with an empty ssh command xl
# runs its host argument as the receiver, whose new domain is
# NAME--incoming until the end. xl hides libxc's progress while it
# migrates (no line about the iterations, even with -vvv), and a counter in
# the stream would hold back the small messages of its hand-over; so the
# line says when libxl's own lines came: the live copy until the suspend
# request, then the guest suspended until the new domain started.
step_migrate() {
    {
        run_xl migrate xl -vvv migrate -s "" "$domid" "exec xl -vv migrate-receive -e" 2>&1
    } | stamp "$LC_DIR/migrate.log" &
    watch_step $MIGRATE_WAIT migrate
    tries=0
    while [ ! -e "$LC_DIR/migrate.log.done" ] && [ $tries -lt 10 ]; do
        sleep 0.5
        tries=$((tries + 1))
    done
    check_xl migrate
    moved=$(awk -v t0="$t_step" '
        /issuing .* suspend request/ && !asked { asked = $1 }
        /guest has suspended/ && !down { down = $1 }
        /migration target: Domain started/ && !up { up = $1 }
        END {
            if (asked && down && up)
                printf "live copy %.1f s, then suspended %.1f s\n", (asked - t0) / 100, (up - down) / 100
            else
                print "xl did not say when it suspended the guest"
        }' "$LC_DIR/migrate.log")
}

# stamp LOG: writes each line of its input to LOG behind the time it came
# (now_cs, without a fork), then creates LOG.done.
stamp() {
    while IFS= read -r line; do
        read -r up _ </proc/uptime
        echo "${up%.*}${up#*.} $line"
    done >"$1"
    : >"$1.done"
}

# megabytes BYTES: in MB (10^6 bytes) with one decimal.
megabytes() { awk -v b="$1" 'BEGIN { printf "%.1f MB\n", b / 1e6 }'; }

# run_step I K STEP: carries out step I of K; prints its line and sets
# domid to the new domain, or ends the run.
run_step() {
    rm -f "$LC_DIR"/*.rc "$LC_DIR"/*.pid "$LC_DIR"/*.log "$LC_DIR"/*.done
    what="step $1/$2 $3"
    old=$domid
    t_step=$(now_cs)
    "step_$(echo "$3" | tr - _)"
    took=$(since_cs "$t_step")
    domid=$(xl domid "$NAME" 2>/dev/null)
    state=$(domain_state "${domid:-none}")
    if [ -z "$domid" ] || [ "$domid" = "$old" ] || [ "$state" = gone ]; then
        lc_fail "$what: xl ended without a new domain $NAME"
    fi
    show_step
    echo "lifecycle-door: $what: domain $old -> $domid in $(seconds "$took") s ($moved)"
    echo "$1/$2 $3 $t_step $((t_step + took))" >>"$STEPS"
    domains="$domains $domid"
}

# lifecycle: the run with a plan. Creates the domain without waiting for
# it, carries out each step once the guest takes suspend requests, then
# waits for the last domain to stop; sets domid, why, and early when the
# guest stopped before the plan was through.
lifecycle() {
    mkdir -p "$LC_DIR"
    # xenconsoled names a domain's log after it: the incoming domain of a
    # migration writes to the same fifo.
    ln -s "guest-$NAME.log" "/var/log/xen/console/guest-$NAME--incoming.log"
    echo "dom0: toolstack up; xl create /patchbay/domu.cfg; the plan: $LIFECYCLE"
    # -e: no xl waits in the background for the domain's death (it would
    # end at the first suspend); /init watches each domain itself.
    xl -vvv create -e ${DISK:+-p} /patchbay/domu.cfg >"$XL_LOG" 2>&1
    rc=$?
    sed 's/^/dom0: xl: /' "$XL_LOG"
    domid=$(xl domid "$NAME" 2>/dev/null)
    if [ "$rc" != 0 ] || [ -z "$domid" ]; then
        echo "$END_MARK" >&3
        error=$(xl_error)
        fail "xl create exited with status $rc: $error"
    fi
    if [ -n "$DISK" ]; then
        disk_backend "$domid"
        xl unpause "$domid" || disk_fail "xl unpause $domid failed"
    fi
    domains=$domid
    # shellcheck disable=SC2086 # the plan's words
    set -- $LIFECYCLE
    if ! wait_ready; then
        early="before step 1/$#"
        return
    fi
    [ -z "$NET" ] || net_started_wait
    i=0
    for step in "$@"; do
        i=$((i + 1))
        why=$(domain_state "$domid")
        if [ "$why" != running ]; then
            echo "dom0: domain $domid stopped ($why) before step $i/$#"
            # shellcheck disable=SC2034 # /init's end_run reads it
            early="before step $i/$#"
            return
        fi
        run_step "$i" "$#" "$step"
    done
    echo "dom0: the plan is through; domains $domains"
    : >/run/net-finish
    t0=$(now_cs)
    while why=$(domain_state "$domid"); [ "$why" = running ]; do
        [ "$(since_cs "$t0")" -lt $((END_WAIT * 100)) ] ||
            lc_fail "the guest (domain $domid) did not end its run within $END_WAIT s of the last step"
        sleep 1
    done
    echo "dom0: domain $domid stopped: $why"
}
