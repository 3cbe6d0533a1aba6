#!/usr/bin/env python3
"""tools/run's CPU options, without booting: --smp N and --host-cpus M
become the QEMU, Xen and xl arguments tools/run --help promises; --smp 1
changes no argument of any door; a bad value, or --linux with a door or
CPUs it does not have, is refused with status 2 and one error line. Ends
with "N passed, N failed"."""

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "tools", "run")
sys.dont_write_bytecode = True
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": %s" % detail))


def load_run():
    """tools/run as a module (it has no .py name); main() does not run."""
    loader = importlib.machinery.SourceFileLoader("tools_run", RUN)
    spec = importlib.util.spec_from_loader("tools_run", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def refused(argv, message):
    """tools/run argv exits 2 before QEMU, its last stderr line message."""
    p = subprocess.run([sys.executable, RUN] + argv, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=30)
    errors = [line for line in p.stderr.splitlines() if "error" in line]
    check("%s is refused" % " ".join(argv),
          p.returncode == 2 and errors == ["tools/run: error: " + message]
          and not p.stdout,
          "status %d, stderr %r" % (p.returncode, p.stderr))


def main():
    run = load_run()
    import run_domu
    import run_xen

    def args(*argv):
        return run.parse_args(list(argv))

    # --smp 1 (and --host-cpus 1) is the run of before: the same arguments.
    with tempfile.TemporaryDirectory() as d:
        image = os.path.join(d, "patchbay.elf")
        for door in ([], ["--icount"]):
            base = run.qemu_command(args(*door), image, d)
            for extra in (["--smp", "1"],):
                got = run.qemu_command(args(*(door + extra)), image, d)
                check("PVH %s QEMU command = without it" % " ".join(door + extra),
                      got == base, "%s != %s" % (got, base))
    for door in (["--iso"], ["--xen"], ["--domu"]):
        base = run.machine_args(args(*door))
        same = [["--smp", "1"]] + ([["--smp", "1", "--host-cpus", "1"]]
                                   if door != ["--iso"] else [])
        for extra in same:
            got = run.machine_args(args(*(door + extra)))
            check("%s machine = without it" % " ".join(door + extra), got == base,
                  "%s != %s" % (got, base))
    base = run.machine_args(args())
    check("one CPU: -accel tcg, no -smp",
          base[:2] == ["-accel", "tcg"] and "-smp" not in base, base)
    check("--xen --smp 1: Xen's line as before",
          run_xen.xen_cmdline(args("--xen", "--smp", "1")) ==
          "console=com1 com1=115200 dom0_mem=64M guest_loglvl=all loglvl=all")
    check("--domu --smp 1: vcpus = 1",
          b"\nvcpus = 1\n" in run_domu.domu_config(args("--domu", "--smp", "1")))

    # Several CPUs: where each door puts N and M.
    def machine(*argv):
        a = run.machine_args(args(*argv))
        smp = a[a.index("-smp") + 1] if "-smp" in a else None
        return a[a.index("-accel") + 1], smp

    check("--smp 4: QEMU -smp 4, multi-threaded",
          machine("--smp", "4") == ("tcg,thread=multi", "4"), machine("--smp", "4"))
    check("--iso --smp 2: QEMU -smp 2",
          machine("--iso", "--smp", "2") == ("tcg,thread=multi", "2"))
    check("--smp 2 --icount: single-threaded",
          machine("--smp", "2", "--icount") == ("tcg,thread=single", "2"))
    check("--xen --smp 2: QEMU -smp 2 (M defaults to N)",
          machine("--xen", "--smp", "2") == ("tcg,thread=multi", "2"))
    check("--xen --smp 2 --host-cpus 1: one QEMU CPU",
          machine("--xen", "--smp", "2", "--host-cpus", "1") == ("tcg", None))
    check("--xen --host-cpus 3: QEMU -smp 3",
          machine("--xen", "--host-cpus", "3") == ("tcg,thread=multi", "3"))
    check("--domu --smp 2 --host-cpus 4: QEMU -smp 4",
          machine("--domu", "--smp", "2", "--host-cpus", "4") == ("tcg,thread=multi", "4"))
    for argv, want in ((["--smp", "4"], " dom0_max_vcpus=4 "),
                       (["--smp", "2", "--host-cpus", "1"], " dom0_max_vcpus=2 "),
                       (["--host-cpus", "2"], " dom0_max_vcpus=1 ")):
        line = run_xen.xen_cmdline(args("--xen", *argv))
        check("--xen %s: Xen gets%s" % (" ".join(argv), want.rstrip()), want in line, line)
    for argv in (["--smp", "3"], ["--smp", "3", "--host-cpus", "1"]):
        a = args("--domu", *argv)
        check("--domu %s: vcpus = 3, dom0 keeps 1" % " ".join(argv),
              b"\nvcpus = 3\n" in run_domu.domu_config(a)
              and " dom0_max_vcpus=1 " in run_domu.linux_dom0_xen_cmdline(a))

    # Bad values: one error line, status 2, before anything starts.
    for value in ("0", "9", "x", "-1", "1.5", ""):
        refused(["--smp", value],
                "argument --smp: must be a whole number from 1 to 8, not %r" % value)
    refused(["--xen", "--host-cpus", "9"],
            "argument --host-cpus: must be a whole number from 1 to 8, not '9'")
    for door in ([], ["--iso"]):
        refused(door + ["--host-cpus", "2"],
                "--host-cpus applies to --xen and --domu only "
                "(natively, --smp N is QEMU's CPU count)")

    # --linux boots Debian's kernel natively or as dom0, on one CPU.
    for extra in (["--iso"], ["--domu"], ["--smp", "2"], ["--xen", "--host-cpus", "2"]):
        refused(["--linux"] + extra, "--linux boots natively or, with --xen, as dom0, on one CPU")

    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
