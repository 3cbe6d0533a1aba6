"""tools/bench --linux: Debian's Linux beside patchbay, on the same ground.

Boots the benchmark program for Linux (linux-user/bench/, `make linux-bench`)
on Debian's kernel natively, as Xen's dom0 and as KVM's L2 guest (tools/run
--linux [--xen | --kvm]), its
disk benchmarks natively and in a PV and a PVH domU (tools/run --linux
[--domu [--pvh]] --disk), its network service on the same three doors
(tools/run --linux [--domu [--pvh]] --net, one boot a row), and
patchbay's matching benchmarks in the configurations they are compared
with (tools/bench --configs ... --only ...): the same QEMU, flags, Xen
binary and counting. Writes linux.json and the report's "Linux, same
ground" section (section(), which bench_report.render adds to report.md
whenever linux.json is there)."""

import datetime
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from pbtools import paths
from pbtools import result_lines
from pbtools.bench import configs as bench_configs
from pbtools.bench import io_report as bench_io
from pbtools.bench import runs as bench_runs
from pbtools.bench.table import fmt, markdown
from pbtools.paths import ROOT

RUN = os.path.join(ROOT, "tools", "run")

# The Linux boots: (config id, tools/run arguments). The "+disk" ones run
# the disk benchmarks only (bench.disk) on a scratch disk, Linux's
# virtio-blk natively and its blkfront in a PV and a PVH domU against the
# same blkback as patchbay's (tools/pbtools/bench/io_report.py sets them beside patchbay's).
# The "+net" ones serve the door's client on Linux's own stack (bench.net):
# virtio-net natively, netfront in a PV and a PVH domU on dom0's bridge.
LINUX_BOOTS = [("linux-native", []), ("linux-xen", ["--xen"]), ("linux-kvm", ["--kvm"]),
               ("linux-native+disk", []), ("linux-domu+disk", ["--domu"]),
               ("linux-domu-pvh+disk", ["--domu", "--pvh"]),
               ("linux-native+net", []), ("linux-domu+net", ["--domu"]),
               ("linux-domu-pvh+net", ["--domu", "--pvh"])]
LINUX_TIMEOUT = 600  # s: a full run under Xen takes about 2 minutes alone
LINUX_DISK_TIMEOUT = 900  # s: the domU's disk run took about 7 minutes beside other boots
# A "+net" config boots once a row of patchbay's (bench_configs.NET_ROWS),
# with its client's --net-count and --net-window, unpaced as patchbay's
# rows are (tools/bench's run_command). Under Xen dom0 pings the
# guest before its client starts: the first boot's pings are net_ping.
LINUX_NET_TIMEOUT = 600  # s: a domU's boot alone is about a minute under TCG

# What is compared: (Linux benchmark, patchbay benchmark, what differs).
COMPARED = [
    ("mprotect_1", "mprotect_1", "a system call on Linux, a function call in patchbay"),
    ("mprotect_16", "mprotect_16", "the same"),
    ("mprotect_512", "mprotect_512", "the same; one whole L1 table on both"),
    ("ctx_switch", "ctx_switch", "`sched_yield()` between two threads; `thread_yield()`"),
    ("channel_pingpong", "channel_pingpong", "a pipe each way; a channel each way"),
    ("null_syscall", "xen_hypercall",
     "the cheapest trip to the layer below: a system call into Linux; a hypercall into Xen"),
]
# patchbay's columns: (its config id, heading).
PATCHBAY = [("native-patched", "patchbay native"), ("xen-pv-patched+xen.mmu=batch", "patchbay Xen")]
PTES = 512


def read_console(text, boot_id):
    """A Linux boot's console: its results, hypercall counts (`mmcounts:`,
    which both kernels print), kernel release, and what is wrong with them."""
    try:
        results = result_lines.results(text)
        counts = result_lines.records(text, "mmcounts", "name")
        header = result_lines.records(text, "linux-bench", "release")
    except result_lines.ResultLineError as e:
        return [], [], None, ["a result line does not parse: %s" % e]
    problems = ["%s failed: %s" % (r["name"], r["failed"]) for r in results if "failed" in r]
    unattached = bench_io.attach(results, text)
    problems += [unattached] if unattached else []
    problems += ["%s ran as %s" % (r["name"], r.get("config")) for r in results
                 if r.get("config") != boot_id]
    return results, counts, header[0]["release"] if header else None, problems


def read_net_console(text, boot_id, row, icount, pinged):
    """A "+net" boot's console: its rows (result_lines.net_row's dicts: row,
    and net_ping too when pinged), kernel release and what is wrong."""
    try:
        header = result_lines.records(text, "linux-bench", "release")
        rows = [result_lines.net_row(text, row, boot_id, icount)]
        if pinged:
            rows.append(result_lines.net_row(text, bench_configs.NET_PING, boot_id, icount))
    except result_lines.ResultLineError as e:
        return [], None, [str(e)]
    problems = ["ran as %s" % h.get("config") for h in header if h.get("config") != boot_id]
    problems += ["%s: no ping summary from dom0" % bench_configs.NET_PING for r in rows
                 if r["name"] == bench_configs.NET_PING and r["net"]["ping_ms"] is None]
    return rows, header[0]["release"] if header else None, problems


def run_linux_net(boot_id, door, icount, quick, logdir):
    """A "+net" config, one boot a row of NET_ROWS: as run_linux, its
    results the network rows."""
    rows, problems, logs, status, release = [], [], [], 0, None
    for i, (row, count, quick_count, window) in enumerate(bench_configs.NET_ROWS):
        log = os.path.join(logdir, "%s-%s.log" % (boot_id, row))
        cmd = [sys.executable, RUN, "--linux", "--quiet", "--log", log,
               "--timeout", str(LINUX_NET_TIMEOUT)] + door + (["--icount"] if icount else [])
        cmd += ["--net", "--net-count", str(quick_count if quick else count),
                "--net-window", str(window), "--net-interval-ms", "0", "--", "bench.net"]
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        text = open(log, errors="replace").read().replace("\r", "") if os.path.exists(log) else ""
        got, said, found = read_net_console(text, boot_id, row, icount,
                                            "--domu" in door and i == 0)
        release = release or said
        if p.returncode != 0:
            why = p.stderr.decode(errors="replace").strip().splitlines()
            found.insert(0, "tools/run exited with status %d%s"
                         % (p.returncode, ": " + why[-1] if why else ""))
        rows += got
        problems += ["%s: %s" % (row, f) for f in found]
        logs.append(os.path.relpath(log, ROOT))
        status = status or p.returncode
    return dict(id=boot_id, status=status, log=logs[0], logs=logs, release=release,
                problems=problems, results=rows, counts=[])


def run_linux(boot_id, door, icount, quick, logdir):
    """One Linux boot: its results, hypercall counts, kernel release and
    problems (empty when it can be used)."""
    if boot_id.endswith(bench_configs.NET):
        return run_linux_net(boot_id, door, icount, quick, logdir)
    log = os.path.join(logdir, boot_id + ".log")
    cmd = [sys.executable, RUN, "--linux", "--quiet", "--log", log,
           "--timeout", str(LINUX_DISK_TIMEOUT if boot_id.endswith(bench_configs.DISK)
                            else LINUX_TIMEOUT)] + door + (["--icount"] if icount else [])
    if boot_id.endswith(bench_configs.DISK):
        cmd += ["--disk", os.path.join(logdir, "disk-%s.img" % boot_id),
                "--disk-new", bench_configs.DISK_SIZE]
    cmd += ["--"] + (["bench.quick"] if quick else [])
    cmd += ["bench.disk"] if boot_id.endswith(bench_configs.DISK) else []
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    text = open(log, errors="replace").read().replace("\r", "") if os.path.exists(log) else ""
    results, counts, release, found = read_console(text, boot_id)
    problems = []
    if p.returncode != 0:
        why = p.stderr.decode(errors="replace").strip().splitlines()
        problems.append("tools/run exited with status %d%s"
                        % (p.returncode, ": " + why[-1] if why else ""))
    return dict(id=boot_id, status=p.returncode, log=os.path.relpath(log, ROOT),
                release=release, problems=problems + found, results=results, counts=counts)


def run_patchbay(icount, quick, out):
    """patchbay's compared benchmarks, through tools/bench itself: its
    results.json, or None with why not."""
    argv = ["--configs", ",".join(c for c, _ in PATCHBAY),
            "--only", ",".join(p for _, p, _ in COMPARED), "-j", "2"]
    argv += (["--icount"] if icount else []) + (["--quick"] if quick else [])
    return bench_runs.run(argv, os.path.join(out, "linux-patchbay"))


def debs_kernel():
    """The kernel package tools/fetch-domu fetched (debs.list), or None."""
    path = paths.build("domu", "debs.list")
    try:
        with open(path) as f:
            for line in f:
                words = line.split()
                if words and words[0].startswith("linux-image-"):
                    return "%s %s" % (words[0], words[1])
    except OSError:
        pass
    return None


def boots(quick, only=()):
    """LINUX_BOOTS, or those of only (--configs); a quick run (a check,
    not a measurement) leaves out the domUs' network boots, two a row each
    and a minute or more apiece, as tools/bench's quick checks leave out
    patchbay's."""
    return [b for b in LINUX_BOOTS if (not only or b[0] in only)
            and not (quick and b[0].endswith("+net") and b[1])]


def run(args, out):
    """The Linux boots and patchbay's, then linux.json; returns the
    problems (empty when all went well)."""
    logdir = os.path.join(out, "logs")
    os.makedirs(logdir, exist_ok=True)
    # Two QEMUs at a time, as tools/bench -j 2: each boot is one host thread.
    with ThreadPoolExecutor(max_workers=2) as pool:
        linux = list(pool.map(lambda b: run_linux(*b, args.icount, args.quick, logdir),
                              boots(args.quick, args.configs)))
    problems = ["%s: %s" % (r["id"], p) for r in linux for p in r["problems"]]
    if problems:
        return problems  # no partial linux.json: the last good one stays
    patchbay, why = run_patchbay(args.icount, args.quick, out)
    if why:
        return [why]
    try:
        counts = pb_counts(patchbay["configs"], PATCHBAY[1][0])
    except result_lines.ResultLineError as e:
        return ["patchbay's mmcounts line does not parse: %s" % e]
    data = dict(conditions=dict(
        date=datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        kernel=debs_kernel(), release=linux[0]["release"],
        timing="icount" if args.icount else "tsc", quick=args.quick,
        qemu=patchbay["conditions"]["qemu"], xen=patchbay["conditions"]["xen"]),
        linux=linux, patchbay=patchbay["configs"],
        patchbay_counts=counts)
    bench_runs.save(os.path.join(out, "linux.json"), data)
    return []


def figure(runs, config, name):
    for r in runs:
        if r["id"] == config:
            for res in r["results"]:
                if res.get("name") == name and "min" in res:
                    return res["min"]
    return None


def per_pte(runs, config):
    """What each pte of mprotect_512 costs beyond the call itself, as the
    2008 figures were taken: (mprotect_512 - mprotect_1) / 511."""
    big, one = figure(runs, config, "mprotect_512"), figure(runs, config, "mprotect_1")
    return "—" if big is None or one is None else "%.0f" % ((big - one) / (PTES - 1))


def section(data):
    """The report's "Linux, same ground" section, as markdown lines."""
    c = data["conditions"]
    lx, pb = data["linux"], data["patchbay"]
    cols = [(lx, "linux-native", "Linux native"), (lx, "linux-xen", "Linux Xen PV"),
            (lx, "linux-kvm", "Linux KVM guest (L2)"),
            (pb, PATCHBAY[0][0], PATCHBAY[0][1]), (pb, PATCHBAY[1][0], PATCHBAY[1][1])]
    unit = "instructions" if c["timing"] == "icount" else "TSC ticks under TCG"
    doors = [w for cfg, w in (("linux-native", "natively"), ("linux-xen", "as Xen's dom0"),
                              ("linux-kvm", "as KVM's L2 guest (`--kvm`)")) if has(lx, cfg)]
    out = ["", "## Linux, same ground", "",
           "Debian's %s (`uname -r` %s), booted by `tools/run --linux` %s with a static "
           "benchmark program (linux-user/bench/) as /init, against "
           "patchbay patched natively and under Xen (`xen.mmu=batch`): the same QEMU (%s), Xen "
           "(%s), flags and clock. Unit: %s per op, minimum over the repetitions%s."
           % (c["kernel"] or "Linux", c["release"],
              ", ".join(doors[:-1]) + " and " + doors[-1] if len(doors) > 1 else "".join(doors),
              c["qemu"], c["xen"], unit,
              "; a quick run, not a measurement" if c["quick"] else ""), ""]
    rows = []
    for lname, pname, differs in COMPARED:
        label = "`%s`" % lname if lname == pname else "`%s` / `%s`" % (lname, pname)
        rows.append([label] + [fmt(figure(runs, cfg, lname if runs is lx else pname))
                               for runs, cfg, _ in cols] + [differs])
    rows.append(["per pte, (`mprotect_512` - `mprotect_1`) / 511"] +
                [per_pte(runs, cfg) for runs, cfg, _ in cols] + [""])
    out += markdown(["benchmark"] + [h for _, _, h in cols] + ["what differs"], rows)
    if has(lx, "linux-xen"):
        out += ["", "Each kernel against itself: under Xen, `mprotect_512` costs Linux %s, and "
                "patchbay %s." % (xen_share(lx, "linux-xen", "linux-native"),
                                  xen_share(pb, PATCHBAY[1][0], PATCHBAY[0][0]))]
    if has(lx, "linux-kvm"):
        out += ["", "Linux as KVM's guest is an L2 guest: Debian's QEMU with `-accel kvm` in an "
                "L1 of the same Linux, whose kvm-amd runs on the SVM QEMU's TCG emulates "
                "(nested paging, no hardware). Its `mprotect_512` costs %s. %s"
                % (xen_share(lx, "linux-kvm", "linux-native"), L2_COUNTED[c["timing"]])]
    linux_counts = next((r["counts"] for r in lx if r["id"] == "linux-xen"), [])
    ours = {k["name"]: k for k in data.get("patchbay_counts", [])}
    if linux_counts:
        out += ["", "Hypercalls for one mprotect under Xen: Linux's from its own `xen:*` trace "
                "events (each `xen_mc_flush` line says how many queued calls it issued: one "
                "alone is a plain hypercall, more are one multicall), patchbay's from its "
                "`mm_stats` counters:", ""]
        rows = []
        for t in linux_counts:
            p = ours.get(t["name"], {})
            rows.append(["`%s`" % t["name"]] + [str(v) for v in (
                t["hypercalls"], t["mc_entries"], t["invlpg"], t["pte_commits"],
                p.get("hypercalls", "—"), p.get("mc_entries", "—"))])
        out += markdown(["mprotect", "Linux hypercalls", "Linux multicall entries",
                         "Linux INVLPG requests", "Linux ptes committed", "patchbay hypercalls",
                         "patchbay multicall entries"], rows)
    out += ["", "What this shows and what it cannot: both kernels are counted in "
            "instructions (Xen's included) on the same emulator, so the ratios are "
            "comparable, but an instruction count is not a cycle count, and a trap or a "
            "cache miss costs hardware far more than its instructions. Linux's figures "
            "include a system call per op where patchbay's benchmarks call the kernel "
            "function directly, and Linux's mprotect does far more (VMA lookup and merge, "
            "locking for many processes, accounting) than patchbay's. The ratios of each "
            "kernel to itself, Xen against native, are the comparable part."]
    return out


# What an L2 guest's figures count, by timing.
L2_COUNTED = {
    "icount": "Under icount every instruction QEMU runs counts, L1's too: an exit of the L2 "
              "guest counts L1's KVM handling it (and L1's QEMU where KVM hands it on).",
    "tsc": "In TSC ticks under TCG the guest's clock follows the host's time, L1's included.",
}


def has(runs, config):
    """Whether runs holds config's boot with results."""
    return any(r["id"] == config and r["results"] for r in runs)


def pb_counts(runs, config):
    """patchbay's own mmcounts lines, from the console log of config's boot
    (kept in linux.json: the log is overwritten by the next run)."""
    for r in runs:
        if r["id"] == config:
            for log in r.get("logs") or [r["log"]]:
                try:
                    with open(os.path.join(ROOT, log), errors="replace") as f:
                        return result_lines.records(f.read(), "mmcounts", "name")
                except OSError:
                    pass
    return []


def xen_share(runs, xen, native):
    """mprotect_512 under Xen (or another layer below) as a multiple of
    native, and what it adds per pte (the per-pte row's difference)."""
    x, n = figure(runs, xen, "mprotect_512"), figure(runs, native, "mprotect_512")
    px, pn = per_pte(runs, xen), per_pte(runs, native)
    if x is None or n is None or "—" in (px, pn):
        return "—"
    return "%.1fx its native figure, %d more per pte" % (x / n, int(px) - int(pn))


def section_of(out):
    """The Linux section's lines when out holds linux.json, else none."""
    data = bench_runs.load(os.path.join(out, "linux.json"))
    return section(data) if data else []


# ---- docs/kvm.md: Debian's Linux native and as KVM's guest, recorded ----

# TSC figures change from run to run, and a run takes minutes: the page
# quotes a recorded one, a linux.json per timing.
RECORD = os.path.join(ROOT, "docs", "linux-run.json")
GUEST_COLUMNS = [("linux-native", "native"), ("linux-kvm", "KVM's guest")]


def record(out):
    """Copies out's linux.json into RECORD under its timing, beside the
    other timing's run."""
    data = bench_runs.load(os.path.join(out, "linux.json"))
    kept = bench_runs.load(RECORD) or {}
    kept[data["conditions"]["timing"]] = data
    bench_runs.save(RECORD, kept)


def guest_table(kept):
    """The record's Linux native and as KVM's guest, under icount and in
    TSC ticks: one row an op both kernels run, the figure the minimum."""
    timings = [t for t in ("icount", "tsc") if t in kept]
    runs = {t: kept[t]["linux"] for t in timings}
    missing = ["%s %s" % (t, c) for t in timings for c, _ in GUEST_COLUMNS
               if not any(r["id"] == c for r in runs[t])]
    if not timings or missing:
        raise SystemExit("gen-docs: %s lacks %s: record it with tools/bench --linux --configs "
                         "linux-native,linux-kvm [--icount] --record"
                         % (os.path.relpath(RECORD, ROOT), ", ".join(missing) or "a run"))
    unit = {"icount": "icount", "tsc": "TSC"}
    head = ["benchmark"] + ["%s, %s" % (name, unit[t]) for t in timings
                            for name in [n for _, n in GUEST_COLUMNS] + ["guest / native"]]
    rows = []
    for lname, _, _ in COMPARED:
        row = ["`%s`" % lname]
        for t in timings:
            native, guest = (figure(runs[t], c, lname) for c, _ in GUEST_COLUMNS)
            row += [fmt(native), fmt(guest),
                    "%.2fx" % (guest / native) if native and guest else fmt(None)]
        rows.append(row)
    when = "; ".join("%s on %s" % (t, kept[t]["conditions"]["date"]) for t in timings)
    return markdown(head, rows) + ["", "Recorded by `tools/bench --linux --configs "
                                   "linux-native,linux-kvm --record` (%s), %s, %s, the "
                                   "minimum of each op (docs/linux-run.json)." % (
                                       when, kept[timings[0]]["conditions"]["qemu"],
                                       kept[timings[0]]["conditions"]["kernel"])]
