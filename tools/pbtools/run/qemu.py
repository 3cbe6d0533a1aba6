"""tools/run's QEMU: its command line (the machine every door shares,
then the door's own arguments), and the loop that starts it, streams its
console, spots the line after which nothing more will happen, and stops
it at the end or the time-out."""

import os
import selectors
import shlex
import signal
import subprocess
import sys
import time

from pbtools.run import cpu_slots, dom0_template
from pbtools.run.common import DEBUG_EXIT_PORT, QEMU, fail
from pbtools.run.disk import disk_qemu_args
from pbtools.run.dom0_template import Template, run_disk_args
from pbtools.run.domu import DOMU_END, domu_args
from pbtools.run.gdb import gdb_qemu_args
from pbtools.run.iso import grub_end, iso_args
from pbtools.run.kvm import kvm_args
from pbtools.run.linux import linux_args
from pbtools.run.net import NetClient, net_qemu_args
from pbtools.run.xen import XEN_END, xen_args

END_GRACE = 1.0  # seconds of further output collected after an end line


def machine_args(args):
    """QEMU's arguments for the machine every door shares. One CPU (the
    default) gives exactly the arguments of before --smp, so figures stay
    the same; more run as --tcg-thread says."""
    accel = "tcg"
    if args.qemu_cpus > 1:
        accel += ",thread=" + args.tcg_thread
    cmd = ["-accel", accel, "-cpu", args.cpu, "-m", str(args.qemu_mem)]
    if args.qemu_cpus > 1:
        cmd += ["-smp", str(args.qemu_cpus)]
    return cmd + ["-display", "none", "-serial", "stdio", "-monitor", "none",
                  "-nic", "none", "-no-reboot",
                  "-device", "isa-debug-exit,iobase=%#x,iosize=4" % DEBUG_EXIT_PORT]


def qemu_command(args, image, workdir):
    """QEMU's command line: the machine every door shares, then the door's."""
    cmd = [QEMU] + machine_args(args)
    if args.icount:
        # One virtual ns per instruction; with sleep=off an idle guest's
        # clock jumps to the next timer instead of waiting in real time.
        cmd += ["-icount", "shift=0,sleep=off"]
        # The RTC otherwise follows the host's clock: Xen waits for its next
        # second at boot, so how long it waits, and so which timer ticks land
        # in which benchmark, would depend on the host's wall time.
        cmd += ["-rtc", "base=2026-01-01T00:00:00,clock=vm"]
    if args.linux and not (args.domu or args.kvm):
        cmd += linux_args(args, image, workdir)
    elif args.xen:
        cmd += xen_args(args, image, workdir)
    elif args.domu:
        cmd += domu_args(args, image, workdir)
    elif args.kvm:
        cmd += kvm_args(args, image, workdir)
    elif args.iso:
        cmd += iso_args(args, image, workdir)
    else:
        cmd += ["-kernel", image]
        if args.cmdline:
            cmd += ["-append", args.cmdline]
    if args.gdb:
        cmd += gdb_qemu_args(args.gdb_socket)
    cmd += disk_qemu_args(args, workdir)
    if args.domu:
        cmd += run_disk_args(args, image, workdir)
    cmd += net_qemu_args(args)
    cmd += shlex.split(os.environ.get("PATCHBAY_QEMU_EXTRA", ""))
    return cmd + template_words(args, cmd, workdir)


def template_words(args, cmd, workdir):
    """A --domu run's dom0 template (tools/pbtools/run/dom0_template.py), as
    args.template, and the words QEMU needs for it; else the run's files
    go on the run disk at once."""
    args.template = None
    if not dom0_template.applies(args):
        if args.domu:
            args.run_files()
        return []
    args.template = Template(cmd, args, workdir, args.run_files)
    return args.template.qemu_words()


def stop(proc):
    """End QEMU's whole process group: politely first, then for good."""
    for sig, wait in ((signal.SIGTERM, 2), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            pass


def end_line(args, tail, data):
    """The match, in tail (the console's last bytes; data is all of it), of
    Xen's or GRUB's line after which nothing more will happen, or None."""
    if args.xen:
        return XEN_END.search(tail)
    if args.domu:
        return DOMU_END.search(tail)
    if args.iso:
        return grub_end(tail, data)
    return None


def run_qemu(cmd, args, console, workdir):
    """Run QEMU; return (status or None on time-out, the end line seen, QEMU's
    stderr). The end line is Xen's or GRUB's, after which nothing more will
    happen: QEMU is stopped END_GRACE seconds later instead of at the time-out.
    QEMU starts once the machine has a CPU for each of its host threads
    (tools/pbtools/run/cpu_slots.py); the time-out counts from then. Under --gdb it
    starts at once: it stays stopped until a debugger, which is waiting
    for its port, drives it."""
    threads = 0 if args.gdb else args.qemu_cpus if args.tcg_thread == "multi" else 1
    with cpu_slots.hold(threads, lambda s: print("run: waited %.0f s for %d free CPU%s"
                                                 % (s, threads, "s" if threads > 1 else ""),
                                                 file=sys.stderr)):
        return start_and_watch(cmd, args, console, workdir)


def start_and_watch(cmd, args, console, workdir):
    """run_qemu()'s QEMU, started and watched."""
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True, cwd=workdir,
                                pass_fds=[args.gdb_socket.fileno()] if args.gdb else [])
    except OSError as e:
        fail("cannot run %s: %s; run tools/setup" % (QEMU, e.strerror), 2)
    client = NetClient(args, console) if args.net and not args.domu else None
    if getattr(args, "template", None):
        args.template.started(console)
    try:
        return watch(proc, args, console, client)
    except KeyboardInterrupt:
        stop(proc)
        raise
    finally:
        if proc.returncode is None:
            stop(proc)
        if client:
            client.stop()


def watch(proc, args, console, client=None):
    """run_qemu()'s loop: QEMU's output to console (its stderr to ours) until
    it ends, an end line's grace runs out, or the time-out; with --net, the
    host's client beside it (tools/pbtools/run/net.py)."""
    deadline = time.monotonic() + args.timeout
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "out")
    sel.register(proc.stderr, selectors.EVENT_READ, "err")
    errors = bytearray()
    tail = b""          # the last bytes of console output, to spot an end line
    end = None
    open_pipes = 2
    try:
        while open_pipes:
            now = time.monotonic()
            if now >= deadline:
                stop(proc)
                return (None if end is None else proc.returncode), end, bytes(errors)
            for key, _ in sel.select(deadline - now):
                if key.data == "client":
                    client.read(sel)
                    continue
                data = os.read(key.fd, 65536)
                if not data:
                    sel.unregister(key.fileobj)
                    open_pipes -= 1
                elif key.data == "err":
                    errors += data
                    sys.stderr.buffer.write(data)
                    sys.stderr.flush()
                else:
                    console.write(data)
                    if getattr(args, "template", None):
                        args.template.wrote(data)
                    if client:
                        client.guest_wrote(data, sel)
                    if end is None:
                        tail = (tail + data)[-4096:]
                        m = end_line(args, tail, console.data)
                        if m:
                            end = m.group(0).strip().decode(errors="replace")
                            deadline = min(deadline, time.monotonic() + END_GRACE)
    finally:
        sel.close()
    if end is not None:
        # QEMU may still be running (Xen halts for good, or waits 5 s).
        try:
            proc.wait(0.1)
        except subprocess.TimeoutExpired:
            stop(proc)
            return proc.returncode, end, bytes(errors)
    try:
        proc.wait(max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        stop(proc)
        return None, None, bytes(errors)
    return proc.returncode, end, bytes(errors)
