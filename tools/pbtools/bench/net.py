"""The network rows of the report's "Paravirtual I/O" section: UDP echo
through each door's card (virtio-net natively, netfront against Linux
dom0's netback in a PV and a PVH domU), with and without notification
avoidance, beside Linux's frontends on the same doors (linux.json's `+net`
rows), and the issue's two network goals checked with the figures.

A row is what pbtools.result_lines.net_row() made of one boot: the guest's
net-stats: line (counted from its interface coming up to the client's
end) and its peers' lines. Per packet means per echoed datagram."""

from pbtools.bench import configs as bench_configs

# (door heading, id before the variant tag, id after it, Linux's config)
DOORS = [("native (virtio-net)", "native-patched", bench_configs.NET, "linux-native+net"),
         ("PV domU (netfront)", "xen-pv-patched" + bench_configs.XEN,
          bench_configs.DOMU + bench_configs.NET, "linux-domu+net"),
         ("PVH domU (netfront)", bench_configs.PVH_PATCHED,
          bench_configs.DOMU + bench_configs.NET, "linux-domu-pvh+net")]
AVOIDANCE_OFF = {"native": "+virtio.event_idx=off", "domu": "+netfront.avoid_notify=off"}
ROWS = bench_configs.NET_ROW_NAMES
FLOOD = bench_configs.NET_ROWS[-1][0]
NOTIFY_GOAL = 1 / 8  # under the flood, at most one notification per 8 packets


def door_key(before):
    return "native" if before.startswith("native") else "domu"


def rows_in(runs):
    """{config id: {row name: row}} of every network row in a list of boots."""
    idx = {}
    for run in runs or []:
        for r in run.get("results", []):
            if "net" in r:
                idx.setdefault(r["config"], {})[r["name"]] = r
    return idx


def unit(row):
    """What busy time per packet counts: instructions only under icount."""
    return "instructions" if row["net"]["icount"] else "ns"


def figure(v, digits=2):
    if v is None:
        return "—"
    return ("%%.%df" % digits) % v if isinstance(v, float) else str(v)


def triple(v):
    return "—" if not v else "/".join(figure(x) for x in v)


def cells(door, variant, row, r):
    if r is None:
        return [door, variant, "`%s`" % row, "not measured"] + ["—"] * 7
    n = r["net"]
    if row == bench_configs.NET_PING:  # the window-1 boot's pings: its other figures are that row's
        return [door, variant, "`%s`" % row] + ["—"] * 7 + [triple(n["ping_ms"])]
    return [door, variant, "`%s`" % row, str(n["packets"]), triple(n["rtt_us"]),
            figure(n["pps"], 0), "%s %s" % (figure(n["busy_ns_per_packet"], 0), unit(r)),
            figure(n["notifications_per_packet"]), figure(n["interrupts_per_packet"]),
            figure(n["grant_ops_per_packet"]), triple(n["ping_ms"])]


def table(idx, lx):
    out = []
    for heading, before, after, lid in DOORS:
        key = door_key(before)
        usual, off = idx.get(before + after), idx.get(before + AVOIDANCE_OFF[key] + after)
        if usual is None and off is None:
            continue
        rows = [r for r in ROWS if r != bench_configs.NET_PING or key == "domu"]
        for row in rows:
            out.append(cells(heading, "patchbay", row, (usual or {}).get(row)))
            out.append(cells(heading, "patchbay, `%s`" % AVOIDANCE_OFF[key].lstrip("+"), row,
                             (off or {}).get(row)))
            out.append(cells(heading, "Linux", row, lx.get(lid, {}).get(row)))
    return out


def cost_goal(heading, row, ours, theirs):
    """Instructions per echoed packet against Linux's on the same door."""
    if ours is None:
        return None
    a = ours["net"]["busy_ns_per_packet"]
    if theirs is None:
        return "- %s, `%s`: patchbay %s %s a packet; Linux not measured on this door." % (
            heading, row, figure(a, 0), unit(ours))
    b = theirs["net"]["busy_ns_per_packet"]
    if not (ours["net"]["icount"] and theirs["net"]["icount"]):
        return ("- %s, `%s`: patchbay %s %s a packet, Linux %s %s: not checked, the goal "
                "counts instructions (both runs under --icount)." % (
                    heading, row, figure(a, 0), unit(ours), figure(b, 0), unit(theirs)))
    return "- %s, `%s`: patchbay %s instructions a packet, Linux %s: %s." % (
        heading, row, figure(a, 0), figure(b, 0),
        "met" if a <= b else "not met, %.1fx Linux's" % (a / b))


def notify_goal(heading, key, on, off):
    """Notifications per packet under the flood, avoidance on and off."""
    if on is None:
        return None
    n_on = on["net"]["notifications_per_packet"]
    n_off = off["net"]["notifications_per_packet"] if off else None
    return ("- %s, `%s`: %s notifications a packet with notification avoidance (goal at most "
            "%.3f): %s; without it (`%s`) %s." % (
                heading, FLOOD, figure(n_on, 3), NOTIFY_GOAL,
                "met" if n_on is not None and n_on <= NOTIFY_GOAL else "not met",
                AVOIDANCE_OFF[key].lstrip("+"), figure(n_off, 3)))


def goals(idx, lx):
    out = []
    for heading, before, after, lid in DOORS:
        for row in (bench_configs.NET_ROWS[0][0], FLOOD):
            line = cost_goal(heading, row, idx.get(before + after, {}).get(row),
                             lx.get(lid, {}).get(row))
            out += [line] if line else []
    for heading, before, after, _ in DOORS:
        key = door_key(before)
        line = notify_goal(heading, key, idx.get(before + after, {}).get(FLOOD),
                           idx.get(before + AVOIDANCE_OFF[key] + after, {}).get(FLOOD))
        out += [line] if line else []
    return out


def section(data, linux, heading):
    """The network rows' markdown lines, under heading if given (the
    section's title when the disk rows left none); empty without a row."""
    idx = rows_in((data or {}).get("configs"))
    if not idx:
        return []
    lx = rows_in((linux or {}).get("linux"))
    counts = ", ".join("`%s` %d (%d with --quick), %d in flight" % r
                       for r in bench_configs.NET_ROWS)
    lines = ([] if not heading else ["", "## " + heading]) + [
        "", "### Network", "",
        "One packet is one UDP datagram the guest echoed (port 7) for its door's client: "
        "the host's `tools/udpclient` through QEMU's user network natively, dom0's across the "
        "bridge under Xen, which checks every byte of every echo. Rows: %s; `net_ping` is "
        "dom0's busybox ping before the client (Xen doors only: QEMU's user network carries "
        "no ICMP from the host to the guest). `rtt` and `pkt/s` are the client's, from the "
        "host's (dom0's) clock; the rest is the guest's `net-stats:` line, counted from its "
        "interface coming up to the client's end and divided by the packets echoed: `busy` "
        "is the guest's CPU time not spent halted in its idle loop, summed over its CPUs "
        "(instructions under --icount, else ns), notifications are the guest telling the "
        "device, interrupts the device's interrupts or event upcalls. Linux's `-` counts "
        "(it cannot see its notifications or grant operations from user space) are —." % counts,
        ""]
    lines += markdown(["door", "variant", "row", "packets", "rtt µs min/median/max", "pkt/s",
                       "busy/packet", "notifications/packet", "interrupts/packet",
                       "grant ops/packet", "ping ms min/avg/max"], table(idx, lx))
    lines += ["", "The network goals:", ""] + goals(idx, lx)
    lines += ["", "Natively `virtio.event_idx=off` leaves the rings' flags to suppress "
              "notifications, so under the flood it can come out as low as the index does: "
              "how many packets one notification or interrupt covers depends on where QEMU's "
              "I/O thread is, which icount does not fix, and differs from boot to boot. Under "
              "Xen `busy` also holds the time the guest's vCPU was runnable but not running "
              "(dom0 and Xen on the same CPU), which is not the guest's work; Linux's figure, "
              "its CPUs' time less idle and iowait, holds it too."]
    return lines


def markdown(headings, rows):
    out = ["| " + " | ".join(headings) + " |", "|" + "---|" * len(headings)]
    return out + ["| " + " | ".join(r) + " |" for r in rows]
