"""lock_contended's own lines and what the tools make of them, without
booting: tools/pbtools/bench/contended.py reads a boot's detail lines (the figures
of a Xen PV overcommit run) and refuses a console whose lines do not match
the result's repetition count or lack a field or are not key=value (mutants
of the line, the way an unrelated change to the kernel's kprintf would
show); the runs of a configuration pool into one distribution, and the
report's table and ratio say what those runs hold; tools/bench boots a
configuration with trials --runs times, each later run at its own start
offset and with the trials only, and a configuration under icount once."""

import pytest
from pbtools.bench import boots as bench_boots
from pbtools.bench import contended as bench_contended

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


def test_parse_mean_line_and_repetitions():
    run = bench_contended.parse(CONSOLE, 3, 317)
    assert (run is not None and run["mean"] == 1423 and run["long_waits"] == 82
            and run["long_wait"] == 50000 and run["offset_us"] == 317
            and [r["per_acq"] for r in run["reps"]] == [2152, 1772, 1005]
            and run["reps"][2] == dict(per_acq=1005, acquisitions=20512, long_waits=21,
                                       blocked=0, kicked=0)), \
        "parse: the mean line and three repetitions: %s" % run


@pytest.mark.parametrize("console,reps", [
    (CONSOLE, 4),
    (CONSOLE.replace("rep=2 ", "rep=5 "), 3),
    ("\n".join(line for line in CONSOLE.splitlines() if "mean=" not in line), 3),
], ids=["four repetitions expected, three printed", "repetitions not numbered 1..n",
        "no mean line"])
def test_parse_refuses(console, reps):
    assert bench_contended.parse(console, reps) is None


@pytest.mark.parametrize("console,named", [
    (CONSOLE.replace("long_waits=31 ", "stopped=31 "), ""),
    (CONSOLE.replace("long_waits=31 ", "31 waits of 50000 or more, "), "31 waits of 50000"),
], ids=["a repetition line without a field", "a repetition line that is not key=value"])
def test_attach_bad_line_is_a_problem(console, named):
    res = [result()]
    why = bench_contended.attach(res, console)
    assert why is not None and "do not parse" in why and named in why and "runs" not in res[0], \
        "attach: a problem naming the line, not a silent gap: %s" % why


def test_attach_real_lines_one_run():
    res = [result()]
    assert bench_contended.attach(res, CONSOLE) is None and len(res[0]["runs"]) == 1, \
        "attach: the real lines become the result's one run"


def test_attach_nothing_without_lock_contended():
    assert bench_contended.attach([dict(name="ctx_switch", min=1.0)], "") is None


def test_pooled_keeps_every_run():
    a, b = dict(result(), runs=[run_of([500, 600, 900])]), dict(result(), runs=[run_of([700])])
    pooled = bench_contended.pooled([a, b])
    assert len(pooled["runs"]) == 2 and pooled["min"] == 500 and pooled["median"] == 650, \
        "pooled: every run kept, min and median over every repetition: %s" % pooled


CFG = dict(platform="xen-pv", smp=4, host_cpus=2)


def two_on_two():
    """The queued lock's runs on 2 vCPUs over 2, the ratio's reference."""
    alone = dict(result(), runs=[run_of([400, 475, 500]), run_of([470, 480, 490])])
    return (dict(CFG, id="xen-pv-patched+smp2", smp=2, host_cpus=None), alone)


def plain():
    return dict(result(), runs=[run_of([1000, 1200, 1400]), run_of([900, 1100, 1300], 0, 0)])


@pytest.fixture(scope="module")
def report():
    pv = dict(result(), runs=[run_of([500, 600, 700], blocked=4), run_of([540, 560, 580], 4)])
    ticket = dict(result(), runs=[run_of([800, 900, 1000], 9)])
    lines = bench_contended.section([(dict(CFG, id="xen-pv-patched+spinlock=off+smp4"), plain()),
                                     (dict(CFG, id="xen-pv-patched+xen.lock=ticket+smp4"), ticket),
                                     (dict(CFG, id="xen-pv-patched+smp4"), pv), two_on_two()])
    return ([line for line in lines if line.startswith("| Xen PV")],
            [line for line in lines if "takes **" in line])


def test_report_row_per_configuration(report):
    table, _ = report
    assert (len(table) == 4 and table[0].startswith("| Xen PV, 2 on 2, pv qspinlock | 2 × 3 |")
            and table[1].startswith("| Xen PV, 4 on 2, pv qspinlock | 2 × 3 |")
            and table[2].startswith("| Xen PV, 4 on 2, pv ticket | 1 × 3 |")
            and table[3].startswith("| Xen PV, 4 on 2, plain spinning | 2 × 3 |")), \
        "report: a row per configuration, by vCPUs, the queued lock first: %s" % table


def test_report_min_median_max_and_run_medians(report):
    table, _ = report
    assert ("| 500 / **570** / 700 | 600, 560 |" in table[1]
            and "| 900 / **1150** / 1400 | 1200, 1100 |" in table[3]), \
        "report: min, median, max over all repetitions and each run's median: %s" % table


def test_report_long_waits_blocked_kicked(report):
    table, _ = report
    assert (table[1].endswith("| 6 of 6 (1) | 4 (4) | 4 (4) |")
            and table[3].endswith("| 3 of 6 (0) | 0 (0) | 0 (0) |")), \
        "report: repetitions with a long wait, blocked and kicked per repetition: %s" % table


def test_report_ratios(report):
    _, ratio = report
    assert (len(ratio) == 3 and "plain spinning takes **2.0x**" in ratio[0]
            and "from 1.8x to 2.1x" in ratio[0] and "pv ticket takes **1.6x**" in ratio[1]
            and "takes **1.2x** its own time on 2 over 2" in ratio[2]
            and "(570 against 478)" in ratio[2]), \
        "report: plain and ticket against the queued lock, and it against its 2-on-2 " \
        "figure: %s" % ratio


def test_report_goals_met(report):
    _, ratio = report
    assert ("(plain at least 2x: goal met)" in ratio[0]
            and "(within 1.5x: goal met)" in ratio[2]), \
        "report: each ratio against its goal, met: %s" % ratio


def test_report_missed_goal_says_so():
    slow = dict(result(), runs=[run_of([800, 900, 1000], blocked=3)])
    lines = bench_contended.section([(dict(CFG, id="xen-pv-patched+spinlock=off+smp4"), plain()),
                                     (dict(CFG, id="xen-pv-patched+smp4"), slow), two_on_two()])
    ratio = [line for line in lines if "takes **" in line]
    assert (len(ratio) == 2 and "plain spinning takes **1.3x**" in ratio[0]
            and "(plain at least 2x: goal missed: plain spinning: 3 of 6 repetitions had a wait "
            "of 50000+, a median of 0 blocks per repetition)" in ratio[0]
            and "takes **1.9x** its own time" in ratio[1]
            and "(within 1.5x: goal missed: the pv qspinlock: 3 of 3 repetitions had a wait of "
            "50000+, a median of 3 blocks per repetition)" in ratio[1]), \
        "report: a missed goal says so, with what the repetitions measured: %s" % ratio


def test_report_nothing_without_runs():
    assert bench_contended.section([]) == []


class Args:
    icount, boots, runs = False, 2, 3


TRIAL = dict(id="t", icount=True, trials=["lock_contended"],
             names=["lock_contended", "pte_set"], selected=["lock_contended", "pte_set"],
             select=["lock_contended", "pte"], options=["xen.mmu=batch"])
TSC = dict(id="n", icount=False, trials=[], names=["pte_set"], selected=["pte_set"],
           select=["pte"], options=[])


@pytest.fixture(scope="module")
def plan():
    return bench_boots.boot_plan([dict(TRIAL), dict(TSC)], Args)


def test_boot_plan_runs_with_trials(plan):
    mine = [b for b in plan if b["id"] == "t"]
    step = bench_boots.RUN_OFFSET_US
    assert ([b["offset_us"] for b in mine] == [0, step, 2 * step]
            and [b["attempt"] for b in mine] == [0, 1, 2]
            and [b["suffix"] for b in mine] == ["", ".run2", ".run3"]), \
        "boot plan: a configuration with trials, --runs 3: its boot and two runs: %s" % mine


def test_boot_plan_later_runs_trials_only(plan):
    mine = [b for b in plan if b["id"] == "t"]
    assert (mine[0]["select"] == ["lock_contended", "pte"]
            and mine[0]["options"] == ["xen.mmu=batch"]
            and all(b["select"] == b["names"] == b["selected"] == ["lock_contended"]
                    and b["options"] == ["xen.mmu=batch", "bench.offset_us=%d" % b["offset_us"]]
                    for b in mine[1:])), \
        "boot plan: the later runs run the trials only, at their offset: %s" % mine


def test_boot_plan_boots_twice_without_runs(plan):
    assert [(b["attempt"], b["suffix"]) for b in plan if b["id"] == "n"] == [
        (0, ".1"), (1, ".2")], \
        "boot plan: --boots 2 without icount boots a configuration twice, with no runs"


def test_boot_plan_runs_1_boots_once():
    class Once(Args):
        runs = 1

    assert len([b for b in bench_boots.boot_plan([dict(TRIAL)], Once) if b["id"] == "t"]) == 1, \
        "boot plan: --runs 1 boots a configuration with trials once"
