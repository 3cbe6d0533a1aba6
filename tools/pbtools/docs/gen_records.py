"""tools/gen-docs' blocks quoted from a recorded run committed beside its
page, never from a new one: docs/lifecycle-run.json, docs/host-run.json,
docs/pvh-run.json, docs/linux-run.json, and docs/ping-run.json, which
record_ping() makes."""

import os
import re
import subprocess
import textwrap

from pbtools.bench import host as bench_host
from pbtools.bench import host_report as bench_host_report
from pbtools.bench import lifecycle as bench_lifecycle
from pbtools.bench import linux as bench_linux
from pbtools.bench import pvh as bench_pvh
from pbtools.bench import runs as bench_runs
from pbtools.docs.gen_boots import BOOT_TIMEOUT, OUT
from pbtools.paths import ROOT


# ---- docs/lifecycle.md: a recorded run of tools/bench --lifecycle ----

def recorded(path, how):
    """A committed record's data, or an exit naming how to make one: --check
    compares a page with its recorded run, never with a new one."""
    data = bench_runs.load(path)
    if not data:
        raise SystemExit(f"gen-docs: no {os.path.relpath(path, ROOT)}: record one with {how}")
    return data


def lifecycle_record():
    return recorded(bench_lifecycle.RECORD, "tools/bench --lifecycle --record")


def gen_lifecycle_table():
    """The recorded run's Lifecycle section, without its heading."""
    return "\n".join(bench_lifecycle.section(lifecycle_record())[3:]).strip() + "\n"


def gen_lifecycle_lines(plan_id, kind):
    """The guest's and the door's lines of the recorded run's first step of
    KIND in PLAN."""
    for plan in lifecycle_record()["plans"]:
        for step in (s for s in plan["steps"] if plan["id"] == plan_id and s["kind"] == kind):
            return "```\n" + "\n".join(step["lines"]) + "\n```\n"
    raise SystemExit(f"gen-docs: the lifecycle record has no {kind} step in plan {plan_id}")


# ---- docs/benchmarks.md and docs/one-site.md: a recorded run of tools/bench --host ----

# TSC figures change from run to run, hence a record.
def host_record():
    return recorded(bench_host.RECORD, "tools/bench --host --record")


def gen_host_run():
    """The recorded run: its conditions, table and what it says, its prose
    wrapped as the page's."""
    out = []
    for line in bench_host_report.body(host_record()):
        if not line or line.startswith("|"):
            out.append(line)
        else:
            out += textwrap.wrap(line, 76, break_on_hyphens=False,
                                 subsequent_indent="  " if line.startswith("- ") else "")
    return "\n".join(out).strip() + "\n"


def gen_host_figure():
    """One op through its table and patched, in the recorded run's ticks."""
    return "\n".join(textwrap.wrap(bench_host_report.patching_figure(host_record()), 76,
                                   break_on_hyphens=False)) + "\n"


# ---- docs/io.md: the ping through netfront, from a recorded run ----

PING_RECORD = os.path.join(ROOT, "docs", "ping-run.json")
PING_ARGS = ["--domu", "--net", "--net-count", "1", "--icount", "--", "net.trace=1"]
PING_LINES = re.compile(r"^(netfront|net): trace: ")


def record_ping():
    """One domU run with dom0's ping traced: its trace lines, and the
    command that made them, into PING_RECORD."""
    log = os.path.join(OUT, "ping-record.log")
    os.makedirs(OUT, exist_ok=True)
    cmd = ["tools/run", "--quiet", "--log", log, "--timeout", str(BOOT_TIMEOUT["domu"])]
    status = subprocess.run(cmd + PING_ARGS, cwd=ROOT).returncode
    if status != 0:
        raise SystemExit(f"gen-docs: {' '.join(cmd + PING_ARGS)} failed with status {status}; "
                         f"see {log}")
    with open(log, errors="replace") as f:
        lines = [l for l in f.read().replace("\r", "").splitlines() if PING_LINES.match(l)]
    if not any(l.startswith("netfront: trace: tx response") for l in lines):
        raise SystemExit(f"gen-docs: {log}: no traced ping came back through netfront")
    bench_runs.save(PING_RECORD, {"command": "tools/run " + " ".join(PING_ARGS), "lines": lines})
    print(f"gen-docs: {os.path.relpath(PING_RECORD, ROOT)}: {len(lines)} lines recorded")


def gen_ping_walk():
    """The recorded run's trace lines (PING_RECORD)."""
    data = recorded(PING_RECORD, "tools/gen-docs --record-ping")
    return "```\n" + "\n".join(data["lines"]) + "\n```\n"


# ---- docs/pvh.md: a recorded run of tools/bench --pvh ----

def gen_pvh_choices():
    """The recorded PVH run: each op the pv way and the emulated hardware's,
    on one vCPU and two, beside native and PV."""
    data = recorded(bench_pvh.RECORD, "tools/bench --pvh --record")
    out = []
    for line in bench_pvh.table(data):
        out += [line] if not line or line.startswith("|") else textwrap.wrap(
            line, 76, break_on_hyphens=False)
    return "\n".join(out) + "\n"


# ---- docs/kvm.md: a recorded run of tools/bench --linux, both timings ----

def gen_linux_guest():
    """Debian's Linux native and as KVM's guest, as recorded."""
    kept = recorded(bench_linux.RECORD, "tools/bench --linux --configs linux-native,linux-kvm "
                    "--record (and again with --icount)")
    return "\n".join(bench_linux.guest_table(kept)) + "\n"
