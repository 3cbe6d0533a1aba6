"""Boot every benchmark configuration, collect the result lines, and write
build/bench/results.json and build/bench/report.md (with chart.svg).

  tools/bench [--icount] [--quick] [--only NAME[,NAME...]] [--configs ID[,ID...]]
              [--boots N] [--runs N] [-j N] [--cpu MODEL] [--out DIR] [--list] [--benches]
  tools/bench --linux [--icount] [--quick] [--configs ID[,ID...]] [--record] [--out DIR]
  tools/bench --lifecycle [--record] [--out DIR]
  tools/bench --host [--quick] [--runs N] [--record] [--out DIR]
  tools/bench --pvh [--record] [-j N] [--out DIR]

The configurations are in tools/pbtools/bench/configs.py: the PARAVIRT=n
build, the paravirt build unpatched (pv.patch=off) and patched, natively and
as a Xen PV dom0, plus the option variants, and patched as KVM's guest
(tools/run --kvm) with each of KVM's paravirtual features switched off in
turn. The benchmarks are those registered in the image (BENCH_DEFINE), read from it; --benches lists them.
Each boot runs tools/run with `bench=...`; every line `bench: name=...` is
parsed, and a boot fails if it does not end cleanly, reports a failed check,
derives a different config string than expected, prints other benchmarks (or
in another order) than the image registers for its selection, or leaves out
one it should have run. The run fails if report.md leaves out a registered
benchmark.

--icount runs QEMU with -icount shift=0: the TSC then counts instructions,
identically run to run. Without it each configuration is booted --boots
times (default 2; once with --quick) and each benchmark keeps its best boot: under TCG a whole
boot is sometimes slowed by the host, which one boot's repetitions cannot
see. A configuration always run under icount is booted once: a second boot
would repeat it. Those with trials (bench_configs: lock_contended with more
vCPUs than physical CPUs) are booted --runs times instead (once with
--quick), each run after the first running only the trials, started
RUN_OFFSET_US later each time (bench.offset_us): under icount that, and
now and then a host event moving QEMU's interleaving, is what makes a run
differ from the last, and lock_contended's figure depends on it
(tools/pbtools/bench/contended.py). --quick runs few iterations (bench.iters,
bench.reps) to check that every benchmark works, not to measure. --only and
--configs run a subset. Exit status: 0 when every boot passed, 1 otherwise,
2 for usage.

--linux runs Debian's Linux beside patchbay instead
(tools/pbtools/bench/linux.py): the benchmark program for Linux natively, as
Xen's dom0 and as KVM's guest (its disk benchmarks natively and in a PV and a
PVH domU, each with a scratch disk, and its network service on the same three
doors, one boot a network row), and patchbay's matching benchmarks, then
linux.json and report.md's "Linux, same ground"; --configs picks Linux's
boots by id (bench_linux.LINUX_BOOTS, e.g. linux-native+net). A failed boot
writes no linux.json (the last good one stays).

--lifecycle saves, restores, moves and migrates a running domU by Xen's
toolstack instead (tools/pbtools/bench/lifecycle.py): lifecycle.json and
report.md's "Lifecycle" section, wall-clock figures
(`make bench-lifecycle`).

--host times the call-site forms on the host's own CPU instead
(tools/pbtools/bench/host.py, `make bench-host`): build/host/bench-host, --runs
runs of every form (default 5), its bytes checked against tools/pvemit's,
then the same forms under --icount; host.json and report.md's "Cycles on
the host CPU". With --quick, the program's checks only (make test).
"""

import argparse
import os
import shutil
import sys
import time

from pbtools.bench import catalog as bench_catalog
from pbtools.bench import configs as bench_configs
from pbtools.bench import host as bench_host
from pbtools.bench import lifecycle as bench_lifecycle
from pbtools.bench import linux as bench_linux
from pbtools.bench import pvh as bench_pvh
from pbtools.bench import report as bench_report
from pbtools.bench import runs as bench_runs
from pbtools.bench.boots import boot_plan, conditions, git_revision, image_path, run_all
from pbtools.paths import ROOT, build_dir

RUNS = 5  # overcommitted lock_contended: a median and a spread want at least 5


def parse_args(argv):
    p = argparse.ArgumentParser(prog="tools/bench", description=__doc__.strip(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--icount", action="store_true",
                   help="count instructions (-icount shift=0): identical run to run")
    p.add_argument("--quick", action="store_true",
                   help="few iterations: check every benchmark works, do not measure")
    p.add_argument("--only", default="", metavar="NAMES",
                   help="run only these benchmarks (comma-separated)")
    p.add_argument("--configs", default="", metavar="IDS",
                   help="boot only these configurations (comma-separated)")
    p.add_argument("--boots", type=int, default=None, metavar="N",
                   help="boots per configuration, best kept (default 2; 1 with --icount or --quick)")
    p.add_argument("--runs", type=int, default=None, metavar="N",
                   help="runs of a configuration with trials, each at another start offset "
                        "(default %d; 1 with --quick); with --host, runs of every form "
                        "(default 5)" % RUNS)
    p.add_argument("-j", type=int, default=1, metavar="N",
                   help="boots at once (default 1: parallel boots perturb TSC figures); "
                        "one with a host thread per CPU always runs alone")
    p.add_argument("--cpu", default="max", metavar="MODEL", help="QEMU CPU model (default max)")
    p.add_argument("--out", default=os.path.join(build_dir(), "bench"), metavar="DIR",
                   help="where results.json, report.md and the logs go (default build/bench)")
    p.add_argument("--linux", action="store_true",
                   help="Debian's Linux beside patchbay: linux.json and the report's Linux "
                   "section (needs make linux-bench)")
    p.add_argument("--lifecycle", action="store_true",
                   help="save, restore, move and migrate a domU while it runs: lifecycle.json "
                   "and the report's Lifecycle section (tools/pbtools/bench/lifecycle.py)")
    p.add_argument("--host", action="store_true",
                   help="the call-site forms timed on the host's CPU (build/host/bench-host), "
                   "beside their icount figures: host.json and the report's host section")
    p.add_argument("--pvh", action="store_true",
                   help="the PVH per-op choices, pv way and emulated hardware, on 1 and 2 "
                   "vCPUs beside native and PV, under icount (tools/pbtools/bench/pvh.py): "
                   "pvh.json (default --out build/bench-pvh)")
    p.add_argument("--record", action="store_true",
                   help="with --lifecycle, --host, --pvh or --linux: also copy lifecycle.json "
                   "to docs/lifecycle-run.json (host.json to docs/host-run.json, pvh.json to "
                   "docs/pvh-run.json, linux.json into docs/linux-run.json), the run the docs "
                   "quote")
    p.add_argument("--list", action="store_true", help="list the configurations and exit")
    p.add_argument("--benches", action="store_true",
                   help="list the benchmarks the image registers and exit")
    args = p.parse_args(argv)
    modes = [m for m in ("linux", "lifecycle", "host", "pvh") if getattr(args, m)]
    if len(modes) > 1:
        p.error("--%s and --%s are separate runs: one at a time" % (modes[0], modes[1]))
    # What each mode takes beyond --out (the usage forms above).
    takes = {"linux": {"icount", "quick", "configs", "record"}, "lifecycle": {"record"},
             "host": {"quick", "runs", "record"}, "pvh": {"record", "j", "list"}}
    defaults = vars(p.parse_args([]))
    for mode in modes:
        extra = [k for k, v in vars(args).items()
                 if k not in takes[mode] | {mode, "out"} and v != defaults[k]]
        if extra:
            p.error("--%s does not take %s" % (mode, ", ".join(
                "-j" if k == "j" else "--" + k for k in sorted(extra))))
    if args.record and not modes:
        p.error("--record applies to --lifecycle, --host, --pvh and --linux only")
    args.all_configs = bench_pvh.CONFIGS if args.pvh else bench_configs.CONFIGS
    if args.pvh:
        args.icount = True
        if args.out == defaults["out"]:
            args.out = os.path.join(build_dir(), "bench-pvh")
    args.only = [n for n in args.only.split(",") if n]
    args.configs = [c for c in args.configs.split(",") if c]

    known_ids = ([b[0] for b in bench_linux.LINUX_BOOTS] if args.linux
                 else [c["id"] for c in args.all_configs])
    unknown = [c for c in args.configs if c not in known_ids]
    if unknown:
        p.error("unknown configuration: %s (configurations: %s)"
                % (", ".join(unknown), ", ".join(known_ids)))
    if args.j < 1:
        p.error("-j must be at least 1")
    return args


def read_catalogs(paths):
    """{image path: its benchmark list}; exits with status 2 if one
    cannot be read."""
    catalogs = {}
    for path in paths:
        try:
            catalogs[path] = bench_catalog.catalog(path)
        except (OSError, bench_catalog.CatalogError,
                getattr(bench_report.elfimage, "ImageError", OSError)) as e:
            print("bench: cannot read the benchmark list: %s" % e, file=sys.stderr)
            sys.exit(2)
    return catalogs


def plan(args, catalogs):
    """The boots to make: each configuration with the benchmarks its image
    registers for its selection (selected, skipped ones included, in run
    order) and those of them it must measure (names)."""
    boots = []
    for cfg in args.all_configs:
        if args.configs and cfg["id"] not in args.configs:
            continue
        if cfg.get("net"):
            rows = [r for r in bench_configs.net_rows(cfg) if not args.only or r in args.only]
            if rows:
                boots.append(dict(cfg, selected=rows, names=rows, registered=[]))
            continue
        cat = catalogs[image_path(cfg)]
        chosen = bench_catalog.selected(cat, args.only or cfg["select"])
        if args.only:  # only what this configuration would run anyway
            wanted = {b["name"] for b in bench_catalog.selected(cat, cfg["select"])}
            chosen = [b for b in chosen if b["name"] in wanted]
        names = [b["name"] for b in chosen
                 if bench_catalog.runs_on(b, cat, cfg["platform"], cfg["disk"])]
        if names:
            boots.append(dict(cfg, selected=[b["name"] for b in chosen], names=names,
                              registered=[b["name"] for b in cat["benches"]]))
    return boots


def write_outputs(out, runs, conds, cat):
    """results.json and the report; returns the benchmarks report.md left out."""
    for run in runs:
        del run["console"]
    data = dict(conditions=conds, catalog=cat, configs=runs)
    bench_runs.save(os.path.join(out, "results.json"), data)
    return bench_report.write(data, out, extra_sections(out))


def extra_sections(out):
    """The sections other runs left in out: Linux beside patchbay, the
    lifecycle, the host's CPU."""
    return (bench_linux.section_of(out) + bench_lifecycle.section_of(out)
            + bench_host.section_of(out))


def write_alone(out):
    """report.md before any make bench: the other runs' sections only."""
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("# patchbay benchmarks\n\nRun `make bench` for patchbay's own tables.\n")
        f.write("".join(line + "\n" for line in extra_sections(out)))


def rewrite_report(out):
    """report.md again, with the sections other runs left in out."""
    data = bench_runs.load(os.path.join(out, "results.json"))
    if data is None:
        write_alone(out)
    else:
        bench_report.write(data, out, extra_sections(out))


def main_lifecycle(args):
    """tools/bench --lifecycle: the plans, lifecycle.json and the report."""
    start = time.monotonic()
    os.makedirs(args.out, exist_ok=True)
    problems = bench_lifecycle.run(args.out)
    for p in problems:
        print("bench: --lifecycle: %s" % p, file=sys.stderr)
    if problems:
        print("bench: --lifecycle failed; lifecycle.json not written", file=sys.stderr)
        return 1
    rewrite_report(args.out)
    written = os.path.join(args.out, "lifecycle.json")
    if args.record:
        shutil.copyfile(written, bench_lifecycle.RECORD)
    print("bench: --lifecycle in %.0f s; wrote %s%s" % (
        time.monotonic() - start, os.path.relpath(written, ROOT),
        " and docs/lifecycle-run.json (run tools/gen-docs)" if args.record else ""),
        file=sys.stderr)
    return 0


def main_host(args):
    """tools/bench --host: the program, its checks, and unless --quick the
    icount figures, host.json and the report."""
    start = time.monotonic()
    os.makedirs(args.out, exist_ok=True)
    problems = bench_host.run(args, args.out, git_revision())
    for p in problems:
        print("bench: --host: %s" % p, file=sys.stderr)
    if problems:
        print("bench: --host failed%s" % ("" if args.quick else "; host.json not written"),
              file=sys.stderr)
        return 1
    if args.quick:
        print("bench: --host --quick: every form's checks passed, its bytes pvemit's (%.0f s)"
              % (time.monotonic() - start), file=sys.stderr)
        return 0
    rewrite_report(args.out)
    written = os.path.join(args.out, "host.json")
    if args.record:
        shutil.copyfile(written, bench_host.RECORD)
    print("bench: --host in %.0f s; wrote %s and report.md%s" % (
        time.monotonic() - start, os.path.relpath(written, ROOT),
        ", and docs/host-run.json (run tools/gen-docs)" if args.record else ""), file=sys.stderr)
    return 0


def finish_pvh(args, runs, conds):
    """tools/bench --pvh: pvh.json from the boots, and the record if asked;
    nothing is written when a boot failed."""
    failed = [r for r in runs if r["problems"]]
    for r in failed:
        print("bench: %s FAILED (log %s): %s" % (r["id"], r["log"], "; ".join(r["problems"])),
              file=sys.stderr)
    if failed:
        print("bench: --pvh failed; pvh.json not written", file=sys.stderr)
        return 1
    written = os.path.join(args.out, "pvh.json")
    bench_runs.save(written, bench_pvh.record(runs, conds))
    if args.record:
        shutil.copyfile(written, bench_pvh.RECORD)
    print("bench: --pvh: %d configurations in %.0f s; wrote %s%s" % (
        len(runs), conds["elapsed_s"], os.path.relpath(written, ROOT),
        " and docs/pvh-run.json (run tools/gen-docs docs/pvh.md)" if args.record else ""),
        file=sys.stderr)
    return 0


def main_linux(args):
    """tools/bench --linux: the Linux boots and patchbay's, linux.json and
    the report."""
    program = os.path.join(build_dir(), "linux", "linux-bench")
    if not os.path.isfile(program):
        print("bench: %s not found; build it with make linux-bench" % program, file=sys.stderr)
        return 2
    start = time.monotonic()
    problems = bench_linux.run(args, args.out)
    for p in problems:
        print("bench: --linux: %s" % p, file=sys.stderr)
    if problems:
        print("bench: --linux failed; linux.json not written", file=sys.stderr)
        return 1
    rewrite_report(args.out)
    if args.record:
        bench_linux.record(args.out)
    print("bench: --linux in %.0f s; wrote %s%s" % (
        time.monotonic() - start, os.path.relpath(os.path.join(args.out, "linux.json"), ROOT),
        " and docs/linux-run.json (run tools/gen-docs docs/kvm.md)" if args.record else ""),
        file=sys.stderr)
    return 0


def command():
    args = parse_args(sys.argv[1:])
    if args.linux:
        return main_linux(args)
    if args.lifecycle:
        return main_lifecycle(args)
    if args.host:
        return main_host(args)
    if args.boots is None:
        args.boots = 1 if args.icount or args.quick else 2
    if args.runs is None:
        args.runs = 1 if args.quick else RUNS
    if args.boots < 1 or args.runs < 1:
        print("bench: --boots and --runs must be at least 1", file=sys.stderr)
        return 2
    configs = [c for c in args.all_configs if not args.configs or c["id"] in args.configs]
    if args.benches:
        configs = [dict(image="pv")]
    missing = sorted({image_path(c) for c in configs if not os.path.isfile(image_path(c))})
    if missing:
        print("bench: %s not found; build with make image and make PARAVIRT=n image"
              % ", ".join(missing), file=sys.stderr)
        return 2
    catalogs = read_catalogs(sorted({image_path(c) for c in configs}))
    cat = bench_catalog.merged(catalogs.values())
    if args.benches:
        bench_catalog.print_benches(cat)
        return 0
    known = [b["name"] for b in cat["benches"]] + bench_configs.NET_ROW_NAMES
    unknown = [n for n in args.only if n not in known]
    if unknown:
        print("bench: unknown benchmark: %s (the image registers: %s)"
              % (", ".join(unknown), ", ".join(known)), file=sys.stderr)
        return 2
    boots = plan(args, catalogs)
    if args.list:
        for b in boot_plan(boots, args):
            what = "--net row %s" % b["net_row"] if b.get("net") else "bench=" + ",".join(b["names"])
            print("%-36s %s %s" % (b["id"] + b["suffix"], what, " ".join(b["options"])))
        return 0
    if not boots:
        print("bench: nothing to run for that selection", file=sys.stderr)
        return 2
    logdir = os.path.join(args.out, "logs")
    os.makedirs(logdir, exist_ok=True)
    runs, elapsed = run_all(boots, args, logdir)
    conds = conditions(args, runs, elapsed)
    if args.pvh:
        return finish_pvh(args, runs, conds)
    left_out = write_outputs(args.out, runs, conds, cat)
    failed = [r for r in runs if r["problems"]]
    for r in failed:
        print("bench: %s FAILED (log %s): %s" % (r["id"], r["log"], "; ".join(r["problems"])),
              file=sys.stderr)
    if left_out:
        print("bench: report.md leaves out %s, which the image registers"
              % ", ".join(left_out), file=sys.stderr)
    print("bench: %d configurations in %.0f s, %d failed; wrote %s"
          % (len(runs), elapsed, len(failed), os.path.relpath(args.out, ROOT)), file=sys.stderr)
    return 1 if failed or left_out else 0


def main():
    """command(), a results file it cannot read ending it with one line."""
    try:
        return command()
    except bench_runs.ResultsError as e:
        return "bench: %s" % e
