#!/usr/bin/env python3
"""Run the boot test cases of tests/boot/cases.py through tools/run.

  python3 tests/boot/run_boot_tests.py [-j N] [-k PATTERN]... [--list]

Each case boots the image under QEMU with `tools/run --quiet --log FILE`;
the console goes to build/test-logs/NAME.log and is checked against the
case's expectations. Every case's console must hold exactly one verdict
line (`patchbay: PASS` or `patchbay: FAIL ...`) unless the case says how
many (`verdicts`), and each verdict line must start at column 0 in the
console's raw bytes: nothing (a carriage return, an escape sequence)
before it on its line, so that anything reading the console for
^patchbay: finds it. Prints one PASS/FAIL line per case and a final
"N passed, N failed" line; exits 1 if any case failed.
"""

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUN = os.path.join(ROOT, "tools", "run")

sys.dont_write_bytecode = True  # no __pycache__ in tools/
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
from cases import CASES  # noqa: E402
from pbtools.run.common import STATUS_CMDLINE  # noqa: E402
from pbtools.run import args as run_args  # noqa: E402

FIELDS = {"name", "args", "cmdline", "expect", "reject", "last_line", "status", "timeout",
          "check", "verdicts", "stderr", "image"}
DEFAULTS = dict(args=[], cmdline="", expect=[], reject=[], last_line=None, status=0,
                timeout=60, check=None, verdicts=1, stderr=[], image="pv")
# The one line that ends every run, the kernel's or tools/run's; in the
# raw console, a verdict wherever it is on its line.
VERDICT = re.compile(r"^patchbay: (PASS|FAIL)\b", re.MULTILINE)
RAW_VERDICT = re.compile(rb"^patchbay: (PASS|FAIL)\b", re.MULTILINE)
ANY_VERDICT = re.compile(rb"patchbay: (PASS|FAIL)\b")
# The kernel's verdict on a command line it cannot honour, which goes with
# its status EXIT_CMDLINE and no other.
CMDLINE_VERDICT = re.compile(r"^patchbay: FAIL cmdline: ", re.MULTILINE)
# Statuses tools/run gives for a failure the kernel could not report itself
# (tools/run --help): 98 the boot stopped before the kernel, 99 Xen ended it,
# 102 a domU stopped without leaving a status or a verdict.
TOOL_VERDICT_STATUSES = (98, 99, 102)
TAIL_LINES = 30
# Terminal control sequences (GRUB draws its menu with them) and other
# control characters except newline and tab.
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78c]")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def build_dir():
    build = os.environ.get("BUILD", "build")
    return build if os.path.isabs(build) else os.path.join(ROOT, build)


def normalise(case):
    """The case with defaults filled in; raises ValueError if it is malformed."""
    if not isinstance(case, dict) or "name" not in case:
        raise ValueError("a case must be a dict with a name: %r" % (case,))
    unknown = set(case) - FIELDS
    if unknown:
        raise ValueError("case %s: unknown fields %s" % (case["name"], sorted(unknown)))
    c = dict(DEFAULTS)
    c.update(case)
    if c["image"] not in ("pv", "nopv", "debug"):
        raise ValueError("case %s: image must be 'pv', 'nopv' or 'debug'" % c["name"])
    if c["status"] not in ("fail", "failed", "cmdline") and not isinstance(c["status"], int):
        raise ValueError("case %s: status must be an int, 'fail', 'failed' or 'cmdline'"
                         % c["name"])
    if not isinstance(c["verdicts"], int) or c["verdicts"] < 0:
        raise ValueError("case %s: verdicts must be a count" % c["name"])
    if c["check"] is not None and not callable(c["check"]):
        raise ValueError("case %s: check must be a function of the console text" % c["name"])
    if any(isinstance(c[k], str) for k in ("expect", "reject", "stderr")):
        raise ValueError("case %s: expect, reject and stderr are lists of regexes" % c["name"])
    for rx in list(c["expect"]) + list(c["reject"]) + list(c["stderr"]) + [c["last_line"] or ""]:
        try:
            re.compile(rx)
        except re.error as e:
            raise ValueError("case %s: bad regex %r: %s" % (c["name"], rx, e))
    return c


def console_text(raw):
    """The console as plain text lines: no \\r, no escape sequences."""
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
    text = ESCAPES.sub("", text)
    text = text.replace("\r", "\n")
    return CONTROL.sub("", text)


def status_ok(want, got):
    if want in ("fail", "failed"):
        return 1 <= got <= 100
    if want == "cmdline":
        return got == STATUS_CMDLINE
    return got == want


def describe_status(got):
    if got == 124:
        return "timed out"
    if got == 101:
        return "QEMU ended without a kernel exit"
    if got == 98:
        return "status 98 (the boot stopped before the kernel ran)"
    if got == 99:
        return "status 99 (Xen crashed the domain)"
    if got == 102:
        return "status 102 (the domU stopped without a status or verdict)"
    if got == 103:
        return "status 103 (the domU's dom0 or its toolstack, or the KVM door's L1 host, failed)"
    if got == 104:
        return "status 104 (a step of the domU's lifecycle plan failed)"
    if got == 0:
        return "clean exit"
    if got == STATUS_CMDLINE:
        return "status %d (a command line the kernel cannot honour)" % got
    return "status %d" % got


def verdicts_off_column_0(raw):
    """The raw console's verdict lines that do not start their line: what
    precedes each on its line, with the verdict's start. A terminal would
    show them at column 0 (after a \\r, say), but ^patchbay: misses them."""
    return [raw[raw.rfind(b"\n", 0, m.start()) + 1:m.start() + 14]
            for m in ANY_VERDICT.finditer(raw)
            if m.start() > 0 and raw[m.start() - 1:m.start()] != b"\n"]


def check(case, status, text, stderr, raw):
    """A list of reasons why the case failed (empty if it passed)."""
    reasons = []
    want = case["status"]
    if not status_ok(want, status):
        wanted = {"fail": "a kernel failure (1..100)",
                  "failed": "a failure with a verdict (1..100)",
                  "cmdline": describe_status(STATUS_CMDLINE)}.get(want) or "status %d" % want
        reasons.append("expected %s, got %s" % (wanted, describe_status(status)))
    elif want in ("fail", "cmdline") and "run: kernel failed with status" not in stderr:
        reasons.append("status %d did not come from a kernel exit" % status)
    elif (want == "failed" and "run: kernel failed with status" not in stderr
          and status not in TOOL_VERDICT_STATUSES):
        reasons.append("status %d came from neither the kernel nor a tools/run verdict"
                       % status)
    verdicts = [m.group(0) for m in VERDICT.finditer(text)]
    if len(verdicts) != case["verdicts"]:
        reasons.append("expected %d verdict line%s, found %d"
                       % (case["verdicts"], "" if case["verdicts"] == 1 else "s",
                          len(verdicts)))
    refused = CMDLINE_VERDICT.search(text) is not None
    if refused != (status == STATUS_CMDLINE):
        reasons.append("a 'cmdline:' verdict goes with status %d and no other: %s, %s"
                       % (STATUS_CMDLINE, "such a verdict" if refused else "no such verdict",
                          describe_status(status)))
    if len(RAW_VERDICT.findall(raw)) != len(verdicts):
        reasons.append("a verdict line does not start at column 0 in the raw console: %s"
                       % ", ".join(repr(v) for v in verdicts_off_column_0(raw)))
    for rx in case["stderr"]:
        if not re.search(rx, stderr, re.MULTILINE):
            reasons.append("expected /%s/ not found in tools/run's stderr" % rx)
    for rx in case["expect"]:
        if not re.search(rx, text, re.MULTILINE):
            reasons.append("expected /%s/ not found" % rx)
    for rx in case["reject"]:
        m = re.search(rx, text, re.MULTILINE)
        if m:
            line = text[text.rfind("\n", 0, m.start()) + 1:].split("\n", 1)[0]
            reasons.append("rejected /%s/ found: %s" % (rx, line.strip()))
    if case["last_line"] is not None:
        lines = [line.strip() for line in text.split("\n") if line.strip()]
        last = lines[-1] if lines else "(no output)"
        if not re.search(case["last_line"], last):
            reasons.append("last line %r does not match /%s/" % (last, case["last_line"]))
    if case["check"] is not None:
        problem = case["check"](text)
        if problem:
            reasons.append(problem)
    return reasons


SLOT_WAIT_MAX_S = 1800


# tools/run's line when QEMU had to wait for a free CPU (tools/pbtools/run/cpu_slots.py).
SLOT_WAIT = re.compile(r"^run: waited (\d+) s for \d+ free CPUs?$", re.MULTILINE)


def run_case(case, image, logdir):
    log = os.path.join(logdir, case["name"] + ".log")
    if os.path.exists(log):
        os.unlink(log)
    if case["image"] in ("nopv", "debug"):  # the PARAVIRT=n or DEBUG=1 build beside it
        image = os.path.join(os.path.dirname(image), case["image"], os.path.basename(image))
    cmd = [sys.executable, RUN, "--quiet", "--log", log, "--image", image,
           "--timeout", str(case["timeout"])] + list(case["args"])
    if case["cmdline"]:
        # One word: tools/run hands it to the door as it is, spaces and all.
        cmd += ["--", case["cmdline"]]
    start = time.monotonic()
    # tools/run kills QEMU at the case's time-out, counted from when QEMU
    # has its CPUs (tools/pbtools/run/cpu_slots.py); this backstop only catches
    # tools/run itself stuck, so its margin covers building an ISO,
    # fetching Xen and waiting for CPUs behind the other lanes' boots.
    status, stderr, cpu = run_tool(cmd, case["timeout"] + SLOT_WAIT_MAX_S)
    # Time spent queued for CPUs is the other lane's, not this case's.
    waited = sum(float(s) for s in SLOT_WAIT.findall(stderr))
    elapsed = time.monotonic() - start - waited
    raw = b""
    if os.path.exists(log):
        with open(log, "rb") as f:
            raw = f.read()
    text = console_text(raw)
    return check(case, status, text, stderr, raw), (elapsed, cpu), text, stderr


def run_tool(cmd, timeout):
    """tools/run's (status, stderr, CPU seconds of it and its QEMU); status
    124 when it outlives timeout."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    killed = threading.Event()
    timer = threading.Timer(timeout, lambda: (killed.set(), p.kill()))
    timer.start()
    try:
        stderr = p.stderr.read().decode(errors="replace")
        _, raw_status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(raw_status)
    finally:
        timer.cancel()
    cpu = usage.ru_utime + usage.ru_stime
    if killed.is_set():
        return 124, "run_boot_tests: tools/run itself did not end\n", cpu
    return p.returncode, stderr, cpu


def runs_alone(case):
    """Whether a case's QEMU runs more than one host thread (tools/run's
    host_threads), and so runs after the others, one at a time (in make
    test, when the other lane is done): beside another boot on a 2-CPU
    host its vCPUs wait on each other for host threads that are not
    running (smp-xen-pvh-2-lapic: 84 s beside another boot, 10 s alone)."""
    return run_args.host_threads(case["args"]) > 1


def runs_early(case):
    """Whether a case runs a domU through a lifecycle plan (tools/run
    --lifecycle), and so starts before the other cases that share the
    pool: its minute or so of boot, steps and watchdogs then runs beside
    the many short cases instead of after them, at the end of the run."""
    return "--lifecycle" in case["args"] and case["status"] != 2


def main():
    p = argparse.ArgumentParser(description="Run patchbay's boot test cases.")
    p.add_argument("-j", type=int, default=2, metavar="N",
                   help="cases run at once (default 2)")
    p.add_argument("-k", action="append", default=[], metavar="PATTERN",
                   help="run only cases whose name contains PATTERN (repeatable)")
    p.add_argument("--name", action="append", default=[], metavar="NAME",
                   help="run only the case called NAME (repeatable; with -k, either)")
    p.add_argument("--icount", choices=("only", "skip"),
                   help="run only the cases under --icount, or only the others (make "
                   "test runs the first beside gen-docs --check: neither depends on the "
                   "host's load)")
    p.add_argument("--kvm", choices=("only", "skip"),
                   help="run only the cases through the --kvm door, or only the others (make "
                   "test runs them in the other lane, to even out the two)")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--image", default=os.path.join(build_dir(), "patchbay.elf"),
                   help="kernel image (default $BUILD/patchbay.elf)")
    args = p.parse_args()

    try:
        cases = [normalise(c) for c in CASES]
    except ValueError as e:
        print("run_boot_tests: " + str(e), file=sys.stderr)
        return 2
    names = [c["name"] for c in cases]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        print("run_boot_tests: duplicate case names: " + " ".join(dups), file=sys.stderr)
        return 2
    unknown = sorted(set(args.name) - set(names))
    if unknown:
        print("run_boot_tests: no case is called " + " ".join(unknown), file=sys.stderr)
        return 2
    if args.k or args.name:
        cases = [c for c in cases
                 if c["name"] in args.name or any(k in c["name"] for k in args.k)]
    if args.icount:
        cases = [c for c in cases if ("--icount" in c["args"]) == (args.icount == "only")]
    if args.kvm:
        cases = [c for c in cases if ("--kvm" in c["args"]) == (args.kvm == "only")]
    if args.list:
        for c in cases:
            line = " ".join([c["name"]] + list(c["args"]))
            shown = c["cmdline"]
            if len(shown) > 100 or not shown.isprintable():
                shown = "(%d bytes) %r..." % (len(shown.encode(errors="surrogateescape")),
                                             shown[:40])
            print(line + (" -- " + shown if c["cmdline"] else ""))
        return 0
    if not cases:
        print("run_boot_tests: no case matches " + " ".join(args.k + args.name),
              file=sys.stderr)
        return 2
    if not os.path.isfile(args.image):
        print("run_boot_tests: %s not found; build it with make" % args.image, file=sys.stderr)
        return 2

    logdir = os.path.join(build_dir(), "test-logs")
    os.makedirs(logdir, exist_ok=True)
    lock = threading.Lock()
    passed = failed = 0

    def one(case):
        nonlocal passed, failed
        reasons, (elapsed, cpu), text, stderr = run_case(case, args.image, logdir)
        with lock:
            done = "[%d/%d]" % (passed + failed + 1, len(cases))
            if not reasons:
                passed += 1
                print("%s PASS %s (%.1f s, %.1f s of CPU)" % (done, case["name"], elapsed, cpu))
            else:
                failed += 1
                print("%s FAIL %s: %s" % (done, case["name"], "; ".join(reasons)))
                tail = [line for line in text.rstrip("\n").split("\n")][-TAIL_LINES:]
                for line in tail:
                    print("    | " + line)
                for line in stderr.strip().splitlines():
                    print("    ! " + line)
            sys.stdout.flush()

    pooled = [c for c in cases if not runs_alone(c)]
    with ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
        for f in [pool.submit(one, c) for c in sorted(pooled, key=lambda c: not runs_early(c))]:
            f.result()
    for case in [c for c in cases if runs_alone(c)]:
        one(case)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
