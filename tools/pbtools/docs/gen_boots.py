"""tools/gen-docs' QEMU work and the blocks read from boots: the pool that
runs at most QEMU_AT_ONCE QEMUs, each distinct boot once however many
blocks quote it, and the boot, gdb and pte-modes blocks. How a block's
PLATFORM+TAGS becomes a boot is tools/gen-docs' docstring's rule."""

import os
import re
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

from pbtools import paths
from pbtools import result_lines
from pbtools.paths import ROOT
from pbtools.run import gdb_watch

OUT = paths.build("gen-docs")
BOOT_TIMEOUT = {"native": 180, "xen": 300, "domu": 300}
QEMU_AT_ONCE = 2  # the host has 2 CPUs; icount figures do not depend on it


class Jobs:
    """The QEMU work the blocks need, started ahead and shared: each distinct
    boot once (and, through the pool and its lock, each benchmark
    configuration and gdb session once), at most QEMU_AT_ONCE QEMUs at a
    time."""

    def __init__(self):
        self.pool = ThreadPoolExecutor(max_workers=QEMU_AT_ONCE)
        self.lock = threading.Lock()
        self.boots = {}

    def boot(self, args):
        """A future of the console texts of a boot with these tools/run args:
        {"log": its console, "full": a domU run's whole one}. Whether a
        block reads the full one does not make another boot."""
        key = tuple(a for a in args if a != FULL_LOG)
        with self.lock:
            if key not in self.boots:
                log = os.path.join(OUT, f"boot-{len(self.boots) + 1}.log")
                self.boots[key] = self.pool.submit(boot_console, list(key), log)
            return self.boots[key]


JOBS = Jobs()


def boot_console(args, log):
    os.makedirs(os.path.dirname(log), exist_ok=True)
    platform = "xen" if "--xen" in args else "domu" if "--domu" in args else "native"
    expect_fail = EXPECT_FAIL in args
    args = [log[:-len(".log")] + ".img" if a == DISK_FILE else a for a in args if a != EXPECT_FAIL]
    cmd = ["tools/run", "--quiet", "--log", log, "--timeout", str(BOOT_TIMEOUT[platform])] + args
    status = subprocess.run(cmd, cwd=ROOT).returncode
    if status != 0 and not (expect_fail and 1 <= status <= 100):
        raise SystemExit(f"gen-docs: {' '.join(cmd)} failed with status {status}; see {log}")
    # tools/run --domu --log FILE shows the domU's lines in FILE and keeps
    # Xen's, dom0's and the domain builder's in FILE.full.log.
    texts = {}
    for kind, path in (("log", log), ("full", log[:-len(".log")] + ".full.log")):
        if kind == "log" or platform == "domu":
            with open(path, errors="replace") as f:
                texts[kind] = f.read().replace("\r", "")
    return texts


# A boot written PLATFORM+fail must end with a kernel-reported failure
# (tools/run status 1..100), as a fault= run does; any other must pass.
# domu+full reads the whole console of a domU run, dom0's and Xen's too;
# +smpN boots N CPUs (tools/run --smp N).
EXPECT_FAIL = "(expect-fail)"
FULL_LOG = "(full-log)"
DISK_FILE = "(disk-file)"  # the boot's own disk, named after its log
PLATFORM_ARGS = {"native": [], "xen": ["--xen"], "xen-pvh": ["--xen", "--pvh"],
                 "domu": ["--domu"]}


def boot_args(platform, cmdline):
    platform, _, tags = platform.partition("+")
    if platform not in PLATFORM_ARGS:
        raise SystemExit(f"gen-docs: unknown platform '{platform}' ({', '.join(PLATFORM_ARGS)})")
    tags = tags.split("+")
    marks = ([EXPECT_FAIL] if "fail" in tags else []) + ([FULL_LOG] if "full" in tags else [])
    smp = [t[len("smp"):] for t in tags if re.fullmatch(r"smp[1-8]", t)]
    disk = ["--disk", DISK_FILE, "--disk-new", "4M"] if "disk" in tags else []
    net = (["--net", "--net-count", "1"] if "net" in tags else []) + (
        ["--net-peer", "frames"] if "frames" in tags else [])
    return (marks + PLATFORM_ARGS[platform] + (["--smp", smp[0]] if smp else []) + disk + net +
            ["--icount", "--"] + list(cmdline))


def boot_lines(args, pattern):
    """The lines PATTERN matches; of a line where its group `shown`
    matched, only that part (to leave out a field that is not stable)."""
    text = JOBS.boot(args).result()["full" if FULL_LOG in args else "log"]
    out = []
    for line in text.splitlines():
        m = re.search(pattern, line)
        if m:
            out.append(m.groupdict().get("shown") or line)
    return out


GDB_WATCHES = {}


def gdb_watch_future(platform, op, function):
    """A future of tools/pbtools/run/gdb_watch.py's session, each distinct one once."""
    key = (platform, op, function)
    with JOBS.lock:
        if key not in GDB_WATCHES:
            if platform not in gdb_watch.PLATFORM_ARGS:
                raise SystemExit(f"gen-docs: gdb: unknown platform '{platform}' "
                                 f"({', '.join(gdb_watch.PLATFORM_ARGS)})")
            timeout = BOOT_TIMEOUT.get(platform, BOOT_TIMEOUT["native"])
            GDB_WATCHES[key] = JOBS.pool.submit(gdb_watch.watch_site, *key, timeout)
        return GDB_WATCHES[key]


def plan_gdb(platform, op, function):
    gdb_watch_future(platform, op, function)


def gen_gdb(platform, op, function):
    """gdb's batch output, commands echoed, of watching the first OP site
    in FUNCTION across the patcher on PLATFORM; it must end as gdb's kill
    ends a run, with no QEMU left."""
    s = gdb_watch_future(platform, op, function).result()
    if s.stray or not s.ended_by_kill():
        raise SystemExit(f"gen-docs: gdb {platform} {op} {function}: the session did not end "
                         f"as gdb's kill ends a run (status {s.status}):\n{s.errors}"
                         f"{s.transcript}")
    return "```\n" + s.transcript.expandtabs().rstrip() + "\n```\n"


def gen_boot(platform, pattern, *cmdline):
    """Lines matching PATTERN from a boot on PLATFORM (native or xen), under
    icount whatever the block says (see the module's docstring)."""
    return "```\n" + "\n".join(boot_lines(boot_args(platform, cmdline), pattern)) + "\n```\n"


def plan_boot(platform, pattern, *cmdline):
    JOBS.boot(boot_args(platform, cmdline))


# The write-barrier workload under -icount, one boot per way of updating ptes.
PTE_MODES = [("native", [], []),
             ("Xen, `xen.mmu=trap`", ["--xen"], ["xen.mmu=trap"]),
             ("Xen, `xen.mmu=hypercall`", ["--xen"], ["xen.mmu=hypercall"]),
             ("Xen, `xen.mmu=batch`", ["--xen"], ["xen.mmu=batch"]),
             ("Xen, `xen.mmu=swap`", ["--xen"], ["xen.mmu=swap"])]
WL_TICKS = re.compile(r"^wl: (?:instructions|tsc_ticks) per cycle (\d+): mutators (\d+), .* re-protect \d+ "
                      r"\((\d+\.\d+) per pte\)$", re.M)


def pte_mode_args(args, cmdline):
    return args + ["--icount", "--", "wl=on"] + cmdline


def plan_pte_modes():
    for _, args, cmdline in PTE_MODES:
        JOBS.boot(pte_mode_args(args, cmdline))


def gen_pte_modes():
    """A table of the workload's instruction counts in each pte mode."""
    rows = []
    for label, args, cmdline in PTE_MODES:
        lines = boot_lines(pte_mode_args(args, cmdline), r"^(wl: (instructions|tsc_ticks)|mmstats:)")
        text = "\n".join(lines)
        ticks, stats = WL_TICKS.search(text), result_lines.records(text, "mmstats")
        if not ticks or len(stats) != 1:
            raise SystemExit(f"gen-docs: pte-modes: no workload lines from {label}")
        rows.append((label, float(ticks.group(3)), int(ticks.group(2)), int(ticks.group(1)),
                     stats[0]["hypercalls"], stats[0]["traps_emulated"]))
    out = ["| Configuration | re-protect: instructions per pte "
           "| mutators (faults): per cycle | whole cycle | hypercalls | traps emulated |",
           "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for label, per_pte, mutate, cycle, hypercalls, traps in rows:
        out.append(f"| {label} | {per_pte:.1f} | {mutate:,} | {cycle:,} | {hypercalls:,} "
                   f"| {traps:,} |")
    return "\n".join(out) + "\n"
