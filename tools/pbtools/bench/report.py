"""build/bench/report.md and chart.svg from the results tools/bench collected,
and the benchmark list they are laid out from, read out of the image.

  python3 tools/bench_report.py [DIR]     re-renders DIR/results.json (default build/bench)

One table per group in the style of the 2006 binary-patching table: normal
(no paravirt), paravirt (unpatched), paravirt-patch, each with its change
against normal, then the share of the paravirt overhead that patching
removes: (unpatched - patched) / (unpatched - normal). The same for Xen,
against the native normal column (there is no Xen kernel without paravirt).
Figures are the minimum over the repetitions; medians are in results.json.

The benchmarks, their groups and what one op is come from the kernel's own
registrations (BENCH_DEFINE, BENCH_GROUP in bench/bench.h), read from the
image by bench/catalog.py: no second list to forget. Every benchmark in it
appears in the report, measured or not."""

import os
import sys

from pbtools import paths
from pbtools.bench import configs as bench_configs
from pbtools.bench import contended as bench_contended
from pbtools.bench import io_report as bench_io
from pbtools.bench import lifecycle as bench_lifecycle
from pbtools.bench import linux as bench_linux
from pbtools.bench import net as bench_net
from pbtools.bench import runs as bench_runs
from pbtools.bench.chart import histogram
from pbtools.bench import report_kvm as bench_report_kvm
from pbtools.bench.report_pvh import pvh_section
from pbtools.bench.runs import index, measured, unit_of, value
from pbtools.bench.table import fmt, label, markdown

# The headline table's and the chart's few; each benchmark has a row in its group's section.
HEADLINE = ["irq_disable_enable", "irqsave_irqrestore", "spin_lock_irqsave", "ctx_switch",
            "channel_pingpong", "mprotect_16", "xen_hypercall"]
CHARTED = HEADLINE[:-1] + ["call_indirect", "call_static", "call_retpoline"] + HEADLINE[-1:]
CHART = "chart.svg"


def names_in(cat, group):
    return [b["name"] for b in cat["benches"] if b["group"] == group]


def delta(v, normal):
    if v is None or not normal:
        return fmt(v)
    return "%s (%+.0f%%)" % (fmt(v), (v - normal) * 100 / normal)


def removed(unpatched, patched, normal):
    """The share of the paravirt overhead that patching removes."""
    if None in (unpatched, patched, normal) or unpatched - normal <= 0:
        return "—"
    share = (unpatched - patched) * 100 / (unpatched - normal)
    return "%.0f%%" % (share if abs(share) >= 0.5 else 0)


def row_variants(idx, name, columns):
    """The extra tags a benchmark was measured with in these columns: "" first."""
    tags = {bench_configs.column_and_tags(c, columns)[1] for c, names in idx.items()
            if name in names}
    tags.discard(None)
    return sorted(tags, key=lambda t: (t != "", t))


def removes_after(i, columns=bench_configs.COLUMNS):
    """Whether column i is a patched column right after its unpatched twin,
    so the share patching removes follows it."""
    before = columns[i - 1][0] if i > 0 else ""
    return "-unpatched" in before and columns[i][0] == before.replace("-unpatched", "-patched", 1)


def row_cells(idx, name, tags):
    """A figure per column, each against normal (the first), and after
    each patched column the share patching removes."""
    v = [value(idx, col, tags, name) for col, _ in bench_configs.COLUMNS]
    cells = [fmt(v[0])]
    for i in range(1, len(v)):
        cells.append(delta(v[i], v[0]))
        if removes_after(i):
            cells.append(removed(v[i - 1], v[i], v[0]))
    return cells


def headings():
    """The columns' headings, with row_cells' shares: the native one is
    "patching removes", the others name their platform."""
    out = []
    for i, (col, heading) in enumerate(bench_configs.COLUMNS):
        out.append(heading)
        if removes_after(i):
            unpatched = bench_configs.COLUMNS[i - 1]
            out.append(("" if col.startswith("native-") else unpatched[1] + ": ")
                       + "patching removes")
    return out


HEADINGS = headings()


def timed_by_tsc(idx):
    """Whether any figure of the run is in TSC ticks."""
    return any(r.get("unit") == "tsc_ticks" for results in idx.values() for r in results.values())


def row_label(idx, name, tags, tsc_run, columns=bench_configs.COLUMNS):
    """label(), saying "icount" for a row a TSC-timed run (tsc_run, from
    timed_by_tsc) measured under icount all the same (a configuration
    pinned to it)."""
    mine = {r.get("unit") for c, results in idx.items() if name in results
            and bench_configs.column_and_tags(c, columns)[1] == tags
            for r in [results[name]]}
    if tsc_run and mine == {"instructions"}:
        tags = (tags + ", " if tags else "") + "icount: instructions"
    return label(name, tags)


def table(idx, names, variants=True):
    """The 2006-style table for names; each option variant a row of its own
    unless variants is False."""
    tsc_run = timed_by_tsc(idx)
    rows = [[row_label(idx, name, tags, tsc_run)] + row_cells(idx, name, tags)
            for name in names for tags in row_variants(idx, name, bench_configs.COLUMNS)
            if variants or not tags]
    return markdown(["benchmark"] + HEADINGS, rows)


def calls_table(idx, cat):
    """The call benchmarks side by side, one row per configuration: they
    do not go through pv sites, so the comparison is across a row."""
    calls = [n for n in names_in(cat, "calls") if n in measured(idx)]
    rows = []
    for col, heading in bench_configs.COLUMNS:
        v = [value(idx, col, "", name) for name in calls]
        rows.append([heading] + [fmt(x) for x in v])
    rows = [r for r in rows if any(x != "—" for x in r[1:])]
    return markdown(["configuration"] + ["`%s`" % n for n in calls], rows)


# 2008: mprotect under Xen against native, with each pte write trapped and
# emulated, and once the updates were batched into multicalls.
PTE_2008 = "~50x trapped, ~7x batched"


def ratio(v, native):
    if v is None or not native:
        return fmt(v)
    r = v / native
    return "%s (%.*fx)" % (fmt(v), 1 if r < 10 else 0, r)


def pte_table(idx, cat):
    """Native against Xen's three pte modes, as ratios to normal."""
    names = names_in(cat, "pte")
    rows = []
    tsc_run = timed_by_tsc(idx)
    for name in names:
        for tags in row_variants(idx, name, bench_configs.PTE_COLUMNS):
            v = [value(idx, col, tags, name) for col, _ in bench_configs.PTE_COLUMNS]
            rows.append([row_label(idx, name, tags, tsc_run, bench_configs.PTE_COLUMNS), fmt(v[0])] + [ratio(x, v[0]) for x in v[1:]]
                        + [PTE_2008 if name.startswith("mprotect") else "—"])
    headings = ["benchmark"] + [h for _, h in bench_configs.PTE_COLUMNS] + ["2008"]
    return markdown(headings, rows)


def boots_text(n):
    return "once each" if n == 1 else "%d times each, each benchmark's fastest boot kept" % n


def conditions_text(c):
    timing = ("QEMU `-icount shift=0`: one TSC tick per guest instruction (Xen's included), "
              "identical run to run" if c["timing"] == "icount" else
              "TSC ticks under software emulation (TCG): they follow host time and vary run "
              "to run; they are not hardware timings")
    lines = [
        "- Date: %s; revision %s" % (c["date"], c["git_revision"]),
        "- %s, accelerator %s, `-cpu %s` (the guest sees \"%s\")"
        % (c["qemu"], c["accelerator"], c["cpu_model"], c["cpu_brand"]),
        "- Hypervisor: %s (dom0, 64-bit PV%s%s)" % (
            c["xen"] or "Xen not booted", " and PVH" if c.get("pvh") else "",
            "; and a domU of Debian's Linux dom0, started by `xl create`" if c.get("domu") else ""),
        "- Unit: %s" % timing,
        "- Each figure: the minimum over the repetitions of per-op ticks, with the empty "
        "loop's per-iteration cost taken off (the `loop_overhead` line of each boot)",
        "- %d configurations booted %s, %d at a time on a %d-CPU host, in %.0f s"
        % (c["configs"], boots_text(c.get("boots_per_config", 1)), c["parallel_boots"],
           c["host_cpus"], c["elapsed_s"]),
    ]
    if c.get("kvm"):
        lines.insert(3, "- KVM: Debian's QEMU with `-accel kvm` in Debian's Linux (L1, the domU "
                     "door's kernel) under this QEMU, the image its L2 guest")
    if c.get("runs_with_trials", 1) > 1:
        lines.append("- Configurations under icount booted once, except those with trials "
                     "(`lock_contended` with more vCPUs than physical CPUs): %d runs each, "
                     "each later run starting its benchmark %d µs later (`bench.offset_us`)"
                     % (c["runs_with_trials"], c["run_offset_us"]))
    if c["quick"]:
        lines.append("- **Quick run** (few iterations): a check that everything works, "
                     "not a measurement")
    return lines


def notes(c):
    out = ["", "Reading the tables: `normal` is the kernel built without paravirt "
           "(`make PARAVIRT=n`); `paravirt` the paravirt kernel with `pv.patch=off`, every "
           "site an indirect call; `paravirt-patch` the same kernel with its sites rewritten at "
           "boot. Percentages are against `normal`. `patching removes` is (paravirt - "
           "paravirt-patch) / (paravirt - normal). The `xen-pv` columns run the same image as a "
           "PV dom0, the `pvh` ones as a PVH dom0 (`tools/run --xen --pvh`), both also "
           "compared with the native `normal`; `domU-patch` (and `domU batch`) and "
           "`pvh-domU-patch` as an unprivileged domU that Xen's toolstack started from a Linux "
           "dom0 (`tools/run --domu`, with `--pvh`); `kvm-patch` as an L2 guest of KVM in an "
           "emulated Linux host (`tools/run --kvm`). See docs/benchmarks.md."]
    if c.get("domu"):
        out += ["", "dom0 and domU run the same backend and the same patched sites; what "
                "differs is the domain around them. A domU has no I/O privilege, its console is "
                "a ring that dom0's xenconsoled drains (dom0 writes with a hypercall to Xen's "
                "serial line), and Xen emulates its TSC: every rdtsc traps into Xen (a PV dom0 "
                "reads the real one; under PVH here dom0's traps too). Its clock reads, and the "
                "benchmarks' own timing, cost more "
                "there, and a second domain, Linux, shares the one CPU."]
    if c["timing"] == "icount":
        out.append("")
        out.append("Under icount every instruction counts, NOP padding included: a patched "
                   "native site is its native instruction plus one NOP, so it costs one "
                   "instruction more per site than the `normal` build (cli;sti is 2 there and "
                   "4 patched). An instruction count is not a cycle count: on hardware a trap, "
                   "a hypercall or popf costs far more than its count suggests.")
    else:
        out.append("")
        out.append("These are not hardware timings: under TCG a guest instruction costs what "
                   "its translation costs on the host. Compare columns with each other, and "
                   "use `make bench ICOUNT=1` for figures that repeat exactly.")
    return out


def group_sections(idx, cat):
    """A section per group with a result: what one op is, then the table.
    A benchmark measured in no column still gets its line and a row of —."""
    out = []
    done = measured(idx)
    for group in cat["groups"]:
        benches = [b for b in cat["benches"] if b["group"] == group["name"] and b["name"] in done]
        if not benches or group["name"] == "io":  # its own section (io_report.py)
            continue
        names = [b["name"] for b in benches]
        rows = calls_table(idx, cat) if group["name"] == "calls" else table(idx, names)
        if group["name"] == "pte":
            rows += ["", "Against Xen's pte modes (`xen.mmu=`), each as a ratio to normal. "
                     "The `mprotect_512` row is the figure to quote for how much slower "
                     "mprotect is under Xen (docs/benchmarks.md, \"The figures to quote\"):",
                     ""] + pte_table(idx, cat)
        out += ["", "## " + group["title"], "", "One op:", ""]
        out += ["- `%s`: %s%s" % (b["name"], b["description"],
                                  " (needs %s)" % ", ".join(b["needs"]) if b["needs"] else "")
                for b in benches]
        out += [""] + rows
    left = [b["name"] for b in cat["benches"] if b["name"] not in done]
    if left:
        out += ["", "Not measured in this run: " + ", ".join("`%s`" % n for n in left) + "."]
    return out


def smp_section(idx):
    """What several CPUs cost, from the +smpN configurations: a shootdown
    natively and under Xen, pv spinlocks natively, and what they save
    with more vCPUs than physical CPUs. Empty without those runs."""
    native, xen = "native-patched", "xen-pv-patched" + bench_configs.XEN
    out = []
    one_native, one_xen = value(idx, native, "", "tlb_shootdown_1"), value(idx, xen, "",
                                                                           "tlb_shootdown_1")
    two_native, two_xen = value(idx, native, "smp2", "tlb_shootdown_1"), value(idx, xen, "smp2",
                                                                               "tlb_shootdown_1")
    unit = next((r["unit"] for results in idx.values() for r in results.values()
                 if "unit" in r), "ticks").replace("_", " ")
    if None not in (one_native, two_native, one_xen, two_xen):
        out.append("- **A shootdown** (`tlb_shootdown_1` on two CPUs less on one, %s): %s "
                   "natively (an IPI and a wait for the other CPU's acknowledgement), %s under "
                   "Xen (one `mmuext_op` more in the pte updates' multicall, one hypercall "
                   "whatever the vCPU count, no IPI)."
                   % (unit, fmt(two_native - one_native), fmt(two_xen - one_xen)))
    pv, plain = value(idx, native, "", "spin_lock_unlock"), value(idx, native, "spinlock=off",
                                                                  "spin_lock_unlock")
    if None not in (pv, plain):
        out.append("- **pv spinlocks natively** (`spin_lock_unlock`, %s): %s with them, %s "
                   "without (%+.1f%%): the native backend has no lock ops, so `spin_lock()` runs "
                   "the ticket lock inline either way, and any difference is the host's."
                   % (unit, fmt(pv), fmt(plain), (pv - plain) * 100 / plain))
    contended = [(cfg, idx[cfg["id"]]["lock_contended"]) for cfg in bench_configs.CONFIGS
                 if cfg["smp"] > 1 and cfg["platform"].startswith("xen")
                 and "runs" in idx.get(cfg["id"], {}).get("lock_contended", {})]
    out += live_patch_lines(idx, native, xen, unit)
    locks = bench_contended.section(contended)
    if not out and not locks:
        return []
    return ["", "## SMP", ""] + out + (["", "### Contended locks", ""] + locks if locks else [])


def live_patch_lines(idx, native, xen, unit):
    """What one live patch costs on one CPU and on four, and why it is safe."""
    one_native, one_xen = (value(idx, c, "", "static_call_retarget") for c in (native, xen))
    four_native, four_xen = (value(idx, c, "smp4", "static_call_retarget") for c in (native, xen))
    if None in (one_native, four_native):
        return []
    xen_part = ("; under Xen %s on one vCPU and %s with 4 vCPUs on 2 physical CPUs (every "
                "write two `update_va_mapping`s, the second flushing every vCPU's TLB, and a "
                "sync's waiter blocks until the last vCPU answers)"
                % (fmt(one_xen), fmt(four_xen))) if None not in (one_xen, four_xen) else ""
    return ["- **Live patching** (`static_call_retarget`, %s): %s on one CPU, where it is one "
            "write, and %s natively with 4 CPUs, where it is an int3 over the first byte, the "
            "rest, the first byte and the first byte again, each write followed by a sync that "
            "sends every CPU an IPI and waits until each has serialized%s. A CPU that meets "
            "the int3 meanwhile does what the place does on its trap frame and goes on, so no "
            "CPU waits for the writer and none runs a half-written instruction; "
            "`pv.repatch_test=N` checks it (docs/live-patching.md)."
            % (unit, fmt(one_native), fmt(four_native), xen_part)]


# ---- What paravirtualization still buys under PVH ----

# Each kind of pv op, the benchmarks that time it, and the tag of the CPUs
# it needs ("" one, "smp2" two, "smp4" four: under Xen on two physical
# CPUs): the PVH section's rows, native against PV against PVH, patched.
def missing_from(report, cat):
    """The benchmarks of cat that report (markdown text) never names."""
    return [b["name"] for b in cat["benches"] if "`%s`" % b["name"] not in report]


def render(data, chart_made, io=(), linux=None):
    c = dict(data["conditions"], configs=len(data["configs"]))
    cat = data["catalog"]
    idx = index(data)
    out = ["# patchbay benchmarks", ""] + conditions_text(c)
    headline = table(idx, HEADLINE, variants=False)
    if headline:
        out += ["", "## Headline", ""] + headline
        calls = calls_table(idx, cat)
        if calls:
            out += ["", "Calls, the 2018 jump-functions comparison (same target, per call):",
                    ""] + calls
    out += notes(c)
    if chart_made:
        out += ["", "![headline comparisons](%s)" % CHART]
    out += smp_section(idx)
    out += pvh_section(idx)
    out += bench_report_kvm.section(idx, linux)
    out += group_sections(idx, cat)
    out += list(io)
    failed = [r for r in data["configs"] if r["problems"]]
    if failed:
        out += ["", "## Failed configurations", ""]
        out += ["- %s: %s" % (r["id"], "; ".join(r["problems"])) for r in failed]
    return "\n".join(out) + "\n"


def chart(data, idx, out):
    """chart.svg: the headline costs, a bar a column; False if there is
    nothing to draw or no gnuplot."""
    rows = []
    for name in CHARTED:
        vals = [value(idx, col, "", name) for col, _ in bench_configs.COLUMNS]
        if any(vals):
            rows.append((name, vals))
    icount = data["conditions"]["timing"] == "icount"
    return histogram(out, CHART[:-len(".svg")], rows, [h for _, h in bench_configs.COLUMNS],
                     "patchbay: headline costs (%s)" % ("icount" if icount else "TSC under TCG"),
                     "%s per op (log scale)" % ("instructions" if icount else "TSC ticks"),
                     log=True)


def write(data, out, extra=()):
    """Writes report.md (and chart.svg), followed by the lines of extra (the
    Linux and Lifecycle sections, tools/pbtools/bench/linux.py and
    tools/pbtools/bench/lifecycle.py); returns the benchmarks of the
    catalog it failed to name, which must be none."""
    made = chart(data, index(data), out)
    linux = bench_runs.load(os.path.join(out, "linux.json"))
    io = bench_io.section(index(data), linux, out, fmt, unit_of(index(data)))
    io += bench_net.section(data, linux, None if io else "Paravirtual I/O")
    text = render(data, made, io, linux) + "".join(line + "\n" for line in extra)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    return missing_from(text, data["catalog"])


def main():
    """tools/bench_report.py [DIR]: DIR's report.md again from its results.json."""
    where = sys.argv[1] if len(sys.argv) > 1 else os.path.relpath(paths.build("bench"))
    try:
        results = bench_runs.load(os.path.join(where, "results.json"))
    except bench_runs.ResultsError as e:
        return "bench_report: %s" % e
    if results is None:
        return "bench_report: no %s/results.json; run tools/bench" % where
    left_out = write(results, where,
                     bench_linux.section_of(where) + bench_lifecycle.section_of(where))
    if left_out:
        return "bench_report: report.md leaves out " + ", ".join(left_out)
    return 0
