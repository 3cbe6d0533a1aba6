#!/usr/bin/env python3
"""Runs a suite of tests/manifest.py: its two lanes side by side, every
group even after one fails, each group's output in a log of its own;
shows k/N and an estimate from the last run's durations as it goes, and
ends with a table (group, passed, failed, time, CPU time, log) and one closing line
`N passed, N failed`. A command counts as the tests its own closing line
names (ours, or pytest's), else as one.

  tests/run_suite.py [test|quick] [--group NAME]... [--list]

Exit status: 0 when nothing failed, 1 when a test failed, 2 for bad
arguments."""

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import manifest  # noqa: E402

SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed\s*$", re.MULTILINE)
# pytest's closing line: "1 failed, 2 passed, 1 skipped in 0.05s", the
# counts in any order, sometimes framed in ='s.
PYTEST_SUMMARY = re.compile(r"^=*\s*((?:\d+ \w+(?:, )?)+|no tests ran) in [\d.]+s\b.*$",
                            re.MULTILINE)


def counts_of(output):
    """(passed, failed) as the output's last closing line says, or None
    when it has none: ours ("N passed, N failed") or pytest's, where an
    error (a test that could not run) counts as failed."""
    lines = [m for r in (SUMMARY, PYTEST_SUMMARY) for m in r.finditer(output)]
    if not lines:
        return None
    last = max(lines, key=lambda m: m.start())
    if last.re is SUMMARY:
        return int(last.group(1)), int(last.group(2))
    counts = dict((word, int(n)) for n, word in re.findall(r"(\d+) (\w+)", last.group(1)))
    return (counts.get("passed", 0),
            counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0))


def log_dir():
    path = os.path.join(ROOT, manifest.BUILD, "test-logs", "suite")
    os.makedirs(path, exist_ok=True)
    return path


def load_durations(path):
    """The last run's seconds per group, or {} (a first run has none)."""
    try:
        with open(path) as f:
            data = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        sys.exit("run_suite: %s is unreadable (%s); delete it" % (path, e))
    if data.get("format") != 1:
        sys.exit("run_suite: %s has format %r, not 1; delete it" % (path, data.get("format")))
    return data["seconds"]


def save_durations(path, seconds):
    with open(path + ".tmp", "w") as f:
        json.dump({"format": 1, "seconds": seconds}, f, indent=1, sort_keys=True)
    os.replace(path + ".tmp", path)


STEP = re.compile(r"^(?:\[(\d+)/(\d+)\] )?(PASS|FAIL|FAILED|ERROR) (\S+)")
SHOW_EVERY_S = 60


def run_command(command, log, show):
    """Runs one command into log; returns (passed, failed, CPU seconds) it
    counts for: the CPU time of the command and every process it waited
    for, QEMU's included, so the table shows which groups keep the
    machine busy and which wait.
    Its `FAIL name` lines reach show() at once, and its `[k/N] PASS name`
    lines (the boot tests') as a count once a minute."""
    log.write("$ %s\n" % command)
    log.flush()
    env = dict(os.environ, BUILD=manifest.BUILD)
    p = subprocess.Popen(command, shell=True, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = []
    shown = time.monotonic()
    for raw in p.stdout:
        line = raw.decode(errors="replace")
        out.append(line)
        log.write(line)
        m = STEP.match(line)
        if m and m.group(3) != "PASS":
            show(line.rstrip()[:160])
        elif m and m.group(1) and time.monotonic() - shown >= SHOW_EVERY_S:
            show("%s/%s done" % (m.group(1), m.group(2)))
            shown = time.monotonic()
    _, raw_status, usage = os.wait4(p.pid, 0)
    p.returncode = status = os.waitstatus_to_exitcode(raw_status)
    cpu = usage.ru_utime + usage.ru_stime
    log.write("(exit status %d, %.0f s of CPU)\n\n" % (status, cpu))
    log.flush()
    counts = counts_of("".join(out))
    if counts:
        passed, failed = counts
        if status != 0 and failed == 0:
            failed = 1  # it said all passed, yet failed: count that
        return passed, failed, cpu
    return (1, 0, cpu) if status == 0 else (0, 1, cpu)


class Progress:
    """The lines shown while the lanes run, one writer at a time."""

    def __init__(self, groups, durations):
        self.total = len(groups)
        self.done = 0
        self.lock = threading.Lock()
        self.left = {}
        for name, (lane, _, _) in groups.items():
            self.left.setdefault(lane, {})[name] = durations.get(name)

    def estimate(self):
        lanes = [sum(s for s in g.values() if s) for g in self.left.values()]
        unknown = any(s is None for g in self.left.values() for s in g.values())
        if not lanes or max(lanes) == 0:
            return ""
        return ", about %d min left%s" % (round(max(lanes) / 60 + 0.5),
                                          " (and groups not timed before)" if unknown else "")

    def start(self, name, lane, last):
        with self.lock:
            print("      %s: %s starts%s" % (lane, name,
                                          " (%d s last time)" % last if last else ""),
                  flush=True)

    def note(self, name, lane, text):
        with self.lock:
            print("      %s: %s %s" % (lane, name, text), flush=True)

    def end(self, name, lane, passed, failed, seconds, log):
        with self.lock:
            self.done += 1
            del self.left[lane][name]
            verdict = "ok" if failed == 0 else "%d FAILED" % failed
            print("[%d/%d] %s: %s %s, %d passed in %d s (%s)%s" % (
                self.done, self.total, lane, name, verdict, passed, seconds,
                os.path.relpath(log, ROOT), self.estimate()), flush=True)


def run_lane(names, groups, durations, progress, results):
    for name in names:
        lane, _, commands = groups[name]
        path = os.path.join(log_dir(), name + ".log")
        progress.start(name, lane, durations.get(name))
        start = time.monotonic()
        passed = failed = cpu = 0
        with open(path, "w") as log:
            for command in commands:
                p, f, c = run_command(command, log,
                                      lambda text: progress.note(name, lane, text))
                passed += p
                failed += f
                cpu += c
        seconds = time.monotonic() - start
        results[name] = (passed, failed, seconds, path, cpu)
        progress.end(name, lane, passed, failed, seconds, path)


def table(groups, results):
    rows = [("group", "passed", "failed", "time", "CPU", "log")]
    for name in groups:
        passed, failed, seconds, path, cpu = results[name]
        rows.append((name, str(passed), str(failed), "%dm%02ds" % divmod(int(seconds), 60),
                     "%dm%02ds" % divmod(int(cpu), 60), os.path.relpath(path, ROOT)))
    widths = [max(len(r[i]) for r in rows) for i in range(6)]
    for r in rows:
        print("  ".join(c.ljust(w) if i in (0, 5) else c.rjust(w)
                        for i, (c, w) in enumerate(zip(r, widths))).rstrip())


def main():
    p = argparse.ArgumentParser(prog="tests/run_suite.py",
                                description="Run a suite of tests/manifest.py.")
    p.add_argument("suite", nargs="?", default="test", choices=sorted(manifest.SUITES))
    p.add_argument("--group", action="append", default=[], metavar="NAME",
                   help="run only this group (repeatable)")
    p.add_argument("--list", action="store_true", help="list the groups and exit")
    args = p.parse_args()
    groups = manifest.SUITES[args.suite]
    unknown = [g for g in args.group if g not in groups]
    if unknown:
        p.error("no group %s in suite %s (groups: %s)"
                % (", ".join(unknown), args.suite, ", ".join(groups)))
    if args.group:
        groups = {n: g for n, g in groups.items() if n in args.group}
    if args.list:
        for name, (lane, what, commands) in groups.items():
            print("%-12s %-6s %s" % (name, lane, what))
        return 0

    durations_path = os.path.join(log_dir(), "durations.json")
    durations = load_durations(durations_path)
    progress = Progress(groups, durations)
    results = {}
    lanes = {}
    for name, (lane, _, _) in groups.items():
        lanes.setdefault(lane, []).append(name)
    threads = [threading.Thread(target=run_lane, args=(names, groups, durations, progress,
                                                       results)) for names in lanes.values()]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    durations.update({n: round(r[2]) for n, r in results.items()})
    save_durations(durations_path, durations)
    print()
    table(groups, results)
    passed = sum(r[0] for r in results.values())
    failed = sum(r[1] for r in results.values())
    print("%s: %d min %02d s" % ((args.suite,) + divmod(int(time.monotonic() - start), 60)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
