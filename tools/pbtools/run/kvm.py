"""tools/run --kvm: the kernel as an L2 guest of KVM. QEMU (TCG, L0) runs
Debian's Linux (L1, the kernel tools/fetch-domu fetches) with an
initramfs that tools/fetch-kvm builds: KVM's modules and Debian's own
qemu-system-x86_64, which /init (tools/kvm/init) runs with -accel kvm
-cpu host on the image, its serial console on L1's first port. TCG's -cpu
max emulates AMD's SVM with nested paging, which L1's kvm-amd runs on.
With --linux the guest is Debian's Linux with the benchmark program as
its /init, as natively (tools/pbtools/run/linux.py).

L1's own console (its kernel's lines and /init's) is its second port,
which L0's QEMU writes to a file: the guest's panic or verdict on the
first port is the guest's, never taken for L1's. /init ends L0's QEMU
through isa-debug-exit with the guest's status and says so in
KVM_END_LINE first; a host without SVM (a --cpu model that lacks it)
ends the run at once with STATUS_NOT_STARTED. This module builds the
run's archive and the L2 QEMU's arguments, shows L1's lines after the
guest's, and turns how the run ended into tools/run's outcome."""

import os
import re
import subprocess
import sys

from pbtools.paths import ROOT, build_dir
from pbtools.run.common import (DEBUG_EXIT_PORT, KERNEL_STATUS_MAX, STATUS_DOM0_FAILED,
                                STATUS_NO_EXIT, STATUS_NOT_STARTED, STATUS_TIMEOUT, VERDICT,
                                cpio_newc, fail, guest_image, in_workdir, qemu_error)
from pbtools.run.domu import DomuConsole, the_one
from pbtools.run.linux import linux_initrd, native_cmdline

KVM_END_LINE = re.compile(r"^patchbay-kvm: end (\d+) ([^\r\n]*)", re.MULTILINE)
L1_PANIC = re.compile(r"Kernel panic - not syncing[^\r\n]*")
# L1's console, a file in the run's directory that L0's QEMU writes.
L1_LOG = "l1.log"
# L1's memory beyond the guest's: its kernel, the 62 MB initramfs in its
# rootfs and QEMU's own (1024 MiB held a 128 MiB guest, by hand).
L1_MEM = 896
# Linux's options for L1: its console on the second port, no log below
# errors; panic=-1 reboots at once, and -no-reboot ends the run.
L1_CMDLINE = "console=ttyS1 quiet loglevel=3 rdinit=/init panic=-1"


def fetch_kvm():
    """The L1 kernel and initramfs, once tools/fetch-kvm has checked the
    cache (or fetched and built what is missing, or said why it cannot)."""
    rc = subprocess.call([os.path.join(ROOT, "tools", "fetch-kvm")],
                         stdin=subprocess.DEVNULL, stdout=sys.stderr)
    vmlinux = os.path.join(build_dir(), "domu", "vmlinux")
    initrd = os.path.join(build_dir(), "kvm", "initrd.cpio")
    if rc != 0 or not os.path.exists(vmlinux) or not os.path.exists(initrd):
        fail("tools/fetch-kvm failed; the L1 host for --kvm is not available", 2)
    return vmlinux, initrd


def l2_qemu_args(args):
    """The L2 QEMU's arguments, as /init passes them: KVM with L1's CPU
    (TCG's max, SVM included), the machine every door shares otherwise,
    and the guest: the image, or with --linux Debian's kernel and the
    program's initramfs."""
    cmd = ["-accel", "kvm", "-cpu", "host", "-m", str(args.mem)]
    if args.smp > 1:
        cmd += ["-smp", str(args.smp)]
    cmd += ["-display", "none", "-vga", "none", "-serial", "stdio", "-monitor", "none",
            "-nic", "none", "-no-reboot",
            "-device", "isa-debug-exit,iobase=%#x,iosize=4" % DEBUG_EXIT_PORT]
    if args.linux:
        return cmd + ["-kernel", "/patchbay/vmlinuz", "-initrd", "/patchbay/linux.cpio",
                      "-append", native_cmdline(args)]
    cmd += ["-kernel", "/patchbay/patchbay.elf"]
    if args.cmdline:
        cmd += ["-append", args.cmdline]
    return cmd


def guest_files(args, image, workdir):
    """The run's archive entries for the L2 guest: the image, or with
    --linux Debian's vmlinuz (the kernel natively booted, compressed) and
    the program's initramfs."""
    if args.linux:
        vmlinuz = the_one(os.path.join(build_dir(), "domu", "root"), "boot/vmlinuz-*")
        with open(vmlinuz, "rb") as f:
            kernel = f.read()
        return [("patchbay/vmlinuz", 0o100644, kernel),
                ("patchbay/linux.cpio", 0o100644, linux_initrd(args, image))]
    with open(os.path.join(workdir, guest_image(workdir, image)), "rb") as f:
        return [("patchbay/patchbay.elf", 0o100644, f.read())]


def kvm_args(args, image, workdir):
    """L0's QEMU arguments for --kvm: L1's kernel, its initramfs (the base
    and this run's archive: the guest, the L2 QEMU's arguments, the exit
    port), command line and console port."""
    vmlinux, base = fetch_kvm()
    words = l2_qemu_args(args)
    if any("\n" in w for w in words):
        fail("--kvm passes the kernel command line as one line: it may not hold a newline", 2)
    overlay = cpio_newc([("patchbay", 0o040755, b"")] + guest_files(args, image, workdir) +
                        [("patchbay/qemu.args", 0o100644,
                          "".join(w + "\n" for w in words).encode()),
                         ("patchbay/params", 0o100644, b"EXIT_PORT=%d\n" % DEBUG_EXIT_PORT)])
    with open(base, "rb") as f:
        data = f.read()
    with open(os.path.join(workdir, "initrd.cpio"), "wb") as out:
        # Linux takes the next archive at a 4-byte boundary after the zeros.
        out.write(data + b"\0" * (-len(data) % 4) + overlay)
    return ["-kernel", in_workdir(workdir, vmlinux, "vmlinux"), "-initrd", "initrd.cpio",
            "-append", L1_CMDLINE, "-serial", "file:" + L1_LOG]


class KvmConsole(DomuConsole):
    """--kvm's serial stream, the guest's alone, shown as it comes; at the
    end L1's console too: its "kvm-door:" lines shown after the guest's
    (all of them with --verbose), all of it in l1 and FILE.full.log."""

    def __init__(self, console, verbose, log_path, workdir):
        super().__init__(console, verbose, log_path)
        self.l1_path = os.path.join(workdir, L1_LOG)
        self.l1 = None

    def shown(self, line):
        return line.replace(b"\r\n", b"\n")

    def flush(self):
        """Shows the guest's last line, then (once) L1's lines."""
        super().flush()
        if self.l1 is not None:
            return
        try:
            with open(self.l1_path, "rb") as f:
                self.l1 = f.read().replace(b"\r\n", b"\n")
        except OSError:
            self.l1 = b""
        if self.full is not None:
            self.full.write(self.l1)
        lines = self.l1.splitlines(keepends=True)
        shown = b"".join(line for line in lines if self.verbose or line.startswith(b"kvm-door: "))
        if shown:
            newline = b"" if self.console.data.endswith(b"\n") or not self.console.data else b"\n"
            self.console.write(newline + shown + (b"" if shown.endswith(b"\n") else b"\n"))


def kvm_outcome(args, status, errors, data, l1):
    """outcome() of a --kvm run; data is all that L0's first serial port
    wrote (the guest's), l1 (bytes) L1's console."""
    text = l1.decode(errors="replace")
    if status is None:
        # L1's console is quiet until its /init: nothing there means L1
        # never got that far, which the guest's console cannot show.
        what = "timed out after %g s%s" % (args.timeout, "" if text.strip() else
                                            " (L1 printed nothing: it never reached its /init)")
        return STATUS_TIMEOUT, what, what
    panic = L1_PANIC.search(text)
    if panic:
        what = "L1 Linux: " + panic.group(0).strip()
        return STATUS_DOM0_FAILED, what, what
    if status == 1 and qemu_error(errors):
        what = "QEMU failed: %s" % qemu_error(errors)[0]
        return STATUS_NO_EXIT, what, what
    ends = KVM_END_LINE.findall(text)
    v = status >> 1
    if not (status & 1 and ends and int(ends[-1][0]) == v):
        return (STATUS_NO_EXIT, "QEMU ended without a kernel exit",
                "QEMU exited with status %d without the kvm door's end line" % status)
    why = ends[-1][1]
    if v <= KERNEL_STATUS_MAX:
        reason = None if VERDICT.search(data) else (
            "status %d, but no verdict line reached the console" % v)
        if v == 0:
            return 0, reason or "", None
        return v, reason, "kernel failed with status %d" % v
    if v in (STATUS_NOT_STARTED, STATUS_NO_EXIT, STATUS_DOM0_FAILED):
        return v, "kvm: " + why, "kvm: " + why
    return STATUS_NO_EXIT, "kvm: " + why, "kvm: " + why
