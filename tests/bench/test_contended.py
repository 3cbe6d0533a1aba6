#!/usr/bin/env python3
"""lock_contended's own lines and what the tools make of them, without
booting: tools/pbtools/bench/contended.py reads a boot's detail lines (the figures
of a Xen PV overcommit run) and refuses a console whose lines do not match
the result's repetition count or lack a field or are not key=value (mutants
of the line, the way an unrelated change to the kernel's kprintf would
show); the runs of a configuration pool into one distribution, and the
report's table and ratio say what those runs hold; tools/bench boots a
configuration with trials --runs times, each later run at its own start
offset and with the trials only, and a configuration under icount once.
Ends with "N passed, N failed"."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from pbtools.bench import boots as bench_boots  # noqa: E402
from pbtools.bench import contended as bench_contended  # noqa: E402
from report import check, summary  # noqa: E402

CONSOLE = """\
bench: detail=lock_contended rep=1 per_acq=2152 unit=instructions acquisitions=10098 \
long_waits=31 long_wait=50000 blocked=0 kicked=0 contended=9731 timed=170
bench: detail=lock_contended rep=2 per_acq=1772 unit=instructions acquisitions=12154 \
long_waits=30 long_wait=50000 blocked=0 kicked=0
bench: detail=lock_contended rep=3 per_acq=1005 unit=instructions acquisitions=20512 \
long_waits=21 long_wait=50000 blocked=0 kicked=0
bench: detail=lock_contended threads=4 cpus=4 lock="inline ticket" mean=1423 unit=instructions \
waiting=3300 long_waits=82 long_wait=50000 blocked=0 kicked=0
bench: name=lock_contended config=xen-pv-patched+xen.mmu=batch+spinlock=off+smp4 iters=8000 \
reps=3 min=1005.00 median=1772.00 unit=instructions
"""


def result(reps=3):
    return dict(name="lock_contended", config="x", iters=8000, reps=reps, min=1005.0,
                median=1772.0, unit="instructions")


def run_of(per_acq, blocked=0, long_waits=1):
    """A run as parse() makes it, from its repetitions' figures."""
    return dict(mean=0, waiting=0, long_waits=0, long_wait=50000, blocked=0, kicked=0,
                offset_us=0, reps=[dict(per_acq=p, acquisitions=1000, long_waits=long_waits,
                                        blocked=blocked, kicked=blocked) for p in per_acq])


def test_parse():
    run = bench_contended.parse(CONSOLE, 3, 317)
    check("parse: the mean line and three repetitions",
          run is not None and run["mean"] == 1423 and run["long_waits"] == 82
          and run["long_wait"] == 50000 and run["offset_us"] == 317
          and [r["per_acq"] for r in run["reps"]] == [2152, 1772, 1005]
          and run["reps"][2] == dict(per_acq=1005, acquisitions=20512, long_waits=21, blocked=0,
                                     kicked=0), run)
    check("parse: four repetitions expected, three printed: refused",
          bench_contended.parse(CONSOLE, 4) is None)
    gap = CONSOLE.replace("rep=2 ", "rep=5 ")
    check("parse: repetitions not numbered 1..n: refused", bench_contended.parse(gap, 3) is None)
    renamed = CONSOLE.replace("long_waits=31 ", "stopped=31 ")
    res = [result()]
    why = bench_contended.attach(res, renamed)
    check("attach: a repetition line without a field is a problem, not a silent gap",
          why is not None and "do not parse" in why and "runs" not in res[0], why)
    free = CONSOLE.replace("long_waits=31 ", "31 waits of 50000 or more, ")
    res = [result()]
    why = bench_contended.attach(res, free)
    check("attach: a repetition line that is not key=value is a problem naming the line",
          why is not None and "do not parse" in why and "31 waits of 50000" in why
          and "runs" not in res[0], why)
    nomean = "\n".join(line for line in CONSOLE.splitlines() if "mean=" not in line)
    check("parse: no mean line: refused", bench_contended.parse(nomean, 3) is None)
    res = [result()]
    check("attach: the real lines become the result's one run",
          bench_contended.attach(res, CONSOLE) is None and len(res[0]["runs"]) == 1)
    check("attach: a boot without lock_contended has nothing to attach",
          bench_contended.attach([dict(name="ctx_switch", min=1.0)], "") is None)


def test_pool_and_report():
    a, b = dict(result(), runs=[run_of([500, 600, 900])]), dict(result(), runs=[run_of([700])])
    pooled = bench_contended.pooled([a, b])
    check("pooled: every run kept, min and median over every repetition",
          len(pooled["runs"]) == 2 and pooled["min"] == 500 and pooled["median"] == 650,
          pooled)
    pv = dict(result(), runs=[run_of([500, 600, 700], blocked=4), run_of([540, 560, 580], 4)])
    plain = dict(result(), runs=[run_of([1000, 1200, 1400]), run_of([900, 1100, 1300], 0, 0)])
    ticket = dict(result(), runs=[run_of([800, 900, 1000], 9)])
    alone = dict(result(), runs=[run_of([400, 475, 500]), run_of([470, 480, 490])])
    cfg = dict(platform="xen-pv", smp=4, host_cpus=2)
    lines = bench_contended.section([(dict(cfg, id="xen-pv-patched+spinlock=off+smp4"), plain),
                                     (dict(cfg, id="xen-pv-patched+xen.lock=ticket+smp4"), ticket),
                                     (dict(cfg, id="xen-pv-patched+smp4"), pv),
                                     (dict(cfg, id="xen-pv-patched+smp2", smp=2, host_cpus=None),
                                      alone)])
    table = [line for line in lines if line.startswith("| Xen PV")]
    check("report: a row per configuration, by vCPUs, the queued lock first",
          len(table) == 4 and table[0].startswith("| Xen PV, 2 on 2, pv qspinlock | 2 × 3 |")
          and table[1].startswith("| Xen PV, 4 on 2, pv qspinlock | 2 × 3 |")
          and table[2].startswith("| Xen PV, 4 on 2, pv ticket | 1 × 3 |")
          and table[3].startswith("| Xen PV, 4 on 2, plain spinning | 2 × 3 |"), table)
    check("report: min, median, max over all repetitions and each run's median",
          "| 500 / **570** / 700 | 600, 560 |" in table[1]
          and "| 900 / **1150** / 1400 | 1200, 1100 |" in table[3], table)
    check("report: repetitions with a long wait, blocked and kicked per repetition",
          table[1].endswith("| 6 of 6 (1) | 4 (4) | 4 (4) |")
          and table[3].endswith("| 3 of 6 (0) | 0 (0) | 0 (0) |"), table)
    ratio = [line for line in lines if "takes **" in line]
    check("report: plain and ticket against the queued lock, and it against its 2-on-2 figure",
          len(ratio) == 3 and "plain spinning takes **2.0x**" in ratio[0]
          and "from 1.8x to 2.1x" in ratio[0] and "pv ticket takes **1.6x**" in ratio[1]
          and "takes **1.2x** its own time on 2 over 2" in ratio[2]
          and "(570 against 478)" in ratio[2], ratio)
    check("report: each ratio against its goal, met",
          "(plain at least 2x: goal met)" in ratio[0]
          and "(within 1.5x: goal met)" in ratio[2], ratio)
    slow = dict(result(), runs=[run_of([800, 900, 1000], blocked=3)])
    lines = bench_contended.section([(dict(cfg, id="xen-pv-patched+spinlock=off+smp4"), plain),
                                     (dict(cfg, id="xen-pv-patched+smp4"), slow),
                                     (dict(cfg, id="xen-pv-patched+smp2", smp=2, host_cpus=None),
                                      alone)])
    ratio = [line for line in lines if "takes **" in line]
    check("report: a missed goal says so, with what the repetitions measured",
          len(ratio) == 2 and "plain spinning takes **1.3x**" in ratio[0]
          and "(plain at least 2x: goal missed: plain spinning: 3 of 6 repetitions had a wait "
          "of 50000+, a median of 0 blocks per repetition)" in ratio[0]
          and "takes **1.9x** its own time" in ratio[1]
          and "(within 1.5x: goal missed: the pv qspinlock: 3 of 3 repetitions had a wait of "
          "50000+, a median of 3 blocks per repetition)" in ratio[1], ratio)
    check("report: nothing without runs", bench_contended.section([]) == [])


def test_boot_plan():
    class Args:
        icount, boots, runs = False, 2, 3

    trial = dict(id="t", icount=True, trials=["lock_contended"],
                 names=["lock_contended", "pte_set"], selected=["lock_contended", "pte_set"],
                 select=["lock_contended", "pte"], options=["xen.mmu=batch"])
    tsc = dict(id="n", icount=False, trials=[], names=["pte_set"], selected=["pte_set"],
               select=["pte"], options=[])
    plan = bench_boots.boot_plan([trial, tsc], Args)
    mine = [b for b in plan if b["id"] == "t"]
    step = bench_boots.RUN_OFFSET_US
    check("boot plan: a configuration with trials, --runs 3: its boot and two runs",
          [b["offset_us"] for b in mine] == [0, step, 2 * step]
          and [b["attempt"] for b in mine] == [0, 1, 2]
          and [b["suffix"] for b in mine] == ["", ".run2", ".run3"], mine)
    check("boot plan: the later runs run the trials only, at their offset",
          mine[0]["select"] == ["lock_contended", "pte"] and mine[0]["options"] == ["xen.mmu=batch"]
          and all(b["select"] == b["names"] == b["selected"] == ["lock_contended"]
                  and b["options"] == ["xen.mmu=batch", "bench.offset_us=%d" % b["offset_us"]]
                  for b in mine[1:]), mine)
    check("boot plan: --boots 2 without icount boots a configuration twice, with no runs",
          [(b["attempt"], b["suffix"]) for b in plan if b["id"] == "n"] == [(0, ".1"), (1, ".2")])
    Args.runs = 1
    check("boot plan: --runs 1 boots a configuration with trials once",
          len([b for b in bench_boots.boot_plan([trial], Args) if b["id"] == "t"]) == 1)


test_parse()
test_pool_and_report()
test_boot_plan()
sys.exit(summary())
