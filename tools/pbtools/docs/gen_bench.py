"""tools/gen-docs' benchmark blocks: README's tables and the figures to
quote, from tools/bench --icount runs of only the benchmarks the pages
show (one run per configuration, in the boots' pool), and docs/pvh.md's
native, PV and PVH side by side, from boot blocks' bench lines."""

import os
import re
import textwrap

from pbtools import result_lines
from pbtools.bench import runs as bench_runs
from pbtools.bench.report import delta, fmt, removed  # the report's figures' forms
from pbtools.docs.gen_boots import JOBS, OUT, boot_args, boot_lines


# ---- README's benchmark tables, from an icount run of tools/bench ----

# A column: its heading and the configuration it shows (the kernel's own
# config= string). "normal" is the kernel built without paravirt; Xen has no
# such kernel, so the Xen columns are compared with the native one too.
NORMAL, PARAVIRT, PATCHED = "native-nopv", "native-unpatched", "native-patched"
XEN, XEN_PATCHED = "xen-pv-unpatched+xen.mmu=batch", "xen-pv-patched+xen.mmu=batch"
XEN_SWAP = "xen-pv-patched+xen.mmu=swap"
PTE_COLUMNS = [("normal", NORMAL), ("paravirt-patch", PATCHED),
               ("xen trap", "xen-pv-patched+xen.mmu=trap"),
               ("xen hypercall", "xen-pv-patched+xen.mmu=hypercall"), ("xen batch", XEN_PATCHED),
               ("xen swap", XEN_SWAP)]
HEADLINE_CONFIGS = [NORMAL, PARAVIRT, PATCHED, XEN, XEN_PATCHED]
BENCH_NEEDS = {}  # {configuration: the benchmarks bench blocks show from it}
BENCH_RUNS = {}  # {(benchmarks, configuration): a future of its run}


def bench_run(names, config):
    """tools/bench --icount's results.json for one configuration: one boot
    (so the pool can run it beside any other)."""
    out = os.path.join(OUT, "bench", config)
    data, why = bench_runs.run(["--icount", "--only", ",".join(names), "--configs", config], out)
    if why:
        raise SystemExit(f"gen-docs: {why}")
    cond = data["conditions"]
    if cond.get("timing") != "icount" or cond.get("quick"):
        raise SystemExit(f"gen-docs: {out}/results.json is not a full-iteration icount run")
    if not data["configs"]:
        raise SystemExit(f"gen-docs: {out}/results.json: no results for {config}")
    return data


def benchmark(names, config):
    """A future of tools/bench's results.json data for one configuration,
    each distinct one run once."""
    key = (tuple(sorted(names)), config)
    with JOBS.lock:
        if key not in BENCH_RUNS:
            BENCH_RUNS[key] = JOBS.pool.submit(bench_run, key[0], config)
        return BENCH_RUNS[key]


def bench_names(arg):
    names = [n for n in arg.split(",") if n]
    if not names:
        raise SystemExit("gen-docs: a bench block needs a comma-separated list of benchmarks")
    return names


def need_bench(names, configs):
    for config in configs:
        BENCH_NEEDS.setdefault(config, set()).update(names)


def plan_bench_table(arg):
    need_bench(bench_names(arg), HEADLINE_CONFIGS)


def plan_bench_pte(arg):
    need_bench(bench_names(arg), [c for _, c in PTE_COLUMNS])


def plan_bench_runs(selected, every):
    """Each configuration runs the benchmarks that any page's bench blocks
    show from it, whichever pages were asked for: under Xen a count moves a
    little with what ran before it in the same boot, so one page alone must
    be generated from the same runs as all of them. Nothing runs unless a
    selected page has a bench block. SELECTED is the asked-for pages'
    (name, args) blocks; every() gives every page's."""
    if not any(name in BENCH_PLANS for name, _ in selected):
        return
    for name, block_args in every():
        if name in BENCH_PLANS:
            BENCH_PLANS[name](*block_args)
    for config, names in sorted(BENCH_NEEDS.items()):
        benchmark(names, config)


def bench_figures():
    """{config: {benchmark: instructions per op}} and the conditions of the
    runs, once every configuration has run."""
    figures, cond = {}, {}
    for config, names in sorted(BENCH_NEEDS.items()):
        data = benchmark(names, config).result()
        # Only the Xen boots know Xen's version.
        cond.update({k: v for k, v in data["conditions"].items() if v is not None})
        for r in (r for run_ in data["configs"] for r in run_["results"]):
            if "min" in r:
                figures.setdefault(r["config"], {})[r["name"]] = r["min"]
    wanted = set().union(*BENCH_NEEDS.values())
    unmeasured = sorted(n for n in wanted
                        if not any(n in per_config for per_config in figures.values()))
    if unmeasured:
        raise SystemExit("gen-docs: no configuration measured " + ", ".join(unmeasured))
    return figures, cond


def markdown(headings, rows):
    out = ["| " + " | ".join(headings) + " |", "|" + "|".join(" --- " for _ in headings) + "|"]
    return "\n".join(out + ["| " + " | ".join(r) + " |" for r in rows]) + "\n"


def gen_bench_conditions():
    """Where README's tables come from, without what changes run to run."""
    _, cond = bench_figures()
    qemu = re.search(r"version (\S+)", cond.get("qemu") or "")
    xen = re.search(r"version (\S+)", cond.get("xen") or "")
    text = ("Instruction counts from `tools/bench --icount` (`make bench ICOUNT=1` runs every "
            f"configuration) under QEMU {qemu.group(1) if qemu else '?'}, "
            f"{cond.get('accelerator', 'tcg').upper()}, `-cpu {cond.get('cpu_model', '?')}`, "
            f"{'Xen ' + xen.group(1) if xen else 'no Xen'}; "
            "`tools/gen-docs` writes these tables and `make test` checks them.")
    return "\n".join(textwrap.wrap(text, 76, break_on_hyphens=False)) + "\n"


def gen_bench_table(names):
    """The 2006-style table: paravirt and its patched form against normal,
    natively and under Xen, and the share of the overhead patching removes."""
    figures, _ = bench_figures()
    rows = []
    for name in bench_names(names):
        normal, pv, patched, xen, xen_patched = (figures.get(c, {}).get(name)
                                                 for c in HEADLINE_CONFIGS)
        rows.append([f"`{name}`", fmt(normal), delta(pv, normal), delta(patched, normal),
                     removed(pv, patched, normal), delta(xen, normal),
                     delta(xen_patched, normal), removed(xen, xen_patched, normal)])
    return markdown(["benchmark", "normal", "paravirt", "paravirt-patch", "patching removes",
                     "xen", "xen-patch", "xen: patching removes"], rows)


def gen_bench_pte(names):
    """Benchmarks against Xen's pte modes (xen.mmu=), as instruction counts:
    the ratio to quote is gen_figure's, and only there."""
    figures, _ = bench_figures()
    rows = []
    for name in bench_names(names):
        rows.append([f"`{name}`"] + [fmt(figures.get(c, {}).get(name)) for _, c in PTE_COLUMNS])
    return markdown(["benchmark"] + [h for h, _ in PTE_COLUMNS], rows)


# The figures to quote (docs/benchmarks.md defines them): the benchmark each
# is taken from. One generator writes each sentence wherever it appears, so
# README, docs and the report cannot quote different numbers.
FIGURE_BENCH = {"xen-mprotect": ["mprotect_512"], "patching": ["ctx_switch"],
                "xen-pte-split": ["mprotect_512", "xen_mprotect_512_withheld", "table_swap_512"],
                "multicall": ["mprotect_1", "xen_hypercall", "xen_multicall_1", "xen_multicall_16"]}
XEN_HYPERCALL_MODE = "xen-pv-patched+xen.mmu=hypercall"
# The configurations each figure reads its benchmarks from.
FIGURE_CONFIGS = {"xen-mprotect": [NORMAL] + [c for _, c in PTE_COLUMNS[2:]],
                  "patching": HEADLINE_CONFIGS,
                  "xen-pte-split": [NORMAL, PATCHED, XEN_PATCHED, XEN_SWAP],
                  "multicall": [XEN_HYPERCALL_MODE, XEN_PATCHED]}


def plan_figure(name):
    if name not in FIGURE_BENCH:
        raise SystemExit(f"gen-docs: unknown figure '{name}' (known: {', '.join(FIGURE_BENCH)})")
    need_bench(FIGURE_BENCH[name], FIGURE_CONFIGS[name])


def conditions_phrase(cond):
    qemu = re.search(r"version (\S+)", cond.get("qemu") or "")
    xen = re.search(r"version (\S+)", cond.get("xen") or "")
    return (f"Instructions under icount, QEMU {qemu.group(1) if qemu else '?'} "
            f"{cond.get('accelerator', 'tcg').upper()} `-cpu {cond.get('cpu_model', '?')}`, "
            f"{'Xen ' + xen.group(1) if xen else 'no Xen'} dom0")


def gen_figure(name):
    """One of the figures to quote, as the sentence every page uses."""
    figures, cond = bench_figures()
    bench = FIGURE_BENCH[name][0]
    get = lambda config: figures.get(config, {}).get(bench)  # noqa: E731
    normal = get(NORMAL)
    if name == "xen-pte-split":
        whole, guest = (figures.get(XEN_PATCHED, {}).get(b) for b in FIGURE_BENCH[name][:2])
        swapped, swap = (figures.get(XEN_SWAP, {}).get(b) for b in ("mprotect_512", "table_swap_512"))
        native_swap = figures.get(PATCHED, {}).get("table_swap_512")
        ptes = 512  # one mprotect of 512 ptes
        floor = swap - native_swap
        text = (f"**Where does mprotect's time go under Xen?** `{bench}` costs "
                f"{fmt(whole)} instructions under Xen (`xen.mmu=batch`) against {fmt(normal)} "
                f"natively. Built and queued the same way but never issued "
                f"(`xen_mprotect_512_withheld`), its batches cost the guest {fmt(guest)}, so the "
                f"hypercalls, Xen's validation of each entry and the switches into Xen and "
                f"back, are {fmt(whole - guest)}: {(whole - guest) / whole:.0%} of the whole, "
                f"about {(whole - guest) / ptes:.0f} instructions per pte, against "
                f"{(guest - normal) / ptes:.0f} per pte that the guest's own path adds to "
                f"native. Swapping the whole table instead (`xen.mmu=swap`) skips the "
                f"per-request work: the same mprotect costs {fmt(swapped)}, "
                f"**{swapped / normal:.1f}x** native, {(swapped - normal) / ptes:.0f} per pte "
                f"above it. The swap alone (`table_swap_512`) costs {fmt(native_swap)} natively, "
                f"the guest's share, and {fmt(swap)} under Xen: Xen's validation of the new "
                f"table and unvalidation of the old one, a reference taken and one dropped per "
                f"entry, is {fmt(floor)}, about {floor / ptes:.0f} per entry, which alone is "
                f"{floor / normal:.1f}x native. ({conditions_phrase(cond)}, patched kernel.)")
    elif name == "multicall":
        one = figures.get(XEN_HYPERCALL_MODE, {}).get(bench)
        batched = figures.get(XEN_PATCHED, {}).get(bench)
        call, mc1, mc16 = (figures.get(XEN_PATCHED, {}).get(b) for b in FIGURE_BENCH[name][1:])
        entry = (mc16 - mc1) / 15
        breakeven = int((mc1 - entry) // (call - entry)) + 1
        text = (f"**Why does batching make a fault dearer?** A write fault re-protects one page: "
                f"one `mmu_update` and one `INVLPG_LOCAL`. `{bench}` costs {fmt(one)} "
                f"instructions with the two sent as hypercalls of their own "
                f"(`xen.mmu=hypercall`) and {fmt(batched)} as one multicall of two entries "
                f"(`xen.mmu=batch`), {fmt(batched - one)} more. A hypercall round trip "
                f"(`xen_hypercall`) costs {fmt(call)}; a multicall of one entry "
                f"(`xen_multicall_1`) {fmt(mc1)}, and each further entry about {entry:.0f} "
                f"(`xen_multicall_16`: {fmt(mc16)}). So a multicall saves about "
                f"{call - entry:.0f} per entry after its first, which costs {fmt(mc1 - call)} "
                f"more than a hypercall alone: by these counts it is the cheaper way from "
                f"{breakeven} entries on. Under icount the way into Xen and back costs only the "
                f"instructions it runs; on hardware it also costs the privilege switches, which "
                f"no count shows. ({conditions_phrase(cond)}, patched kernel.)")
    elif name == "xen-mprotect":
        trap, hyper, batch, swap = (get(c) / normal for _, c in PTE_COLUMNS[2:])
        # Below 20x a tenth matters, and the split's figure further down says 13.9x.
        swapped = f"{swap:.0f}" if swap >= 20 else f"{swap:.1f}"
        text = (f"**How much slower is mprotect under Xen?** `{bench}`, one mprotect of 512 "
                f"pages (a whole page table), costs **{trap:.0f}x** the instructions of the "
                f"kernel built without paravirt when Xen traps every pte write "
                f"(`xen.mmu=trap`), **{hyper:.0f}x** with one hypercall per pte "
                f"(`xen.mmu=hypercall`), **{batch:.0f}x** batched (`xen.mmu=batch`, the "
                f"default) and **{swapped}x** with the whole table swapped for a new one "
                f"(`xen.mmu=swap`): batching removes {1 - batch / trap:.0%} of the trapped "
                f"cost, swapping {1 - swap / trap:.0%}. ({conditions_phrase(cond)}, patched "
                f"kernel.)")
    else:
        pv, patched, xen, xen_patched = get(PARAVIRT), get(PATCHED), get(XEN), get(XEN_PATCHED)
        text = (f"**How much does patching save?** A context switch (`{bench}`) takes "
                f"{fmt(pv)} instructions in the paravirt kernel unpatched and {fmt(patched)} "
                f"patched, against {fmt(normal)} in the kernel built without paravirt: "
                f"patching removes {removed(pv, patched, normal)} of paravirt's native "
                f"overhead ({(pv - normal) / normal:+.0%} becomes "
                f"{(patched - normal) / normal:+.0%}). Under Xen it removes "
                f"{removed(xen, xen_patched, normal)} ({fmt(xen)} to {fmt(xen_patched)}): Xen's "
                f"hand-written irq entries make the unpatched path short as well. "
                f"({conditions_phrase(cond)}.)")
    return "\n".join(textwrap.wrap(text, 76, break_on_hyphens=False)) + "\n"


# ---- Native, Xen PV and Xen PVH side by side, from boot blocks' bench lines ----

# docs/pvh.md's table: one boot per platform, two CPUs, under icount, every
# benchmark and the empty loop at the same bench.iters (so what each
# repetition adds once, PVH's trapped clock reads included, cancels). A word
# written pvh:WORD goes on the PVH boot's command line only: the stale-TLB
# control, which natively and under PV ends the run.
THREE = [("native", "native+smp2"), ("Xen PV", "xen+smp2"), ("Xen PVH", "xen-pvh+smp2")]


def three_cmdlines(names, iters, words):
    """{platform: kernel command line} of the three boots: the words, then
    bench= and bench.iters=, then PVH's own words."""
    base = [w for w in words if not w.startswith("pvh:")] + ["bench=" + names,
                                                            "bench.iters=" + iters]
    pvh = base + [w[len("pvh:"):] for w in words if w.startswith("pvh:")]
    return {platform: pvh if platform.startswith("xen-pvh") else base for _, platform in THREE}


def plan_boot_bench(names, iters, *words):
    for platform, cmdline in three_cmdlines(names, iters, words).items():
        JOBS.boot(boot_args(platform, cmdline))


def gen_boot_bench(names, iters, *words):
    """The benchmarks on the three platforms side by side, each figure the
    minimum per op from that platform's boot, and PVH against native."""
    figures, configs = {}, {}
    for platform, cmdline in three_cmdlines(names, iters, words).items():
        lines = boot_lines(boot_args(platform, cmdline), r"^bench: name=")
        for r in result_lines.results("\n".join(lines)):
            if "min" in r:
                figures[(platform, r["name"])] = r["min"]
                configs[platform] = r["config"]
    rows = []
    for name in bench_names(names):
        v = [figures.get((platform, name)) for _, platform in THREE]
        rows.append([f"`{name}`"] + [fmt(x) for x in v] + [factor(v[2], v[0])])
    return markdown(["benchmark"] + [f"{h} (`{configs.get(p, '?')}`)" for h, p in THREE]
                    + ["PVH / native"], rows)


def factor(v, base):
    """v over base, always as a factor: one unit for the whole column."""
    if v is None or not base:
        return "—"
    r = v / base
    return "%.*fx" % (1 if r < 10 else 0, r)


# What bench blocks need from tools/bench --icount (plan_bench_runs).
BENCH_PLANS = {"figure": plan_figure, "bench-table": plan_bench_table,
               "bench-pte": plan_bench_pte, "bench-conditions": lambda: None}
