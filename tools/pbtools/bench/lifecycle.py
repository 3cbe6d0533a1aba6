"""tools/bench --lifecycle: the guest's lifecycle, measured.

Runs a few lifecycle plans (tools/run --domu --lifecycle PLAN, PV and PVH,
with the write-barrier workload and without), one at a time so that no
other QEMU shares the host, and collects for every step what the guest saw
(the gap in its clock across the resume: the pause it lived through) and
what dom0 saw (the step's wall time and what xl moved). Writes
lifecycle.json and the report's "Lifecycle" section (section(), which
tools/bench appends to report.md whenever lifecycle.json is there).

Wall-clock figures under QEMU's TCG: they depend on the host and on what
else runs there, and are reported with those conditions, never checked."""

import datetime
import os
import re
import statistics
import subprocess
import sys

from pbtools.bench import runs as bench_runs
from pbtools.paths import ROOT

# The run docs/lifecycle.md quotes (tools/bench --lifecycle --record):
# wall-clock figures change from run to run, so the page and the explorer
# quote one run, committed beside the page.
RECORD = os.path.join(ROOT, "docs", "lifecycle-run.json")
RUN = os.path.join(ROOT, "tools", "run")

# (id, tools/run arguments, kernel command line, what it shows)
PLANS = [
    ("pv", ["--domu", "--smp", "2", "--lifecycle", "save-restore*2,move*2"], ["wl=on"],
     "a PV domU under the workload: saved and restored, then moved"),
    ("pvh", ["--domu", "--pvh", "--lifecycle", "save-restore,move,migrate*2"],
     ["wl=on"], "a PVH domU under the workload: the same, then migrated live"),
    ("pvh-idle", ["--domu", "--pvh", "--lifecycle", "migrate*2"], [],
     "a PVH domU with no workload, migrated live: what the workload adds"),
]
TIMEOUT = 900  # s: the PVH plan's four steps take about 2 minutes on an idle 2-CPU host

RESUME = re.compile(r"^lifecycle: resume (\d+)/\d+: domain (\d+) -> (\d+), clock gap ([\d.]+) ms",
                    re.M)
WORKLOAD = re.compile(r"^lifecycle: wl (\d+) cycles since (?:the start|resume (\d+)), "
                      r"([\d.]+) ms each", re.M)
STEP = re.compile(r"^lifecycle-door: step (\d+)/\d+ (\S+): domain (\d+) -> (\d+) in ([\d.]+) s "
                  r"\((.*)\)$", re.M)
MEGABYTES = re.compile(r"checkpoint ([\d.]+) MB")
LIVE = re.compile(r"live copy ([\d.]+) s, then suspended ([\d.]+) s")
PAGES = re.compile(r"(\d+) (?:pages|frames)")


# Which step a lifecycle line is about: its own number, or for the
# workload's line the step whose suspend follows it.
ABOUT = [(re.compile(r"^lifecycle: (?:suspend|resume) (\d+)\b"), 0),
         (re.compile(r"^lifecycle-door: step (\d+)/"), 0),
         (re.compile(r"^lifecycle: wl \d+ cycles since resume (\d+)"), 1),
         (re.compile(r"^lifecycle: wl \d+ cycles since the start()"), None)]


def step_lines(text):
    """{step: the guest's and the door's lines about it}, in console order."""
    out = {}
    for line in text.splitlines():
        for pattern, offset in ABOUT:
            m = pattern.match(line)
            if m:
                step = 1 if offset is None else int(m.group(1)) + offset
                out.setdefault(step, []).append(line)
                break
    return out


def parse(text):
    """The steps of one run's console: each with the door's figures, the
    guest's clock gap and what the workload did before it."""
    gaps = {int(m.group(1)): float(m.group(4)) for m in RESUME.finditer(text)}
    # The workload line printed as step N's suspend began covers the time
    # since resume N-1: during a live migration, Xen's log-dirty rounds.
    before = {int(m.group(2) or 0) + 1: (int(m.group(1)), float(m.group(3)))
              for m in WORKLOAD.finditer(text)}
    lines = step_lines(text)
    steps = []
    for m in STEP.finditer(text):
        n = int(m.group(1))
        moved = m.group(6)
        mb = MEGABYTES.search(moved)
        pages = [int(p) for p in PAGES.findall(moved)]
        live = LIVE.search(moved)
        steps.append(dict(step=n, kind=m.group(2), domains=[int(m.group(3)), int(m.group(4))],
                          wall_s=float(m.group(5)), moved=moved,
                          checkpoint_mb=float(mb.group(1)) if mb else None,
                          pages=pages or None, gap_ms=gaps.get(n),
                          live_s=[float(x) for x in live.groups()] if live else None,
                          wl_before=before.get(n), lines=lines.get(n, [])))
    return steps


def run_plan(plan_id, door, cmdline, logdir):
    """One plan's run: its steps and problems (empty when it can be used)."""
    log = os.path.join(logdir, "lifecycle-%s.log" % plan_id)
    cmd = [sys.executable, RUN, "--quiet", "--log", log, "--timeout", str(TIMEOUT)] + door
    cmd += ["--"] + cmdline
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    text = open(log, errors="replace").read().replace("\r", "") if os.path.exists(log) else ""
    steps = parse(text)
    problems = []
    if p.returncode != 0:
        why = p.stderr.decode(errors="replace").strip().splitlines()
        problems.append("tools/run exited with status %d%s"
                        % (p.returncode, ": " + why[-1] if why else ""))
    problems += ["step %d: no clock gap from the guest" % s["step"] for s in steps
                 if s["gap_ms"] is None]
    if not steps:
        problems.append("no step line in %s" % os.path.relpath(log, ROOT))
    return dict(id=plan_id, args=door, cmdline=cmdline, log=os.path.relpath(log, ROOT),
                steps=steps, problems=problems)


def command_line(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        return None


def run(out):
    """Every plan, then lifecycle.json; returns the problems (empty when all
    went well). A failed plan writes nothing: the last good file stays."""
    logdir = os.path.join(out, "logs")
    os.makedirs(logdir, exist_ok=True)
    plans = []
    for plan_id, door, cmdline, _ in PLANS:
        print("bench: lifecycle %s ..." % plan_id, file=sys.stderr, flush=True)
        plans.append(run_plan(plan_id, door, cmdline, logdir))
    problems = ["%s: %s" % (r["id"], p) for r in plans for p in r["problems"]]
    if problems:
        return problems
    data = dict(conditions=dict(
        date=datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        qemu=command_line(["qemu-system-x86_64", "--version"]), accelerator="tcg",
        host_cpus=os.cpu_count(), timing="wall clock (TSC under TCG)"), plans=plans)
    bench_runs.save(os.path.join(out, "lifecycle.json"), data)
    return []


def spread(values, fmt):
    """median [min-max] of the values, or a dash."""
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    if len(values) == 1:
        return fmt % values[0]
    return "%s [%s-%s]" % (fmt % statistics.median(values), fmt % min(values), fmt % max(values))


def step_rows(data):
    """A row per plan and kind of step."""
    rows = []
    for plan in data["plans"]:
        for kind in dict.fromkeys(s["kind"] for s in plan["steps"]):
            steps = [s for s in plan["steps"] if s["kind"] == kind]
            if any(s["checkpoint_mb"] for s in steps):
                moved = spread([s["checkpoint_mb"] for s in steps], "%.1f") + " MB checkpoint"
            elif any(s.get("live_s") for s in steps):
                moved = "live copy %s s, suspended %s s" % (
                    spread([s["live_s"][0] for s in steps], "%.1f"),
                    spread([s["live_s"][1] for s in steps], "%.1f"))
            else:
                moved = steps[0]["moved"]
            rows.append("| %s | %s | %d | %s | %s | %s |" % (
                plan["id"], kind, len(steps), spread([s["gap_ms"] for s in steps], "%.0f"),
                spread([s["wall_s"] for s in steps], "%.1f"), moved))
    return rows


def workload_rows(data):
    """The workload's cycle time before a step: normal running before a
    save or a move, Xen tracking dirty pages before a migration's suspend."""
    rows = []
    for plan in data["plans"]:
        for kind in dict.fromkeys(s["kind"] for s in plan["steps"]):
            each = [s["wl_before"][1] for s in plan["steps"]
                    if s["kind"] == kind and s["wl_before"]]
            if each:
                rows.append("| %s | %s | %s |" % (plan["id"], kind, spread(each, "%.0f")))
    return rows


def section(data):
    """The report's Lifecycle section, as lines."""
    cond = data["conditions"]
    lines = ["", "## Lifecycle", "",
             "What each step of `tools/run --domu --lifecycle PLAN` costs: the gap in the "
             "guest's own clock across the resume (the pause it lived through), the step's "
             "wall time in dom0, and what xl moved. Median [min-max] over the steps of a "
             "kind. Wall-clock figures: QEMU TCG on %s host CPUs, %s; measured %s; never "
             "checked by tests." % (cond.get("host_cpus"), cond.get("qemu") or "QEMU",
                                    cond.get("date")), "",
             "| plan | step | n | guest pause (ms) | wall time (s) | moved |",
             "|---|---|---|---|---|---|"] + step_rows(data)
    lines += ["", "Plans: " + "; ".join("`%s` = `tools/run %s -- %s` (%s)" % (
        p[0], " ".join(p[1]), " ".join(p[2]), p[3]) for p in PLANS) + ".", ""]
    rows = workload_rows(data)
    if rows:
        lines += ["The workload's cycle time (ms) in the interval before each step's suspend: "
                  "normal running before a save or a move; before a migration's suspend, "
                  "the live rounds, while Xen tracks the pages it dirties (log-dirty mode). "
                  "Not a clean measure of log-dirty's cost: dom0's xl runs on the same host "
                  "CPUs in those intervals, and slows the guest for that reason too.",
                  "", "| plan | next step | ms per cycle |", "|---|---|---|"] + rows
    return lines


def section_of(out):
    """The Lifecycle section's lines when out holds lifecycle.json, else none."""
    data = bench_runs.load(os.path.join(out, "lifecycle.json"))
    return section(data) if data else []
