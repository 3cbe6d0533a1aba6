"""Boot patchbay under QEMU and stream its serial console to stdout.

  tools/run [--iso] [--xen] [--domu] [--kvm] [--pvh] [--linux] [--smp N]
            [--host-cpus M] [--mem MIB] [--dom0-mem MIB] [--domu-mem MIB]
            [--cpu MODEL] [--icount] [--tcg-thread T] [--timeout S] [--image PATH]
            [--log FILE] [--quiet] [--verbose] [--lifecycle PLAN] [--gdb]
            [--disk FILE[:ro]] [--disk-ro] [--disk-new SIZE] [--disk-detach] [--net]
            [--net-count N] [--net-size S] [--net-window W] [--net-interval-ms M]
            [--net-detach] [--net-flood N] [--net-peer P]
            [-- KERNEL CMDLINE...]

Boots natively (PVH entry) by default, or through another door: a GRUB
ISO, dom0 or a domU of Xen, a guest of KVM, or Debian's Linux in
patchbay's place. Every run ends with one verdict line and an exit status
saying how it ended. docs/run.md is the reference for the options,
verdicts and statuses; `tools/run --help` says the same in short.

This module (tools/pbtools/run/main.py) turns how the run ended into the
status; args.py beside it parses the arguments, qemu.py runs QEMU, each
door's own pieces are in iso.py, xen.py, domu.py, kvm.py and linux.py,
and what they share in common.py.
"""

import os
import shutil
import signal
import sys
import tempfile

from pbtools.paths import build_dir
from pbtools.run.args import check_cmdline, parse_args
from pbtools.run.common import (KERNEL_STATUS_MAX, QEMU, STATUS_DISK_CHECK,
                                STATUS_LIFECYCLE_FAILED, STATUS_NO_EXIT, STATUS_NOT_STARTED,
                                STATUS_TIMEOUT, VERDICT, Console, fail, qemu_error)
from pbtools.run.disk import disk_check, prepare_disk
from pbtools.run.domu import DomuConsole, domu_outcome
from pbtools.run.gdb import GDB_KILLED, announce, gdb_killed, gdb_listen
from pbtools.run.iso import grub_verdict
from pbtools.run.kvm import KvmConsole, kvm_outcome
from pbtools.run.net import prepare_net
from pbtools.run.qemu import qemu_command, run_qemu
from pbtools.run.xen import xen_verdict


def interrupted(signum, frame):
    """SIGTERM and SIGHUP end a run as Ctrl-C does."""
    raise KeyboardInterrupt


def main():
    """Check the arguments, boot, and exit with the outcome's status, after
    writing a verdict line when the kernel could not."""
    # QEMU runs in its own session, so a signal meant for us would not reach
    # it: turn SIGTERM and SIGHUP into the same clean-up as Ctrl-C.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupted)
    args = parse_args(sys.argv[1:])
    door = ("Xen" if args.xen else "domU" if args.domu else "ISO" if args.iso else
            "KVM" if args.kvm else "PVH")
    problem = check_cmdline(door, os.fsencode(args.cmdline))
    if problem:
        fail(problem, 2)
    default = ("linux", "linux-bench", "make linux-bench") if args.linux else (
        "patchbay.elf", "make")
    image = args.image or os.path.join(build_dir(), *default[:-1])
    if not os.path.isfile(image):
        fail("%s not found; build it with %s" % (image, default[-1]), 2)
    image = os.path.abspath(image)
    if shutil.which(QEMU) is None:
        fail("%s not found; run tools/setup" % QEMU, 2)
    prepare_disk(args)
    prepare_net(args)

    rundir = os.path.join(build_dir(), "run")
    os.makedirs(rundir, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="run-", dir=rundir)
    console = Console(args.quiet, args.log)
    # What QEMU's serial port writes: under --domu, more than is shown.
    stream = (DomuConsole(console, args.verbose, args.log) if args.domu else
              KvmConsole(console, args.verbose, args.log, workdir) if args.kvm else console)
    try:
        if args.gdb:
            args.gdb_socket = gdb_listen()
        cmd = qemu_command(args, image, workdir)
        if args.gdb:
            announce(args.gdb_socket, image, args.timeout)
        status, end, errors = run_qemu(cmd, args, stream, workdir)
        if stream is not console:
            stream.flush()
        code, reason, message = outcome(args, image, status, end, errors, stream.data,
                                        getattr(stream, "l1", None) or b"")
        code, reason, message = check_disk(args, workdir, console, (code, reason, message))
        # The kernel prints its own verdict; when it could not, say what
        # happened in the same form, so every run ends with one. A failed
        # lifecycle plan is the door's verdict even after a PASS of a guest
        # that ended its run before the plan was through: the last counts.
        if reason and (not VERDICT.search(console.data) or code == STATUS_LIFECYCLE_FAILED):
            newline = b"" if console.data.endswith(b"\n") or not console.data else b"\n"
            console.write(newline + b"patchbay: FAIL " + reason.encode() + b"\n")
    except KeyboardInterrupt:
        print("\nrun: interrupted", file=sys.stderr)
        sys.exit(130)
    finally:
        if stream is not console:
            stream.close()
        console.close()
        if getattr(args, "template", None):
            args.template.close()
        shutil.rmtree(workdir, ignore_errors=True)
    if message:
        print("run: " + message, file=sys.stderr)
    sys.exit(code)


def check_disk(args, workdir, console, result):
    """--disk: the host's check of the file, its line on the console; a
    run that passed fails with STATUS_DISK_CHECK if the check does, and
    its verdict is then the last on the console (tools/pbtools/run/disk.py)."""
    passed, line = disk_check(args, workdir, bytes(console.data))
    if line is None:
        return result
    newline = b"" if console.data.endswith(b"\n") or not console.data else b"\n"
    console.write(newline + line.encode() + b"\n")
    if passed or result[0] != 0:
        return result
    what = "disk-check: the host found what the guest flushed wrong or unflushed"
    console.write(b"patchbay: FAIL " + what.encode() + b"\n")
    return STATUS_DISK_CHECK, None, what


def outcome(args, image, status, end, errors, data, l1=b""):
    """(exit status, verdict reason, message for stderr) of a finished run;
    l1 is --kvm's L1 console."""
    if args.domu:
        return domu_outcome(args, image, status, end, errors, data)
    if args.kvm:
        return kvm_outcome(args, status, errors, data, l1)
    if status is None:
        what = "timed out after %g s" % args.timeout
        return STATUS_TIMEOUT, what, what
    if end is not None:
        if args.xen:
            code, reason = xen_verdict(data, end, image, args.pvh)
        else:
            code, reason = STATUS_NOT_STARTED, grub_verdict(data)
        return code, reason, "%s (no kernel exit)" % reason
    if args.gdb and gdb_killed(status, errors):
        return STATUS_NO_EXIT, GDB_KILLED, GDB_KILLED
    if status == 1 and qemu_error(errors):
        what = "QEMU failed: %s" % qemu_error(errors)[0]
        return STATUS_NO_EXIT, what, what
    if status > 0 and status & 1:
        v = status >> 1
        if v == 0:
            return 0, "", None
        # The kernel's verdict line is its own to print: none is added.
        return min(v, KERNEL_STATUS_MAX), None, "kernel failed with status %d" % v
    return (STATUS_NO_EXIT, "QEMU ended without a kernel exit",
            "QEMU exited with status %d without a kernel exit "
            "(crash, reset or triple fault?)" % status)
