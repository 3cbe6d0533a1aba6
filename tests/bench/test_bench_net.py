"""tools/pbtools/bench/net.py, the report's network rows, on made-up results:
each door's rows for patchbay, patchbay with notification avoidance off
and Linux, "not measured" where a run is missing; the goals met or not
met with the figures (instructions only when both sides ran under
--icount, the flood's notifications against one in 8); no section
without a network row. And tools/bench plans a network configuration as
one boot a row, with the door's --net and the row's count and window,
unpaced (--net-interval-ms 0)."""

import pytest
from pbtools.bench import boots as bench_boots
from pbtools.bench import configs as bench_configs
from pbtools.bench import net as bench_net

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


@pytest.fixture(scope="module")
def section():
    return bench_net.section({"configs": OURS}, {"linux": LINUX}, "Paravirtual I/O")


# What the section says: a line (or part of one) each.
SAYS = {
    "native: patchbay's w1 row with its figures":
        "| native (virtio-net) | patchbay | `net_echo_w1` | 500 | 40/50/90 | 1000 | "
        "9000 instructions | 1.00 | 0.50 | 0.00 | — |",
    "native: the avoidance-off row":
        "| native (virtio-net) | patchbay, `virtio.event_idx=off` | `net_echo_w64` | 500 |",
    "native: Linux's row, its notifications —":
        "| native (virtio-net) | Linux | `net_echo_w1` | 500 | 40/50/90 | 1000 | "
        "12000 instructions | — |",
    "PV: ping's row with dom0's figures only, not the echo row's it was filed with":
        "| PV domU (netfront) | patchbay | `net_ping` | — | — | — | — | — | — | — | "
        "0.20/0.30/0.40 |",
    "PV: avoidance off not measured":
        "| PV domU (netfront) | patchbay, `netfront.avoid_notify=off` | `net_echo_w1` | "
        "not measured |",
    "PV: Linux not measured": "| PV domU (netfront) | Linux | `net_echo_w64` | not measured |",
    "goal, instructions: met where patchbay's is no more than Linux's":
        "- native (virtio-net), `net_echo_w1`: patchbay 9000 instructions a packet, Linux "
        "12000: met.",
    "goal, instructions: not met, with the factor":
        "- native (virtio-net), `net_echo_w64`: patchbay 4000 instructions a packet, Linux "
        "3000: not met, 1.3x Linux's.",
    "goal, instructions: no Linux figure said so":
        "- PV domU (netfront), `net_echo_w1`: patchbay 20000 instructions a packet; Linux not "
        "measured on this door.",
    "goal, notifications: met under the flood, the switch's figure beside it":
        "- native (virtio-net), `net_echo_w64`: 0.050 notifications a packet with "
        "notification avoidance (goal at most 0.125): met; without it "
        "(`virtio.event_idx=off`) 0.400.",
    "goal, notifications: not met, with the figure":
        "- PV domU (netfront), `net_echo_w64`: 0.500 notifications a packet with notification "
        "avoidance (goal at most 0.125): not met; without it (`netfront.avoid_notify=off`) —.",
}
# What it leaves out.
LEAVES_OUT = {
    "native: no ping row (no ICMP through QEMU's user network)":
        "| native (virtio-net) | patchbay | `net_ping`",
    "PVH: no rows without a run": "PVH domU",
}


def test_section_under_the_given_heading(section):
    assert section[:4] == ["", "## Paravirtual I/O", "", "### Network"], section[:4]


@pytest.mark.parametrize("line", SAYS.values(), ids=list(SAYS))
def test_section_says(section, line):
    assert line in "\n".join(section)


@pytest.mark.parametrize("line", LEAVES_OUT.values(), ids=list(LEAVES_OUT))
def test_section_leaves_out(section, line):
    assert line not in "\n".join(section)


def test_outside_icount_ns_said():
    tsc = boots([row("net_echo_w1", NATIVE, 9000.0, 1.0, icount=False)])
    text = "\n".join(bench_net.section({"configs": tsc}, {"linux": LINUX}, None))
    assert ("patchbay 9000 ns a packet, Linux 12000 instructions: not checked" in text
            and "| 9000 ns |" in text), \
        "goal, instructions: not checked outside --icount, ns said: %s" % text


def test_no_heading_of_its_own_after_the_disk_rows():
    tsc = boots([row("net_echo_w1", NATIVE, 9000.0, 1.0, icount=False)])
    assert bench_net.section({"configs": tsc}, None, None)[:2] == ["", "### Network"]


def test_no_section_without_a_network_row():
    assert bench_net.section({"configs": [{"id": "native-patched", "results": [
        {"name": "irq", "config": "native-patched", "min": 3.0}]}]}, None, "x") == []


@pytest.fixture(scope="module")
def plan():
    from pbtools.bench import main as bench
    args = bench.parse_args(["--quick", "--configs", NATIVE + "," + PV])
    args.boots, args.runs = 1, 1
    return bench_boots.boot_plan(bench.plan(args, {}), args), args


def test_plan_one_boot_a_row(plan):
    planned, args = plan
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
    assert got == want, \
        "tools/bench: one boot a row, the door's --net with the row's count and window"


def test_plan_xen_window_1_boot_files_ping(plan):
    planned, _ = plan
    assert [b["names"] for b in planned if b["id"] == PV][0] == bench_configs.NET_ROW_NAMES, \
        "tools/bench: the Xen door's window-1 boot files ping's row too"
