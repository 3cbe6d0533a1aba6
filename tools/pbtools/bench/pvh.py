"""The PVH per-op choices, recorded: tools/bench --pvh [--record].

What paravirtualization still buys under PVH is a comparison of each op's
pv way (Xen's timer, IPIs as events, HVMOP_flush_tlbs) with the emulated
hardware's (the LAPIC timer, LAPIC IPIs, an IPI per vCPU for a
shootdown), on one vCPU and on two, beside the same ops natively and
under PV. A PVH dom0 boot is the dearest kind here (every hypercall and
clock read is a VM exit QEMU emulates slowly), so the page quotes one
recorded run, docs/pvh-run.json, as it quotes docs/host-run.json: icount
figures, the same run to run, but too slow to make for every check.

    CONFIGS                      the boots (bench_configs.config dicts)
    BENCHES                      the benchmarks each runs, if it can
    record(runs, conditions)     the JSON the page's block reads
    table(record)                the block: one row a benchmark
"""

import os

from pbtools.bench import configs as bench_configs
from pbtools.bench.configs import config
from pbtools.bench.table import fmt as report_fmt  # the report's figures' form
from pbtools.paths import ROOT

RECORD = os.path.join(ROOT, "docs", "pvh-run.json")

# Each op, the benchmark that times it, and the PVH choice that changes it
# (None: the same under both ways).
OPS = [
    ("timer: arm the one-shot", "timer_arm", "xen.timer"),
    ("clock: read it", "clock_read", None),
    ("IPI: sync every CPU", "smp_sync", "xen.ipi"),
    ("shootdown: one page", "tlb_shootdown_1", "xen.shootdown"),
    ("mprotect: one page", "mprotect_1", "xen.shootdown"),
    ("hypercall: a round trip", "xen_hypercall", None),
]
BENCHES = [name for _, name, _ in OPS]
# In the order the kernel tags its configuration (bench/config.c: link order).
HARDWARE = ["xen.shootdown=ipi", "xen.ipi=lapic", "xen.timer=lapic"]
PV = "xen-pv-patched" + bench_configs.XEN
PVH = bench_configs.PVH_PATCHED
# The columns: (heading, configuration id without its CPU tag, options).
COLUMNS = [
    ("native", "native-patched", []),
    ("Xen PV", PV, ["xen.mmu=batch"]),
    ("PVH, pv way", PVH, []),
    ("PVH, emulated hardware", PVH + "+" + "+".join(HARDWARE), HARDWARE),
]
CPUS = (1, 2)


def tag(cpus):
    return bench_configs.smp_tag(cpus)


CONFIGS = [config(base + tag(n), BENCHES, options, smp=n, icount=True)
           for n in CPUS for _, base, options in COLUMNS]


def record(runs, conditions):
    """{conditions, figures: {config id: {benchmark: min}}}; bench_runs.save
    adds the format."""
    figures = {}
    for run in runs:
        for r in run["results"]:
            if "min" in r and r["name"] in BENCHES:
                figures.setdefault(r["config"], {})[r["name"]] = r["min"]
    keep = ("date", "git_revision", "qemu", "cpu_model", "xen", "timing")
    return dict(conditions={k: conditions.get(k) for k in keep},
                figures=figures)


def figure(rec, base, cpus, name):
    return rec["figures"].get(base + tag(cpus), {}).get(name)


def table(rec):
    """The block's lines: what the run was, then one row a benchmark with
    every column in instructions per op."""
    c = rec["conditions"]
    heads = ["op", "benchmark", "choice"] + ["%s, %d vCPU%s" % (h, n, "s" if n > 1 else "")
                                             for n in CPUS for h, _, _ in COLUMNS]
    rows = []
    for op, name, choice in OPS:
        cells = [report_fmt(figure(rec, base, n, name)) for n in CPUS for _, base, _ in COLUMNS]
        rows.append([op, "`%s`" % name, "`%s`" % choice if choice else "none"] + cells)
    out = ["Instructions per op under icount (%s, %s, `-cpu %s`), minimum of the "
           "repetitions, recorded by `tools/bench --pvh --record` on %s (docs/pvh-run.json). "
           "The emulated hardware's column sets %s at once; each row's choice is the one "
           "that changes it." % (c["qemu"], c["xen"], c["cpu_model"], c["date"],
                                 ", ".join("`%s`" % h for h in HARDWARE)), ""]
    out.append("| " + " | ".join(heads) + " |")
    out.append("|" + " --- |" * len(heads))
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out
