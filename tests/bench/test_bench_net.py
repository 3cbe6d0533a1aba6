#!/usr/bin/env python3
"""tools/pbtools/bench/net.py, the report's network rows, on made-up results:
each door's rows for patchbay, patchbay with notification avoidance off
and Linux, "not measured" where a run is missing; the goals met or not
met with the figures (instructions only when both sides ran under
--icount, the flood's notifications against one in 8); no section
without a network row. And tools/bench plans a network configuration as
one boot a row, with the door's --net and the row's count and window,
unpaced (--net-interval-ms 0).
Ends with "N passed, N failed"."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from pbtools.bench import boots as bench_boots  # noqa: E402
from pbtools.bench import configs as bench_configs  # noqa: E402
from pbtools.bench import net as bench_net  # noqa: E402
from report import check, summary  # noqa: E402

NATIVE = "native-patched+net"
NATIVE_OFF = "native-patched+virtio.event_idx=off+net"
PV = "xen-pv-patched+xen.mmu=batch+domu+net"


def row(name, config, busy, notes, icount=True, ping=None):
    return {"name": name, "config": config, "net": {
        "packets": 500, "rtt_us": [40, 50, 90], "pps": 1000.0, "busy_ns_per_packet": busy,
        "notifications_per_packet": notes, "interrupts_per_packet": 0.5,
        "grant_ops_per_packet": 0.0, "ping_ms": ping, "icount": icount}}


def boots(rows):
    return [{"id": cid, "results": [r for r in rows if r["config"] == cid]}
            for cid in dict.fromkeys(r["config"] for r in rows)]


OURS = boots([row("net_echo_w1", NATIVE, 9000.0, 1.0), row("net_echo_w64", NATIVE, 4000.0, 0.05),
              row("net_echo_w1", NATIVE_OFF, 9500.0, 1.0),
              row("net_echo_w64", NATIVE_OFF, 4500.0, 0.4),
              row("net_echo_w1", PV, 20000.0, 1.0), row("net_echo_w64", PV, 15000.0, 0.5),
              row("net_ping", PV, 20000.0, 1.0, ping=[0.2, 0.3, 0.4])])
LINUX = boots([row("net_echo_w1", "linux-native+net", 12000.0, None),
               row("net_echo_w64", "linux-native+net", 3000.0, None)])


def test_section():
    lines = bench_net.section({"configs": OURS}, {"linux": LINUX}, "Paravirtual I/O")
    text = "\n".join(lines)
    check("a section under the given heading", lines[:4] == ["", "## Paravirtual I/O", "",
                                                             "### Network"], lines[:4])
    check("native: patchbay's w1 row with its figures",
          "| native (virtio-net) | patchbay | `net_echo_w1` | 500 | 40/50/90 | 1000 | "
          "9000 instructions | 1.00 | 0.50 | 0.00 | — |" in text, text)
    check("native: the avoidance-off row",
          "| native (virtio-net) | patchbay, `virtio.event_idx=off` | `net_echo_w64` | 500 |"
          in text, text)
    check("native: Linux's row, its notifications —",
          "| native (virtio-net) | Linux | `net_echo_w1` | 500 | 40/50/90 | 1000 | "
          "9000 instructions | — |".replace("9000", "12000") in text, text)
    check("native: no ping row (no ICMP through QEMU's user network)",
          "| native (virtio-net) | patchbay | `net_ping`" not in text, text)
    check("PV: ping's row with dom0's figures only, not the echo row's it was filed with",
          "| PV domU (netfront) | patchbay | `net_ping` | — | — | — | — | — | — | — | "
          "0.20/0.30/0.40 |" in text, text)
    check("PV: avoidance off and Linux not measured",
          "| PV domU (netfront) | patchbay, `netfront.avoid_notify=off` | `net_echo_w1` | "
          "not measured |" in text
          and "| PV domU (netfront) | Linux | `net_echo_w64` | not measured |" in text, text)
    check("PVH: no rows without a run", "PVH domU" not in text, text)
    check("goal, instructions: met where patchbay's is no more than Linux's",
          "- native (virtio-net), `net_echo_w1`: patchbay 9000 instructions a packet, Linux "
          "12000: met." in text, text)
    check("goal, instructions: not met, with the factor",
          "- native (virtio-net), `net_echo_w64`: patchbay 4000 instructions a packet, Linux "
          "3000: not met, 1.3x Linux's." in text, text)
    check("goal, instructions: no Linux figure said so",
          "- PV domU (netfront), `net_echo_w1`: patchbay 20000 instructions a packet; Linux not "
          "measured on this door." in text, text)
    check("goal, notifications: met under the flood, the switch's figure beside it",
          "- native (virtio-net), `net_echo_w64`: 0.050 notifications a packet with "
          "notification avoidance (goal at most 0.125): met; without it "
          "(`virtio.event_idx=off`) 0.400." in text, text)
    check("goal, notifications: not met, with the figure",
          "- PV domU (netfront), `net_echo_w64`: 0.500 notifications a packet with notification "
          "avoidance (goal at most 0.125): not met; without it (`netfront.avoid_notify=off`) —."
          in text, text)
    tsc = boots([row("net_echo_w1", NATIVE, 9000.0, 1.0, icount=False)])
    text = "\n".join(bench_net.section({"configs": tsc}, {"linux": LINUX}, None))
    check("goal, instructions: not checked outside --icount, ns said",
          "patchbay 9000 ns a packet, Linux 12000 instructions: not checked" in text
          and "| 9000 ns |" in text, text)
    check("no heading of its own after the disk rows' section",
          bench_net.section({"configs": tsc}, None, None)[:2] == ["", "### Network"])
    check("no section without a network row",
          bench_net.section({"configs": [{"id": "native-patched", "results": [
              {"name": "irq", "config": "native-patched", "min": 3.0}]}]}, None, "x") == [])


def test_plan():
    from pbtools.bench import main as bench
    args = bench.parse_args(["--quick", "--configs", NATIVE + "," + PV])
    args.boots, args.runs = 1, 1
    planned = bench_boots.boot_plan(bench.plan(args, {}), args)
    got = []
    for b in planned:
        cmd = bench_boots.run_command(b, args, "LOG")
        got.append((b["id"], b["net_row"], cmd[cmd.index("--net"):]))
    flags = ["--net-interval-ms", "0", "--"]
    want = [(NATIVE, "net_echo_w1", ["--net", "--net-count", "100", "--net-window", "1"] + flags),
            (NATIVE, "net_echo_w64",
             ["--net", "--net-count", "1000", "--net-window", "64"] + flags),
            (PV, "net_echo_w1",
             ["--net", "--net-count", "100", "--net-window", "1"] + flags + ["xen.mmu=batch"]),
            (PV, "net_echo_w64",
             ["--net", "--net-count", "1000", "--net-window", "64"] + flags + ["xen.mmu=batch"])]
    check("tools/bench: one boot a row, the door's --net with the row's count and window",
          got == want, got)
    check("tools/bench: the Xen door's window-1 boot files ping's row too",
          [b["names"] for b in planned if b["id"] == PV][0] == bench_configs.NET_ROW_NAMES, planned)


test_section()
test_plan()
sys.exit(summary())
