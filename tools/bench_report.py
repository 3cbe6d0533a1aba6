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
import elfimage  # noqa: E402

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


def runs_on(bench, cat, platform):
    return not bench["needs_mask"] & ~platform_caps(cat, platform)


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


def fmt(v):
    if v is None:
        return "—"
    if abs(v - round(v)) < 0.005:
        return "%d" % round(v)
    return "%.1f" % v if v < 100 else "%.0f" % v


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


def row_cells(idx, name, tags):
    normal, unpatched, patched, xen, xen_patched, domu_patched = (
        value(idx, col, tags, name) for col, _ in bench_configs.COLUMNS)
    return [fmt(normal), delta(unpatched, normal), delta(patched, normal),
            removed(unpatched, patched, normal), delta(xen, normal), delta(xen_patched, normal),
            removed(xen, xen_patched, normal), delta(domu_patched, normal)]


HEADINGS = ["normal", "paravirt", "paravirt-patch", "patching removes", "xen", "xen-patch",
            "xen: patching removes", "domU-patch"]


def markdown(headings, rows):
    """A markdown table; columns with no figure in any row are dropped."""
    if not rows:
        return []
    keep = [0] + [i for i in range(1, len(headings)) if any(r[i] != "—" for r in rows)]
    out = ["| " + " | ".join(headings[i] for i in keep) + " |",
           "|" + "|".join(" --- " for _ in keep) + "|"]
    return out + ["| " + " | ".join(r[i] for i in keep) + " |" for r in rows]


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
        "- Hypervisor: %s (dom0, 64-bit PV%s)" % (
            c["xen"] or "Xen not booted",
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
           "paravirt-patch) / (paravirt - normal). The Xen columns run the same image as a PV "
           "dom0, also compared with the native `normal`; `domU-patch` (and `domU batch`) "
           "as an unprivileged domU that Xen's toolstack started from a Linux dom0 "
           "(`tools/run --domu`). See docs/benchmarks.md."]
    if c.get("domu"):
        out += ["", "dom0 and domU run the same backend and the same patched sites; what "
                "differs is the domain around them. A domU has no I/O privilege, its console is "
                "a ring that dom0's xenconsoled drains (dom0 writes with a hypercall to Xen's "
                "serial line), and Xen emulates its TSC: every rdtsc traps into Xen (dom0 reads "
                "the real one). Its clock reads, and the benchmarks' own timing, cost more "
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
        if not benches:
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


def missing_from(report, cat):
    """The benchmarks of cat that report (markdown text) never names."""
    return [b["name"] for b in cat["benches"] if "`%s`" % b["name"] not in report]


def render(data, chart_made):
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
    out += group_sections(idx, cat)
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
    Linux section, tools/bench_linux.py); returns the benchmarks of the
    catalog it failed to name, which must be none."""
    made = chart(data, index(data), out)
    text = render(data, made) + "".join(line + "\n" for line in extra)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    return missing_from(text, data["catalog"])


if __name__ == "__main__":
    import json

    where = sys.argv[1] if len(sys.argv) > 1 else "build/bench"
    with open(os.path.join(where, "results.json")) as f:
        results = json.load(f)
    if "catalog" not in results:  # written before results.json carried it
        build = os.environ.get("BUILD", "build")
        results["catalog"] = catalog(os.path.join(build, "patchbay.elf"))
    import bench_linux

    left_out = write(results, where, bench_linux.section_of(where))
    if left_out:
        sys.exit("bench_report: report.md leaves out " + ", ".join(left_out))
