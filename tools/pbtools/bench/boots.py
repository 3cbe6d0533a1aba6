"""tools/bench's boots: each configuration's kernel command line and
time-out, tools/run started for it, its result lines read and checked
(the line's config string, every benchmark it should print, the
network rows' client), repeated boots' runs merged, and the boots run
two at a time with a line of progress each; and the conditions they ran
under, as the report states them."""

import datetime
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from pbtools import result_lines
from pbtools.bench import configs as bench_configs
from pbtools.bench import contended as bench_contended
from pbtools.bench import io_report as bench_io
from pbtools.paths import ROOT, build_dir
from pbtools.run import args as run_args

RUN = os.path.join(ROOT, "tools", "run")
# A quick run checks that everything works: few iterations, and a small
# write-barrier heap (wl_cycle over 2048 pages with every pte write trapped,
# xen.mmu=trap, took over 60 s of a quick run alone; over 64 pages, 3 s).
QUICK_OPTIONS = ["bench.iters=4", "bench.reps=3", "wl.pages=64"]
# By door. Under PVH each hypercall, event and (Xen intercepts rdtsc) clock
# read is a VM exit, which QEMU emulates slowly: an icount boot of every
# benchmark took minutes on a busy 2-CPU host.
# Under KVM each exit goes through L1's kvm-amd on QEMU's emulated SVM,
# after L1's Linux has booted.
TIMEOUT = {"native": 180, "xen-pv": 300, "xen-pvh": 600, "domu": 420, "domu-pvh": 900,
           "kvm": 600}
RUN_OFFSET_US = 317  # not a multiple of Xen's 1 ms rate limit or the 10 ms tick


def image_path(boot):
    sub = "nopv" if boot["image"] == "nopv" else ""
    return os.path.join(build_dir(), sub, "patchbay.elf")


def kernel_cmdline(boot, args):
    if boot.get("net"):  # the door adds net=on and the addresses
        return list(boot["options"])
    select = boot["selected"] if args.only else boot["select"]
    cmdline = ["bench=" + ",".join(select)] + boot["options"]
    return cmdline + (QUICK_OPTIONS if args.quick else [])


def boot_timeout(boot):
    """The door's time-out, times the square of the vCPUs per physical CPU:
    plain spinning runs each lock_contended repetition to its bound, and
    its boots grew faster than the vCPUs (under PV, 4 on 2 took 90 to 140 s
    and 6 on 2 about 1,000 s on a loaded host)."""
    host = boot.get("host_cpus")
    return TIMEOUT[boot["door"]] * (max(1, boot["smp"] // host) ** 2 if host else 1)


def run_command(boot, args, log):
    cmd = [sys.executable, RUN, "--quiet", "--log", log, "--image", image_path(boot),
           "--cpu", args.cpu, "--timeout", str(boot_timeout(boot))]
    cmd += bench_configs.DOORS[boot["door"]]
    if boot.get("smp", 1) > 1:
        cmd += ["--smp", str(boot["smp"])]
    if boot.get("host_cpus"):
        cmd += ["--host-cpus", str(boot["host_cpus"])]
    if args.icount or boot.get("icount"):
        cmd.append("--icount")
    if boot.get("disk"):  # a scratch file, made afresh each boot
        cmd += ["--disk", os.path.join(args.out, "disk-%s.img" % boot["id"]),
                "--disk-new", bench_configs.DISK_SIZE]
    if boot.get("net"):  # the door's client with the row's count and window, unpaced
        _, count, quick, window = next(r for r in bench_configs.NET_ROWS
                                       if r[0] == boot["net_row"])
        cmd += ["--net", "--net-count", str(quick if args.quick else count),
                "--net-window", str(window), "--net-interval-ms", "0"]
    return cmd + ["--"] + kernel_cmdline(boot, args)


def read_results(text, offset_us):
    """A console's results, lock_contended's own lines filed with its
    result, and why they cannot be used (None if they can)."""
    try:
        results = result_lines.results(text)
    except result_lines.ResultLineError as e:
        return [], "a result line does not parse: %s" % e
    return results, (bench_contended.attach(results, text, offset_us)
                     or bench_io.attach(results, text))


def problems(boot, status, results, text):
    """Why a boot's output cannot be used (empty if it can)."""
    found = []
    if status != 0:
        found.append("tools/run exited with status %d" % status)
    if re.search(r"^cmdline: (unknown option|bad value)", text, re.M):
        found.append("the kernel refused an option")
    for r in results:
        if r.get("config") != boot["id"]:
            found.append("%s ran as config %s" % (r.get("name"), r.get("config")))
        if "failed" in r:
            found.append("%s failed its check: %s" % (r["name"], r["failed"]))
    reported = {r["name"] for r in results if "min" in r}
    missing = [n for n in boot["names"] if n not in reported]
    if missing:
        found.append("no result for " + ", ".join(missing))
    return found + disagreements(boot, results)


def disagreements(boot, results):
    """Where the boot's lines and the image's list for its selection differ:
    one line per selected benchmark, ran or skipped, in the image's order."""
    printed = [r.get("name") for r in results if r.get("name") != "loop_overhead"]
    found = []
    strangers = [n for n in printed if n not in boot["registered"]]
    if strangers:
        found.append("printed %s, which the image does not register" % ", ".join(strangers))
    unprinted = [n for n in boot["selected"] if n not in printed]
    if unprinted:
        found.append("printed no line for %s, which the image registers" % ", ".join(unprinted))
    if not strangers and not unprinted and printed != boot["selected"]:
        found.append("printed its benchmarks in another order than the image lists them")
    ran = [r["name"] for r in results if "min" in r and r["name"] in boot["selected"]
           and r["name"] not in boot["names"]]
    if ran:
        found.append("ran %s, whose needs its platform should not meet" % ", ".join(ran))
    return found


def net_results(boot, args, status, text):
    """A network boot's rows (its echo row, and ping's from the window-1
    boot where the door pings) and why they cannot be used."""
    found = ["tools/run exited with status %d" % status] if status != 0 else []
    if re.search(r"^cmdline: (unknown option|bad value)", text, re.M):
        found.append("the kernel refused an option")
    icount = bool(args.icount or boot.get("icount"))
    rows = [boot["net_row"]]
    if boot["net_row"] == bench_configs.NET_ROWS[0][0] and bench_configs.NET_PING in boot["names"]:
        rows.append(bench_configs.NET_PING)
    results = []
    for row in rows:
        try:
            results.append(result_lines.net_row(text, row, config=boot["id"], icount=icount))
        except result_lines.ResultLineError as e:
            found.append(str(e))
    if any(r["name"] == bench_configs.NET_PING and r["net"]["ping_ms"] is None for r in results):
        found.append("net_ping: no round-trip line from dom0's ping")
    return results, found


def run_boot(boot, args, logdir):
    log = os.path.join(logdir, boot["id"] + boot["suffix"] + ".log")
    start = time.monotonic()
    p = subprocess.run(run_command(boot, args, log), stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.monotonic() - start
    text = open(log, errors="replace").read().replace("\r", "") if os.path.exists(log) else ""
    if boot.get("net"):
        results, found = net_results(boot, args, p.returncode, text)
    else:
        results, unparsed = read_results(text, boot["offset_us"])
        found = problems(boot, p.returncode, results, text) + ([unparsed] if unparsed else [])
    if found and p.stderr:
        found.append(p.stderr.decode(errors="replace").strip().splitlines()[-1])
    return dict(id=boot["id"], platform=boot["platform"], door=boot["door"], image=boot["image"],
                attempt=boot["attempt"], cmdline=" ".join(kernel_cmdline(boot, args)),
                status=p.returncode, elapsed_s=round(elapsed, 1), log=os.path.relpath(log, ROOT),
                problems=found, results=results, console=text)


class Progress:
    """One line on the terminal: configuration n of m, elapsed time."""

    def __init__(self, total):
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.tty = sys.stderr.isatty()
        self.lock = threading.Lock()

    def show(self, what):
        line = "bench: [%d/%d] %s, %.0f s elapsed" % (self.done, self.total, what,
                                                     time.monotonic() - self.start)
        if self.tty:
            sys.stderr.write("\r\033[K" + line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def started(self, boot_id):
        if self.tty:  # a log gets one line per finished boot
            with self.lock:
                self.show("booting " + boot_id)

    def finished(self, run):
        with self.lock:
            self.done += 1
            verdict = "ok" if not run["problems"] else "FAILED"
            self.show("%s %s (%.1f s)" % (run["id"], verdict, run["elapsed_s"]))

    def close(self):
        if self.tty:
            sys.stderr.write("\n")


def best_of(runs):
    """One run per configuration (runs[0] its first boot): each benchmark's
    result from the boot where it was fastest, but lock_contended's from
    every boot together; every boot's problems; the boots' total time."""
    merged = dict(runs[0], problems=[p for r in runs for p in r["problems"]],
                  elapsed_s=round(sum(r["elapsed_s"] for r in runs), 1),
                  boots=len(runs), logs=[r["log"] for r in runs])
    best = {}
    for r in runs:
        for res in r["results"]:
            kept = best.get(res["name"])
            if kept is None or res.get("min", 0) < kept.get("min", 0):
                best[res["name"]] = res
    contended = [res for r in runs for res in r["results"] if "runs" in res]
    if contended:
        best["lock_contended"] = bench_contended.pooled(contended)
    names = dict.fromkeys(res["name"] for r in runs for res in r["results"])  # a net row a boot
    merged["results"] = [best[name] for name in names if name in best]
    return merged


def host_threads(boot, args):
    """The host threads a boot's QEMU runs, as tools/run decides them."""
    return run_args.host_threads(run_command(boot, args, os.devnull)[2:])


def boot_plan(boots, args):
    """Every boot to make, each a configuration with its attempt number,
    log suffix and start offset: --boots of each, but one of a
    configuration under icount, which a second would repeat; and for a
    configuration with trials, --runs less one more that run only those,
    each RUN_OFFSET_US later than the last."""
    work = []
    for b in boots:
        if b.get("net"):  # one boot a row; ping is the window-1 boot's
            rows = [r for r in b["names"] if r != bench_configs.NET_PING]
            work += [dict(b, attempt=k, suffix="." + row, offset_us=0, net_row=row)
                     for k, row in enumerate(rows or [bench_configs.NET_ROWS[0][0]])]
            continue
        n = 1 if b["icount"] or args.icount else args.boots
        work += [dict(b, attempt=k, suffix=".%d" % (k + 1) if n > 1 else "", offset_us=0)
                 for k in range(n)]
        trials = [name for name in b["names"] if name in b["trials"]]
        for k in range(n, n + args.runs - 1 if trials else n):
            offset = (k - n + 1) * RUN_OFFSET_US
            work.append(dict(b, attempt=k, suffix=".run%d" % (k - n + 2), offset_us=offset,
                             select=trials, names=trials,
                             selected=[name for name in b["selected"] if name in trials],
                             options=b["options"] + ["bench.offset_us=%d" % offset]))
    return work


def run_all(boots, args, logdir):
    work = boot_plan(boots, args)
    progress = Progress(len(work))

    def one(boot):
        progress.started(boot["id"])
        run = run_boot(boot, args, logdir)
        progress.finished(run)
        return run

    # A boot with a host thread per CPU runs alone: beside another boot its
    # vCPUs, spinning on each other's locks, wait for host time (seen: 1.4 s
    # alone, 91 s beside another on two host CPUs).
    wide = [w for w in work if host_threads(w, args) > 1]
    with ThreadPoolExecutor(max_workers=args.j) as pool:
        runs = list(pool.map(one, [w for w in work if w not in wide]))
    runs += [one(w) for w in wide]
    progress.close()
    by_id = [sorted((r for r in runs if r["id"] == b["id"]), key=lambda r: r["attempt"])
             for b in boots]
    return [best_of(rs) for rs in by_id], time.monotonic() - progress.start


def command_output(cmd):
    try:
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def git_revision():
    rev = command_output(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    if command_output(["git", "status", "--porcelain", "--untracked-files=no"]):
        rev += " with uncommitted changes"
    return rev


def first_match(pattern, texts):
    for text in texts:
        m = re.search(pattern, text, re.M)
        if m:
            return m.group(1).strip()
    return None


def conditions(args, runs, elapsed):
    """What the figures were measured under, as the report states it."""
    consoles = [r["console"] for r in runs]
    return dict(
        date=datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        git_revision=git_revision(),
        qemu=command_output(["qemu-system-x86_64", "--version"]).split("\n")[0],
        accelerator="tcg",
        cpu_model=args.cpu,
        cpu_brand=first_match(r"^cpu: (.*)$", consoles),
        xen=first_match(r"\(XEN\) (Xen version \S+)", consoles),
        timing="icount" if args.icount else "tsc",
        domu=any(r["door"].startswith("domu") for r in runs),
        pvh=any(r["platform"] == "xen-pvh" for r in runs),
        kvm=any(r["door"] == "kvm" for r in runs),
        quick=args.quick,
        host_cpus=os.cpu_count(),
        parallel_boots=args.j,
        boots_per_config=args.boots,
        runs_with_trials=args.runs,
        run_offset_us=RUN_OFFSET_US,
        elapsed_s=round(elapsed, 1),
    )
