# tools/domu/net.sh: the network part of dom0's /init (tools/domu/init),
# which sources it.
# shellcheck shell=sh
# shellcheck disable=SC2154 # the variables /init sets before it sources this
#
# With a network (tools/run --net: NET in /patchbay/params), /init loads
# netback and the bridge, makes the bridge xenbr0 with NET_HOST/24 that the
# xl config's vif joins (xl's vif-bridge hotplug script adds vifD.0 to it),
# and once the guest says its interface is up, runs dom0's peers against
# NET_GUEST: busybox ping, then the UDP client (/patchbay/udpclient), whose
# end datagram ends the guest's run. Under a lifecycle plan the client
# sends all through the plan and is told to finish once it is through.
# It also floods the guest with pings (NET_FLOOD), takes its vif away
# (NET_DETACH), and at the end of a plan joins the client's outages to
# the plan's steps.

# net_setup: netback, and the bridge xenbr0 that the guest's vif joins,
# with dom0's address on it; the vif itself comes with the domain.
net_setup() {
    hotplug_setup
    load_modules /lib/modules/net "the network's modules"
    brctl addbr xenbr0 || fail "brctl addbr xenbr0 failed"
    ip addr add "$NET_HOST/24" dev xenbr0 || fail "ip addr add $NET_HOST/24 dev xenbr0 failed"
    ip link set xenbr0 up || fail "ip link set xenbr0 up failed"
    echo "dom0: network modules loaded ($(tr '\n' ' ' </lib/modules/net/order)); xenbr0 is $NET_HOST/24"
}

# net_peers: waits for the guest's NET_UP line, then pings it and runs the
# client against its echo port, each line shown behind "net-door: " as it
# comes. Under a plan, or when the vif is to be detached, the client runs
# until /run/net-finish exists (the plan is through, or the guest has
# stopped), then is told to finish (SIGINT: it stops sending, waits for
# what is in flight and sends its end datagram). Runs in the background;
# /run/net-peers.done says it is over.
net_peers() {
    t0=$(now_cs)
    until grep -q -E "$NET_UP" "$DOMU_LOG" 2>/dev/null; do
        if [ "$(since_cs "$t0")" -ge 12000 ]; then
            echo "net-door: the guest did not say its interface is up within 120 s"
            : >/run/net-started
            : >/run/net-peers.done
            return
        fi
        sleep 0.2
    done
    echo "net-door: the guest is up; ping -c $NET_PINGS $NET_GUEST"
    ping -c "$NET_PINGS" -W 2 "$NET_GUEST" 2>&1 | sed '/^$/d; s/^/net-door: ping: /'
    echo "net-door: udpclient $NET_GUEST 7 --count $NET_COUNT --size $NET_SIZE" \
        "--window $NET_WINDOW --interval-ms $NET_INTERVAL_MS"
    # shellcheck disable=SC2016 # the inner shell's $$ and $0
    {
        sh -c 'echo $$ >"$0"; exec "$@"' /run/udpclient.pid /patchbay/udpclient "$NET_GUEST" 7 \
            --count "$NET_COUNT" --size "$NET_SIZE" --window "$NET_WINDOW" \
            --interval-ms "$NET_INTERVAL_MS" --end-port 9 2>&1
        echo "udpclient exited with status $?"
    } | tee /run/net-client.log | sed 's/^/net-door: /' &
    client=$!
    : >/run/net-started
    [ -z "$NET_DETACH" ] || detach_net &
    if [ -n "$NET_FLOOD" ]; then
        flood
        [ -n "$LIFECYCLE$NET_DETACH" ] || kill -INT "$(cat /run/udpclient.pid)" 2>/dev/null
    fi
    if [ -n "$LIFECYCLE$NET_DETACH" ]; then
        while kill -0 "$client" 2>/dev/null && [ ! -e /run/net-finish ]; do
            sleep 0.5
        done
        kill -INT "$(cat /run/udpclient.pid)" 2>/dev/null
    fi
    wait "$client"
    : >/run/net-peers.done
}

# flood: NET_FLOOD pings, one a millisecond, as fast as dom0's busybox
# ping goes and counts every reply: it has no -f, and as root it takes a
# shorter -i, but below a millisecond it sent past its -c and at 0 it
# stalled. Not -A as well: then its timer and its reply path both send,
# and now and then a ping left with a wrong checksum (the guest dropped
# and counted it, icmp-checksum). It waits up to 5 s for the last replies.
flood() {
    echo "net-door: flood: ping -q -i 0.001 -c $NET_FLOOD $NET_GUEST"
    ping -q -i 0.001 -c "$NET_FLOOD" -W 5 "$NET_GUEST" 2>&1 |
        sed '/^$/d; s/^/net-door: flood: /'
}

# detach_net: 2 s into the stream, takes the guest's vif (devid 0) away
# with xl network-detach, as an administrator would: libxl sets the
# backend Closing and waits for the frontend to close.
detach_net() {
    sleep 2
    xl network-detach "$NAME" 0 >/run/net-detach.log 2>&1
    rc=$?
    sed 's/^/dom0: xl network-detach: /' /run/net-detach.log
    echo "domu-door: xl network-detach $NAME 0: status $rc"
}

# net_started_wait: a plan starts once the peers have pinged the guest and
# started the client (or given up), so that the stream runs through every
# step; returns early if the domain stops.
net_started_wait() {
    while [ ! -e /run/net-started ]; do
        [ "$(domain_state "$domid")" = running ] || return 0
        sleep 0.5
    done
}

# net_peers_wait: before the end, the peers' last lines (up to 10 s).
net_peers_wait() {
    t0=$(now_cs)
    while [ ! -e /run/net-peers.done ] && [ "$(since_cs "$t0")" -lt 1000 ]; do
        sleep 0.2
    done
}

# net_step_report: each step's share of the stream's losses, from the
# client's outage lines (each stamped with when its first datagram was
# sent, on dom0's uptime clock) and the steps' times: an outage belongs
# to the step it began in (a second's slack either side: the step's
# clock reads come between xl's actions), any other is outside the steps.
# Every datagram lost is in one outage, so the lines account for all.
net_step_report() {
    [ -s "$STEPS" ] && [ -e /run/net-client.log ] || return 0
    awk -v slack=100 '
        FNR == NR { n++; what[n] = $1 " " $2; t0[n] = $3; t1[n] = $4; next }
        $1 == "udpclient:" && $2 == "outage:" {
            at = int($15 * 100 + 0.5)
            for (i = 1; i <= n && !(t0[i] - slack <= at && at <= t1[i] + slack); i++)
                ;
            range = $9
            sub(/,$/, "", range)
            split(range, ab, "-")
            if (ab[1] == ab[2])
                range = ab[1]
            lost[i] += $3
            ranges[i] = ranges[i] (ranges[i] == "" ? "" : ", ") range
            if ($17 == "to")
                open[i] = 1
            else
                ms[i] += $19
        }
        function say(head, i) {
            if (!lost[i]) {
                print "lifecycle-door: " head ": no datagram lost"
                return
            }
            printf "lifecycle-door: %s: %d datagram%s lost (%s), unreachable %s\n", head, lost[i],
                lost[i] == 1 ? "" : "s", ranges[i],
                open[i] ? "until the stream ended" : sprintf("for %.2f s", ms[i] / 1000)
        }
        END {
            for (i = 1; i <= n; i++)
                say("step " what[i], i)
            if (lost[n + 1])
                say("outside the steps", n + 1)
        }' "$STEPS" /run/net-client.log
}
