"""tools/pbtools/bench/linux.py's network rows, without booting: a "+net" boot's
console (Linux's bench.net as the doors show it, natively with the host's
client, in a domU with dom0's ping and client behind net-door:) becomes
the contract's rows, net_ping too where dom0 pinged; a console that ran
as another config, lacks dom0's ping summary, its net-stats: line or the
client's counts, or echoed nothing, is a problem, never a row. The
report's "Linux, same ground" section has a column for Linux as KVM's
guest when linux.json holds its boot, and says what its figures count."""

import pytest
from pbtools.bench import linux as bench_linux

HEADER = ('linux-bench: release=6.1.0-56-amd64 version="#1 SMP PREEMPT_DYNAMIC Debian" '
          "config=%s reps=15 quick=no\n")
NATIVE = HEADER % "linux-native+net" + """\
net: eth0 up at 10.0.2.15: UDP echo on port 7, counters on port 9, ping; waiting 140 s for the \
client's end (Linux's virtio-net)
udpclient: sent 500, received 500, wrong 0, lost 0, rtt min/median/max 455/714/14254 us, \
elapsed_ms 2000
udpclient: the guest's counters: net: rx 502 frames, tx 501, echoed 500, bad requests 0
net: client sent 500, received 500, wrong 0, lost 0
net-stats: echoed=500 rx_frames=502 tx_frames=502 notifications=- interrupts=550 grant_ops=0 \
busy_ns=50000000 cpus=1
patchbay: PASS
"""
DOMU = HEADER % "linux-domu+net" + """\
net: eth0 up at 10.0.0.2: UDP echo on port 7, counters on port 9, ping; waiting 60 s for the \
client's end (Linux's xen-netfront)
net-door: the guest is up; ping -c 5 10.0.0.2
net-door: ping: 5 packets transmitted, 5 packets received, 0% packet loss
net-door: ping: round-trip min/avg/max = 3.522/7.138/17.094 ms
net-door: udpclient: sent 100, received 100, wrong 0, lost 0, rtt min/median/max 86/1502/9618 us, \
elapsed_ms 500
net: client sent 100, received 100, wrong 0, lost 0
net-stats: echoed=100 rx_frames=116 tx_frames=117 notifications=- interrupts=212 grant_ops=- \
busy_ns=4000000 cpus=1
patchbay: PASS
"""


def test_native_row():
    rows, release, problems = bench_linux.read_net_console(NATIVE, "linux-native+net",
                                                           "net_echo_w1", True, False)
    assert [r["name"] for r in rows] == ["net_echo_w1"] and not problems, (rows, problems)
    net = rows[0]["net"]
    assert (release == "6.1.0-56-amd64" and rows[0]["config"] == "linux-native+net"
            and net["packets"] == 500 and net["rtt_us"] == [455, 714, 14254]
            and net["pps"] == 250.0 and net["busy_ns_per_packet"] == 100000
            and net["interrupts_per_packet"] == 1.1 and net["notifications_per_packet"] is None
            and net["grant_ops_per_packet"] == 0 and net["ping_ms"] is None
            and net["icount"]), \
        "native: one row, the contract's figures per echoed packet: %s" % rows


def test_domu_rows_with_ping():
    rows, _, problems = bench_linux.read_net_console(DOMU, "linux-domu+net", "net_echo_w1",
                                                     False, True)
    assert ([r["name"] for r in rows] == ["net_echo_w1", "net_ping"] and not problems
            and all(r["net"]["ping_ms"] == [3.522, 7.138, 17.094] for r in rows)
            and rows[0]["net"]["grant_ops_per_packet"] is None
            and rows[0]["net"]["interrupts_per_packet"] == 2.12), \
        "domU: the row and net_ping, dom0's ping summary in both, no grant count: %s" % (
            (rows, problems),)


@pytest.mark.parametrize("text,config,pinged,want", [
    (NATIVE, "linux-domu+net", False, "ran as linux-native+net"),
    (DOMU.replace("net-door: ping: round-trip", "net-door: ping: round trip"),
     "linux-domu+net", True, "net_ping: no ping summary from dom0"),
    (NATIVE.replace("net-stats:", "net-stat:"), "linux-native+net", False,
     "net_echo_w1: 0 net-stats: lines, not one"),
    (NATIVE.replace("echoed=500", "echoed=0"), "linux-native+net", False, "echoed=0"),
    (NATIVE.replace("elapsed_ms 2000", ""), "linux-native+net", False,
     "udpclient counts lines"),
], ids=["another config's console", "a domU without dom0's ping summary",
        "no net-stats: line", "nothing echoed", "no client's counts"])
def test_bad_console_is_one_problem(text, config, pinged, want):
    _, _, problems = bench_linux.read_net_console(text, config, "net_echo_w1", False, pinged)
    assert len(problems) == 1 and want in problems[0], "a problem naming it: %s" % problems


def made_up_linux(boots):
    """linux.json's data: each of boots (config ids) with a distinct figure
    for every compared benchmark, patchbay's two configs likewise."""
    n = 1000

    def runs(ids, which):
        nonlocal n
        out = []
        for c in ids:
            results = []
            for names in bench_linux.COMPARED:
                results.append(dict(name=names[which], config=c, min=float(n)))
                n += 7
            out.append(dict(id=c, results=results, counts=[]))
        return out
    conditions = dict(date="today", kernel="linux-image-6.1", release="6.1.0-56-amd64",
                      timing="icount", quick=False, qemu="QEMU", xen="Xen")
    return dict(conditions=conditions, linux=runs(boots, 0),
                patchbay=runs([c for c, _ in bench_linux.PATCHBAY], 1), patchbay_counts=[])


def test_kvm_column_beside_native_and_xen():
    data = made_up_linux(["linux-native", "linux-xen", "linux-kvm"])
    lines = bench_linux.section(data)
    head = next((line for line in lines if line.startswith("| benchmark")), "")
    row = next((line for line in lines if line.startswith("| `mprotect_512`")), "")
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert "Linux KVM guest (L2)" in head and cells[1:4] == [
        "%d" % bench_linux.figure(data["linux"], c, "mprotect_512")
        for c in ("linux-native", "linux-xen", "linux-kvm")], (head, row)


def test_kvm_column_says_what_it_counts():
    data = made_up_linux(["linux-native", "linux-xen", "linux-kvm"])
    text = "\n".join(bench_linux.section(data))
    kvm = bench_linux.figure(data["linux"], "linux-kvm", "mprotect_512")
    share = kvm / bench_linux.figure(data["linux"], "linux-native", "mprotect_512")
    assert "L2 guest" in text and "L1's too" in text \
        and "%.1fx its native figure" % share in text, text[:300]


def test_no_kvm_boot_no_kvm_column():
    lines = bench_linux.section(made_up_linux(["linux-native", "linux-xen"]))
    assert not any("KVM" in line for line in lines), str(lines)[:300]


def test_guest_table_from_the_record():
    """docs/kvm.md's table: native and KVM's guest per timing, their ratio."""
    kept = {t: dict(made_up_linux(["linux-native", "linux-kvm"]),
                    conditions=dict(date="today", qemu="QEMU", kernel="k", timing=t))
            for t in ("icount", "tsc")}
    lines = bench_linux.guest_table(kept)
    row = next(line for line in lines if line.startswith("| `mprotect_512`"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    native, guest = (bench_linux.figure(kept["icount"]["linux"], c, "mprotect_512")
                     for c in ("linux-native", "linux-kvm"))
    assert cells[1:4] == ["%d" % native, "%d" % guest, "%.2fx" % (guest / native)], row
    assert len(cells) == 7, "both timings' three columns: %s" % row


def test_guest_table_without_the_guest_names_the_command():
    kept = {"icount": dict(made_up_linux(["linux-native"]),
                           conditions=dict(date="today", qemu="QEMU", kernel="k"))}
    with pytest.raises(SystemExit) as e:
        bench_linux.guest_table(kept)
    assert "icount linux-kvm" in str(e.value) and "--record" in str(e.value)


def test_section_names_only_the_doors_booted():
    """--configs picks some boots: the section names only those, and sets
    Linux's Xen figure against native only when it booted under Xen."""
    text = "\n".join(bench_linux.section(made_up_linux(["linux-native", "linux-kvm"])))
    assert "natively and as KVM's L2 guest" in text, text[:400]
    assert "Xen's dom0" not in text and "under Xen, `mprotect_512` costs Linux" not in text
    text = "\n".join(bench_linux.section(made_up_linux(["linux-native", "linux-xen",
                                                        "linux-kvm"])))
    assert "natively, as Xen's dom0 and as KVM's L2 guest" in text
    assert "under Xen, `mprotect_512` costs Linux" in text
