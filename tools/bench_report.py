"""build/bench/report.md and chart.svg from the results tools/bench collected,
and the benchmark list they are laid out from, read out of the image.

  python3 tools/bench_report.py [DIR]     re-renders DIR/results.json (default build/bench)

One table per group in the style of the 2006 binary-patching table: normal
(no paravirt), paravirt (unpatched), paravirt-patch, each with its change
against normal, then the share of the paravirt overhead that patching
removes: (unpatched - patched) / (unpatched - normal). The same for Xen,
against the native normal column (there is no Xen kernel without paravirt).
Figures are the minimum over the repetitions; medians are in results.json.

The benchmarks, their groups and what one op is come from the kernel's
own registrations (BENCH_DEFINE, BENCH_GROUP in bench/bench.h), read from
the image by catalog(): there is no second list to forget. Every benchmark
in it appears in the report, measured or not.
"""

import os
import struct
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_configs  # noqa: E402
import bench_contended  # noqa: E402
import bench_io  # noqa: E402
import bench_net  # noqa: E402
import bench_runs  # noqa: E402
import elfimage  # noqa: E402
from report_table import fmt, markdown  # noqa: E402

# The layouts of bench/bench.h, which _Static_asserts the offsets used here.
BENCH_SIZE = 64
BENCH_CAP_SIZE = 24


class CatalogError(Exception):
    """The image has no benchmark table the tools can read."""


def catalog(path):
    """The benchmarks registered in the image at path, in the order the
    kernel runs them (group rank, group name, name), as a dict:
      benches: [{name, group, needs: [cap names], needs_mask, every_cpu, description}]
      groups:  [{name, title, rank}] of the groups those use, in order
      caps:    [{name, bit, platform}]: which platform offers each capability
    """
    image = elfimage.Image(path)
    start, stop = (image.symbol_address(s) for s in ("__start_benches", "__stop_benches"))
    caps_at = image.symbol_address("bench_caps")
    if start is None or stop is None or caps_at is None:
        raise CatalogError("%s: no benchmark table (__start_benches, bench_caps)" % path)

    def number(fmt, addr):
        raw = image.bytes_at(addr, struct.calcsize(fmt))
        if raw is None or len(raw) != struct.calcsize(fmt):
            raise CatalogError("%s: the benchmark table runs outside the image at 0x%x"
                               % (path, addr))
        return struct.unpack(fmt, raw)[0]

    def pointer(addr):
        return number("<Q", addr)

    def string(addr):
        text = image.cstring_at(pointer(addr))
        if text is None:
            raise CatalogError("%s: a benchmark string at 0x%x points outside the image"
                               % (path, addr))
        return text

    caps = []
    for at in range(caps_at, caps_at + 64 * BENCH_CAP_SIZE, BENCH_CAP_SIZE):
        if not pointer(at + 8):
            break
        caps.append(dict(name=string(at + 8), bit=number("<I", at), platform=string(at + 16)))
    groups, benches = {}, []
    for at in range(start, stop, BENCH_SIZE):
        group_at = pointer(at + 8)
        if group_at not in groups:
            groups[group_at] = dict(name=string(group_at), title=string(group_at + 8),
                                    rank=number("<I", group_at + 16))
        mask = number("<I", at + 32)
        needs = [c["name"] for c in caps if mask & c["bit"]]
        named = 0
        for c in caps:
            named |= c["bit"]
        unnamed = mask & ~named
        if unnamed:
            needs.append("0x%x" % unnamed)
        benches.append(dict(name=string(at), group=groups[group_at]["name"], needs=needs,
                            needs_mask=mask, every_cpu=bool(number("<B", at + 37)),
                            description=string(at + 16)))
    return ordered(dict(benches=benches, groups=list(groups.values()), caps=caps))


def ordered(cat):
    """cat sorted as bench/order.c sorts: by group rank, then group name,
    then name. Groups with the same name are one group."""
    groups = {}
    for g in cat["groups"]:
        groups.setdefault(g["name"], g)
    key = {name: (g["rank"], name) for name, g in groups.items()}
    benches = {}
    for b in cat["benches"]:
        benches.setdefault(b["name"], b)
    return dict(benches=sorted(benches.values(), key=lambda b: (key[b["group"]], b["name"])),
                groups=sorted(groups.values(), key=lambda g: key[g["name"]]),
                caps=cat["caps"])


def merged(catalogs):
    """One catalog holding every benchmark of any of catalogs (the two
    images may register different benchmarks)."""
    out = dict(benches=[], groups=[], caps=[])
    for cat in catalogs:
        out["benches"] += cat["benches"]
        out["groups"] += cat["groups"]
        out["caps"] += [c for c in cat["caps"] if c not in out["caps"]]
    return ordered(out)


def offers(cap, platform):
    """Whether the platform (a pv_info.name) offers the capability, whose
    platform is a name or a family ("xen" for "xen-pv" and "xen-pvh")."""
    return platform == cap["platform"] or platform.startswith(cap["platform"] + "-")


def platform_caps(cat, platform):
    """The capability bits a platform's backend offers."""
    bits = 0
    for c in cat["caps"]:
        if offers(c, platform):
            bits |= c["bit"]
    return bits


def runs_on(bench, cat, platform, disk=False):
    """Whether the benchmark runs on the platform, given a disk or not."""
    caps = platform_caps(cat, platform)
    if disk:
        caps |= sum(c["bit"] for c in cat["caps"] if c["name"] == "disk")
    return not bench["needs_mask"] & ~caps


def selected(cat, words):
    """The benchmarks bench=WORDS picks, in run order (bench/select.c)."""
    return [b for b in cat["benches"]
            if "all" in words or b["name"] in words or b["group"] in words]


# A chosen few, for the headline table and the chart; every benchmark also
# has its row in its group's section.
HEADLINE = ["irq_disable_enable", "irqsave_irqrestore", "spin_lock_irqsave", "ctx_switch",
            "channel_pingpong", "mprotect_16", "xen_hypercall"]
CHARTED = HEADLINE[:-1] + ["call_indirect", "call_static", "call_retpoline"] + HEADLINE[-1:]
CHART = "chart.svg"


def index(data):
    """{config id: {benchmark name: result}} for every measured result."""
    idx = {}
    for run in data["configs"]:
        for r in run["results"]:
            if "min" in r:
                idx.setdefault(r["config"], {})[r["name"]] = r
    return idx


def measured(idx):
    return {name for results in idx.values() for name in results}


def names_in(cat, group):
    return [b["name"] for b in cat["benches"] if b["group"] == group]


def value(idx, column, tags, name):
    r = idx.get(column + ("+" + tags if tags else ""), {}).get(name)
    return r["min"] if r else None


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


def label(name, tags):
    return "`%s`" % name + (" (%s)" % tags if tags else "")


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
           "dom0 (`tools/run --domu`, with `--pvh`). See docs/benchmarks.md."]
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
        if not benches or group["name"] == "io":  # its own section (tools/bench_io.py)
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
PVH_OPS = [
    ("interrupt flag (irq ops)", ["irq_disable_enable", "irqsave_irqrestore", "restore_fl",
                                  "save_fl"], ""),
    ("page tables (mmu ops)", ["pte_set", "pte_modify_prot", "mprotect_1", "mprotect_16",
                               "mprotect_512"], ""),
    ("clock and one-shot timer (time ops)", ["clock_read", "timer_arm"], ""),
    ("hypercalls and events", ["xen_hypercall", "xen_multicall_16", "xen_evtchn_self"], ""),
    ("spinlocks (lock ops)", ["spin_lock_unlock", "spin_lock_irqsave"], ""),
    ("contended lock, two CPUs", ["lock_contended"], "smp2"),
    ("IPIs: syncing every CPU", ["smp_sync", "static_call_retarget"], "smp2"),
    ("TLB shootdowns", ["tlb_shootdown_1", "tlb_shootdown_512", "mprotect_1"], "smp2"),
    ("four CPUs (under Xen on two)", ["lock_contended", "smp_sync", "static_call_retarget",
                                      "tlb_shootdown_1"], "smp4"),
    ("what they add up to", ["ctx_switch", "channel_pingpong", "wl_cycle"], ""),
]
# The goal PVH is held to: these within PVH_GOAL_PERCENT of the native
# patched kernel's instructions.
PVH_GOAL = ["irq_disable_enable", "irqsave_irqrestore", "restore_fl", "save_fl", "mprotect_512"]
PVH_GOAL_PERCENT = 5
NATIVE_PATCHED, PV_PATCHED = "native-patched", "xen-pv-patched" + bench_configs.XEN
PVH_PATCHED = bench_configs.PVH_PATCHED


def heading_of(config_id):
    return dict(bench_configs.COLUMNS)[config_id]


def unit_of(idx):
    """The run's unit, in words: instructions under icount."""
    units = {r.get("unit") for results in idx.values() for r in results.values()}
    return "TSC ticks" if "tsc_ticks" in units else "instructions"


def versus(v, base):
    """v against base: a change in percent while under twice, else a factor."""
    if v is None or not base:
        return "—"
    r = v / base
    return "%+.1f%%" % ((r - 1) * 100) if r < 2 else "%.*fx" % (1 if r < 10 else 0, r)


def pvh_ops_table(idx):
    """Each pv op's benchmarks: normal, native, PV and PVH patched, and PVH
    against the native and the PV figure."""
    cols = ["native-nopv", NATIVE_PATCHED, PV_PATCHED, PVH_PATCHED]
    rows = []
    for op, names, tags in PVH_OPS:
        measured_here = [n for n in names if value(idx, cols[3], tags, n) is not None]
        for i, name in enumerate(measured_here):
            v = [value(idx, c, tags, name) for c in cols]
            rows.append([op if i == 0 else "", label(name, tags)] + [fmt(x) for x in v]
                        + [versus(v[3], v[1]), versus(v[3], v[2])])
    return markdown(["pv op", "benchmark"] + [heading_of(c) for c in cols]
                    + ["pvh against " + heading_of(cols[1]), "pvh against " + heading_of(cols[2])],
                    rows)


def pvh_switch_rows(idx, what, xen_way, other):
    """One row per benchmark measured both ways of a choice, catalog order."""
    both = [n for n in idx.get(xen_way, {}) if n in idx.get(other, {}) and n != "loop_overhead"]
    rows = []
    for n in both:
        a, b = idx[xen_way][n]["min"], idx[other][n]["min"]
        rows.append([what if not rows else "", "`%s`" % n, fmt(a), fmt(b), versus(b, a)])
    return rows


def pvh_switch_table(idx):
    rows = []
    for what, xen_way, other in bench_configs.PVH_SWITCHES:
        rows += pvh_switch_rows(idx, what, xen_way, other)
    return markdown(["choice (Xen's way / the other)", "benchmark", "Xen's way (default)",
                     "the other way", "the other against Xen's"], rows)


def pvh_goal(idx, unit):
    """The goal's sentence, with each figure and whether it holds."""
    pairs = [(n, value(idx, PVH_PATCHED, "", n), value(idx, NATIVE_PATCHED, "", n))
             for n in PVH_GOAL]
    shown = [(n, p, q) for n, p, q in pairs if None not in (p, q)]
    if not shown:
        return []
    over = [n for n, p, q in shown if (p - q) * 100 > PVH_GOAL_PERCENT * q]
    text = ("**The goal**: under PVH the irq benchmarks and `mprotect_512` within %d%% of the "
            "native patched kernel's instructions. Measured (%s, `%s` against `%s`): %s. "
            % (PVH_GOAL_PERCENT, unit, PVH_PATCHED, NATIVE_PATCHED,
               ", ".join("`%s` %s against %s (%s)" % (n, fmt(p), fmt(q), versus(p, q))
                         for n, p, q in shown)))
    if unit != "instructions":
        text += "The goal is about instruction counts: `make bench ICOUNT=1` decides it."
    elif len(shown) < len(pairs):
        text += "Not decided: this run measured only %d of them." % len(shown)
    elif over:
        text += "**Not met**: %s over %d%%." % (", ".join("`%s`" % n for n in over),
                                                PVH_GOAL_PERCENT)
    else:
        text += "**Met**."
    found = clock_exit_share(idx)
    if found:
        text += (" `mprotect_512`'s PVH figure includes about %s per op of the benchmark's own "
                 "clock reads (below)." % fmt(found[3]))
    return ["", text]


def pvh_shows(idx, unit):
    """What the figures show, in sentences built from them; a sentence
    whose figures this run lacks is left out."""
    g = lambda c, n, t="": value(idx, c, t, n)  # noqa: E731
    out = []
    irq = [g(c, "irq_disable_enable") for c in (PVH_PATCHED, NATIVE_PATCHED, PV_PATCHED)]
    if None not in irq:
        out.append("Under PVH a patched irq site holds the native bytes and the CPU runs them: "
                   "`irq_disable_enable` is %s %s, natively %s, under PV (a store to the "
                   "vCPU's mask byte and a check) %s." % (fmt(irq[0]), unit, fmt(irq[1]),
                                                          fmt(irq[2])))
    mp = [g(c, "mprotect_512") for c in (PVH_PATCHED, NATIVE_PATCHED, PV_PATCHED)]
    if None not in mp and mp[2] > mp[1]:
        out.append("The page tables are the guest's own under nested paging: `mprotect_512` is "
                   "%s under PVH, %s natively and %s under PV (batched), so PVH takes away %.1f%% "
                   "of what PV adds." % (fmt(mp[0]), fmt(mp[1]), fmt(mp[2]),
                                        (mp[2] - mp[0]) * 100 / (mp[2] - mp[1])))
    hc = [g(c, n) for n in ("xen_hypercall", "xen_evtchn_self") for c in (PVH_PATCHED, PV_PATCHED)]
    if None not in hc:
        out.append("What stays Xen's costs a VM exit: a hypercall round trip is %s under PVH "
                   "against %s under PV's `syscall`, an event sent to ourselves %s against %s."
                   % tuple(fmt(x) for x in hc))
    out += pvh_time_and_shootdown(g)
    return out


def pvh_time_and_shootdown(g):
    out = []
    timer = [g(c, "timer_arm") for c in (PVH_PATCHED, bench_configs.pvh_choice("xen.timer")[1],
                                          NATIVE_PATCHED, PV_PATCHED)]
    if None not in timer:
        out.append("Arming the one-shot timer (`timer_arm`) costs %s with Xen's timer and %s "
                   "with the emulated LAPIC's, against %s natively and %s under PV."
                   % tuple(fmt(x) for x in timer))
    one = [g(c, "tlb_shootdown_1") for c in (NATIVE_PATCHED, PV_PATCHED, PVH_PATCHED)]
    two = [g(c + bench_configs.SMP2, "tlb_shootdown_1") for c in (NATIVE_PATCHED, PV_PATCHED)]
    two += [g(c, "tlb_shootdown_1") for c in bench_configs.pvh_choice("xen.shootdown")[:2]]
    if None not in one + two:
        added = [two[0] - one[0], two[1] - one[1], two[2] - one[2], two[3] - one[2]]
        out.append("A shootdown of the other CPU (`tlb_shootdown_1` on two CPUs less on one) "
                   "adds %s natively (an IPI and a wait), %s under PV (one more `mmuext_op`), "
                   "%s under PVH with `HVMOP_flush_tlbs` and %s with an IPI through the "
                   "emulated LAPIC (`xen.shootdown=ipi`)." % tuple(fmt(x) for x in added))
    return out


def pvh_cannot_show(idx, unit):
    """What the figures cannot show, and the clock-read exits every PVH
    repetition carries, from this run's figures."""
    return ["What they cannot show: under icount a VM exit counts the instructions of Xen's "
            "exit path (saving the guest's state, finding the cause, handling it, entering "
            "again), not the cycles of the world switch itself, which on hardware cost far more "
            "than their count; and QEMU's TCG, which emulates the SVM that Xen uses, flushes a "
            "vCPU's TLB at every VM entry and exit, which no count shows. TSC figures under TCG "
            "are emulation time: for a VM exit, how long QEMU took to emulate it."] + (
        pvh_clock_exits(idx, unit))


def per_rep_share(idx, name, exit_cost):
    """What exit_cost once a repetition leaves in name's per-op figure under
    PVH: its share per op, less the empty loop's share per iteration."""
    r, loop = (idx[PVH_PATCHED].get(n) for n in (name, "loop_overhead"))
    return exit_cost / r["iters"] - exit_cost / loop["iters"]


def clock_exit_share(idx):
    """Under PVH, when Xen intercepts rdtsc: one read's cost (clock_read
    under PVH less under PV), the same seen on pte_set (the same store
    natively and under PVH), and the share of it mprotect_512's figure
    keeps per op; None without those figures, or when pte_set ran as many
    ops a repetition as the empty loop (as in a quick run): then nothing is
    left to measure."""
    clock = [value(idx, c, "", "clock_read") for c in (PVH_PATCHED, PV_PATCHED)]
    store = [value(idx, c, "", "pte_set") for c in (PVH_PATCHED, NATIVE_PATCHED)]
    if None in clock + store or "mprotect_512" not in idx[PVH_PATCHED] \
            or "loop_overhead" not in idx[PVH_PATCHED] or clock[0] < 2 * clock[1] \
            or per_rep_share(idx, "pte_set", 1) <= 0:
        return None
    exit_cost = clock[0] - clock[1]
    return (clock, exit_cost, (store[0] - store[1]) / per_rep_share(idx, "pte_set", 1),
            per_rep_share(idx, "mprotect_512", exit_cost))


def pvh_clock_exits(idx, unit):
    """Xen intercepts rdtsc under PVH: what one read costs, and what it
    leaves in mprotect_512's figure."""
    found = clock_exit_share(idx)
    mp = [value(idx, c, "", "mprotect_512") for c in (PVH_PATCHED, NATIVE_PATCHED)]
    if found is None or None in mp:
        return []
    clock, exit_cost, seen, share = found
    return ["Xen intercepts `rdtsc` in this PVH dom0: `clock_read` (Xen's `vcpu_time_info` "
            "and the TSC, the same code under PV) costs %s under PVH against %s under PV, so a "
            "read of the TSC is a VM exit of about %s %s. The benchmarks' own reads around "
            "each repetition are such exits, and about one exit's worth falls inside the timed "
            "interval (`pte_set`, the same store natively and under PVH, puts it at %s); the "
            "empty loop's subtraction takes it off per iteration of its own %d, so a benchmark "
            "with fewer ops a repetition keeps a share: `mprotect_512` (%d) about %s per op, "
            "without which it is %s against %s natively (%s). An op that reads the clock itself "
            "carries whole exits: `clock_read`, `timer_arm` (Xen's timer is armed for a "
            "deadline in the vCPU's own clock), and `lock_contended`, which times each wait "
            "with two reads. Under TSC timing the reads are Xen's emulated TSC, and a figure "
            "with few ops a repetition, or an op that reads the clock, is timed mostly by "
            "those exits."
            % (fmt(clock[0]), fmt(clock[1]), fmt(exit_cost), unit, fmt(seen),
               idx[PVH_PATCHED]["loop_overhead"]["iters"],
               idx[PVH_PATCHED]["mprotect_512"]["iters"],
               fmt(share), fmt(mp[0] - share), fmt(mp[1]), versus(mp[0] - share, mp[1]))]


def pvh_section(idx):
    """Native against PV against PVH per pv op, each PVH choice's two ways,
    the goal, and what the figures show and cannot show. Empty without a
    PVH run."""
    if PVH_PATCHED not in idx:
        return []
    unit = unit_of(idx)
    out = ["", "## What paravirtualization still buys under PVH", "",
           "Under PVH the CPU runs `cli`, `popf` and the page tables itself (hardware "
           "virtualization with nested paging): the xen-pvh backend keeps the native irq, mmu "
           "and patch ops, and only time, events, locks, IPIs and shootdowns are Xen's. Per pv "
           "op, patched kernels, %s per op (minimum over the repetitions):" % unit, ""]
    out += pvh_ops_table(idx)
    switches = pvh_switch_table(idx)
    if switches:
        out += ["", "Where both ways work, a kernel option chooses; each choice's two ways side "
                "by side (two CPUs where the op needs them; `lock_contended`'s figures here are "
                "minimums, as in its group's table):", ""] + switches
    out += pvh_goal(idx, unit)
    out += ["", " ".join(pvh_shows(idx, unit) + pvh_cannot_show(idx, unit))]
    return out


def missing_from(report, cat):
    """The benchmarks of cat that report (markdown text) never names."""
    return [b["name"] for b in cat["benches"] if "`%s`" % b["name"] not in report]


def render(data, chart_made, io=()):
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
    out += group_sections(idx, cat)
    out += list(io)
    failed = [r for r in data["configs"] if r["problems"]]
    if failed:
        out += ["", "## Failed configurations", ""]
        out += ["- %s: %s" % (r["id"], "; ".join(r["problems"])) for r in failed]
    return "\n".join(out) + "\n"


def chart_data(idx):
    lines = []
    for name in CHARTED:
        vals = [value(idx, col, "", name) for col, _ in bench_configs.COLUMNS]
        if any(vals):
            lines.append(name + " " + " ".join("%.2f" % v if v else "NaN" for v in vals))
    return lines


GNUPLOT = """set terminal svg size 1000,520 dynamic font "sans,11"
set output "{svg}"
set title "{title}"
set ylabel "{unit} per op (log scale)"
set logscale y
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -30 noenhanced
set key top left
set grid ytics
set datafile missing "NaN"
plot {plots}
"""


def plot_clauses(dat):
    """One histogram per column of bench_configs.COLUMNS, in its order."""
    clauses = ['"%s" using 2:xtic(1) title "%s"' % (dat, bench_configs.COLUMNS[0][1])]
    clauses += ['"" using %d title "%s"' % (i + 2, heading)
                for i, (_, heading) in enumerate(bench_configs.COLUMNS) if i > 0]
    return ", \\\n     ".join(clauses)


def chart(data, idx, out):
    """chart.svg through gnuplot; False if there is nothing to draw or no gnuplot."""
    lines = chart_data(idx)
    if not lines:
        return False
    dat, svg = os.path.join(out, "chart.dat"), os.path.join(out, CHART)
    with open(dat, "w") as f:
        f.write("\n".join(lines) + "\n")
    icount = data["conditions"]["timing"] == "icount"
    script = GNUPLOT.format(svg=svg, plots=plot_clauses(dat),
                            unit="instructions" if icount else "TSC ticks",
                            title="patchbay: headline costs (%s)" % ("icount" if icount else
                                                                      "TSC under TCG"))
    try:
        p = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    except OSError:
        return False
    return p.returncode == 0 and os.path.exists(svg)


def write(data, out, extra=()):
    """Writes report.md (and chart.svg), followed by the lines of extra (the
    Linux and Lifecycle sections, tools/bench_linux.py and
    tools/bench_lifecycle.py); returns the benchmarks of the
    catalog it failed to name, which must be none."""
    made = chart(data, index(data), out)
    linux = bench_runs.load(os.path.join(out, "linux.json"))
    io = bench_io.section(index(data), linux, out, fmt, unit_of(index(data)))
    io += bench_net.section(data, linux, None if io else "Paravirtual I/O")
    text = render(data, made, io) + "".join(line + "\n" for line in extra)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    return missing_from(text, data["catalog"])


if __name__ == "__main__":
    where = sys.argv[1] if len(sys.argv) > 1 else "build/bench"
    try:
        results = bench_runs.load(os.path.join(where, "results.json"))
    except bench_runs.ResultsError as e:
        sys.exit("bench_report: %s" % e)
    if results is None:
        sys.exit("bench_report: no %s/results.json; run tools/bench" % where)
    import bench_lifecycle
    import bench_linux

    left_out = write(results, where,
                     bench_linux.section_of(where) + bench_lifecycle.section_of(where))
    if left_out:
        sys.exit("bench_report: report.md leaves out " + ", ".join(left_out))
