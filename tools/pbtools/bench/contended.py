"""lock_contended's own lines (bench/lock_contended.c): a detail line per
repetition and one of their mean, read from a boot's console by tools/bench
(tools/pbtools/result_lines.py), pooled over the boots of a configuration, and laid
out by tools/bench_report.py as a distribution.

Under icount what varies from one repetition or run to the next is where
Xen's time slices fall against the lock's critical sections: each
repetition starts where the last one ended, and each further run of a
configuration (tools/bench --runs) starts its benchmarks later
(bench.offset_us). With more vCPUs than physical CPUs the interleaving
QEMU picks can move too, when a host event cuts a CPU's turn short, so
even two boots at the same offset may differ. The spread is that, not
clock noise, and the report says so.
"""

import statistics

from pbtools import result_lines

REP_FIELDS = ("per_acq", "acquisitions", "long_waits", "blocked", "kicked")
MEAN_FIELDS = ("mean", "waiting", "long_waits", "long_wait", "blocked", "kicked")


def parse(text, reps, offset_us=0):
    """One run of lock_contended from a console: its mean line and its
    repetitions, or None unless there are exactly reps of them, numbered
    from 1, and one mean line, each with every field, a whole number.
    ResultLineError if a detail line is not key=value fields."""
    lines = result_lines.details(text, "lock_contended")
    rows = [d for d in lines if "rep" in d]
    means = [d for d in lines if "mean" in d]
    if (len(means) != 1 or [d["rep"] for d in rows] != list(range(1, reps + 1))
            or not all(whole(d, REP_FIELDS) for d in rows) or not whole(means[0], MEAN_FIELDS)):
        return None
    run = dict({k: means[0][k] for k in MEAN_FIELDS}, offset_us=offset_us)
    run["reps"] = [{k: d[k] for k in REP_FIELDS} for d in rows]
    return run


def whole(line, keys):
    """Whether the line has every key, each a whole number."""
    return all(type(line.get(k)) is int for k in keys)


def attach(results, text, offset_us=0):
    """Puts the run into lock_contended's result, as a list of one run;
    returns why it cannot (None if it could, or if the boot has no
    lock_contended result)."""
    for r in results:
        if r.get("name") == "lock_contended" and "min" in r:
            try:
                run = parse(text, r.get("reps", 0), offset_us)
            except result_lines.ResultLineError as e:
                return "lock_contended's own lines do not parse: %s" % e
            if run is None:
                reps = [d for d in result_lines.details(text, "lock_contended") if "rep" in d]
                return ("lock_contended's own lines do not parse: %d repetition lines for "
                        "reps=%s" % (len(reps), r.get("reps")))
            r["runs"] = [run]
    return None


def pooled(results):
    """One result from lock_contended's results of several boots of one
    configuration: every run, and the min and median per acquisition over
    every repetition of every run (the runner's own min and median cover
    one boot)."""
    runs = [run for r in results for run in r["runs"]]
    per_acq = [rep["per_acq"] for run in runs for rep in run["reps"]]
    return dict(results[0], runs=runs, min=float(min(per_acq)),
                median=float(statistics.median(per_acq)))


def distribution(result):
    """What a configuration's repetitions came to, over all its runs."""
    runs = result["runs"]
    reps = [rep for run in runs for rep in run["reps"]]
    per_acq = [rep["per_acq"] for rep in reps]
    return dict(runs=len(runs), reps=len(reps), min=min(per_acq),
                median=statistics.median(per_acq), max=max(per_acq),
                run_medians=[statistics.median(rep["per_acq"] for rep in run["reps"])
                             for run in runs],
                long_wait=runs[0]["long_wait"],
                long_waits=statistics.median(rep["long_waits"] for rep in reps),
                long_wait_reps=sum(1 for rep in reps if rep["long_waits"]),
                blocked=(statistics.median(rep["blocked"] for rep in reps),
                         max(rep["blocked"] for rep in reps)),
                kicked=(statistics.median(rep["kicked"] for rep in reps),
                        max(rep["kicked"] for rep in reps)))


def ratio_spread(slow, fast):
    """One configuration's time over another's: at the medians of every
    repetition, and its lowest and highest between the two configurations'
    run medians, whichever run is set against whichever."""
    low = min(slow["run_medians"]) / max(fast["run_medians"])
    high = max(slow["run_medians"]) / min(fast["run_medians"])
    return slow["median"] / fast["median"], low, high


PLATFORM_NAMES = {"xen-pv": "Xen PV", "xen-pvh": "Xen PVH"}
# The locks a configuration can take, in the report's order: Xen's pv
# queued lock (the default), its pv ticket lock, plain ticket spinning.
QUEUED, TICKET, PLAIN = "pv qspinlock", "pv ticket", "plain spinning"
KINDS = [QUEUED, TICKET, PLAIN]


def kind(cfg):
    """The lock a configuration measured, from its id's tags."""
    if "+spinlock=off" in cfg["id"]:
        return PLAIN
    return TICKET if "+xen.lock=ticket" in cfg["id"] else QUEUED


def fmt(v):
    return "%d" % round(v)


def row(cfg, result):
    """A configuration's row: what it is, then its distribution."""
    d = distribution(result)
    return [
        "%s, %d on %d, %s" % (PLATFORM_NAMES.get(cfg["platform"], cfg["platform"]), cfg["smp"],
                              cfg["host_cpus"] or cfg["smp"], kind(cfg)),
        "%d × %d" % (d["runs"], d["reps"] // d["runs"]),
        result.get("unit", "ticks").replace("tsc_ticks", "TSC ticks"),
        "%s / **%s** / %s" % (fmt(d["min"]), fmt(d["median"]), fmt(d["max"])),
        ", ".join(fmt(m) for m in d["run_medians"]),
        "%d of %d (%s)" % (d["long_wait_reps"], d["reps"], fmt(d["long_waits"])),
        "%s (%s)" % (fmt(d["blocked"][0]), fmt(d["blocked"][1])),
        "%s (%s)" % (fmt(d["kicked"][0]), fmt(d["kicked"][1])),
    ]


# The goals pv spinlocks are measured against, overcommitted: plain
# spinning takes at least PLAIN_GOAL times the pv lock's time, and the pv
# lock stays within ALONE_GOAL times its own figure on as many vCPUs as
# physical CPUs.
PLAIN_GOAL, ALONE_GOAL = 2.0, 1.5


def verdict(met, why):
    """The goal's outcome, and when missed, what the repetitions measured."""
    return "goal met" if met else "goal missed: " + why


def waits(d):
    """What a configuration's repetitions show of descheduled vCPUs."""
    return ("%d of %d repetitions had a wait of %d+, a median of %s blocks per repetition"
            % (d["long_wait_reps"], d["reps"], d["long_wait"], fmt(d["blocked"][0])))


def ratio_lines(by):
    """Per platform and overcommitted vCPU count: each other lock against
    the pv queued lock, and the queued lock against its own figure with
    as many vCPUs as physical CPUs, each against its goal."""
    out = []
    for (platform, smp, host), locks in sorted(by.items()):
        name, queued = PLATFORM_NAMES.get(platform, platform), locks.get(QUEUED)
        if smp <= host or not queued:
            continue
        for other in (PLAIN, TICKET):
            if other in locks:
                mid, low, high = ratio_spread(locks[other], queued)
                goal = ""
                if other == PLAIN:
                    goal = " (plain at least %.0fx: %s)" % (PLAIN_GOAL, verdict(
                        mid >= PLAIN_GOAL, "plain spinning: " + waits(locks[other])))
                out.append("- %s, %d vCPUs on %d: %s takes **%.1fx** the pv qspinlock's machine "
                           "time per acquisition at the medians, from %.1fx to %.1fx between the "
                           "runs' medians%s." % (name, smp, host, other, mid, low, high, goal))
        alone = by.get((platform, host, host), {}).get(QUEUED)
        if alone:
            mid, low, high = ratio_spread(queued, alone)
            goal = verdict(mid <= ALONE_GOAL, "the pv qspinlock: " + waits(queued))
            out.append("- %s: the pv qspinlock on %d vCPUs over %d takes **%.1fx** its own time "
                       "on %d over %d at the medians (%s against %s), from %.1fx to %.1fx "
                       "between the runs' medians (within %.1fx: %s)."
                       % (name, smp, host, mid, host, host, fmt(queued["median"]),
                          fmt(alone["median"]), low, high, ALONE_GOAL, goal))
    return out


def section(pairs):
    """The report's lines on lock_contended with several CPUs under Xen, from
    (configuration, result) pairs whose result has runs: a table, the
    ratios of each platform's overcommitted boots, and what the spread is."""
    pairs = sorted(pairs, key=lambda p: (p[0]["platform"], p[0]["smp"], KINDS.index(kind(p[0]))))
    if not pairs:
        return []
    long_wait = distribution(pairs[0][1])["long_wait"]
    out = ["`lock_contended` under Xen: machine time per acquisition, one figure per "
           "repetition. A wait of %d or more is one whose lock holder or next in line was not "
           "running (docs/bench-smp.md, \"On more vCPUs than physical CPUs\"):" % long_wait, "",
           "| configuration | runs × repetitions | unit | min / **median** / max | medians of "
           "the runs | repetitions with a wait of %d+ (median per repetition) | waiters "
           "blocked per repetition: median (max) | kicked: median (max) |" % long_wait,
           "|" + " --- |" * 8]
    out += ["| " + " | ".join(row(cfg, result)) + " |" for cfg, result in pairs]
    out.append("")
    by = {}
    for cfg, result in pairs:
        key = (cfg["platform"], cfg["smp"], cfg["host_cpus"] or cfg["smp"])
        by.setdefault(key, {})[kind(cfg)] = distribution(result)
    out += ratio_lines(by)
    if any(result.get("unit") == "instructions" for _, result in pairs):
        out.append("- Under icount the repetitions differ in where Xen's time slices fall against "
                   "the lock (each starts where the last ended), the runs also in their start "
                   "offset (`bench.offset_us`), and boots now and then in the interleaving "
                   "QEMU picks for the two physical CPUs, which a host event can move. The "
                   "spread is that, not clock noise.")
    return out
