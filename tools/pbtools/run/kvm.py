"""tools/run --kvm: the kernel as an L2 guest of KVM. QEMU (TCG, L0) runs
Debian's Linux (L1, the kernel tools/fetch-domu fetches) with an
initramfs that tools/fetch-kvm builds: KVM's modules and Debian's own
qemu-system-x86_64, which /init (tools/kvm/init) runs with -accel kvm
-cpu host on the image, its serial console on L1's. TCG's -cpu max
emulates AMD's SVM with nested paging, which L1's kvm-amd runs on.

/init ends L0's QEMU through isa-debug-exit with the guest's status and
says so in KVM_END_LINE first; a host without SVM (a --cpu model that
lacks it) ends the run at once with STATUS_NOT_STARTED. This module
builds the run's archive and the L2 QEMU's arguments, hides the door's
own end line, and turns how the run ended into tools/run's outcome."""

import os
import re
import subprocess
import sys

from pbtools.paths import ROOT, build_dir
from pbtools.run.common import (DEBUG_EXIT_PORT, KERNEL_STATUS_MAX, STATUS_DOM0_FAILED,
                                STATUS_NO_EXIT, STATUS_NOT_STARTED, STATUS_TIMEOUT, VERDICT,
                                cpio_newc, fail, guest_image, in_workdir, qemu_error)
from pbtools.run.domu import DomuConsole

KVM_END_LINE = re.compile(r"^patchbay-kvm: end (\d+) ([^\r\n]*)", re.MULTILINE)
KVM_END = re.compile(rb"Kernel panic - not syncing[^\r\n]*")
# L1's memory beyond the guest's: its kernel, the 62 MB initramfs in its
# rootfs and QEMU's own (1024 MiB held a 128 MiB guest, by hand).
L1_MEM = 896
# Linux's options for L1: no log below errors on the console the guest
# shares; panic=-1 reboots at once, and -no-reboot ends the run.
L1_CMDLINE = "console=ttyS0 quiet loglevel=3 rdinit=/init panic=-1"


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
    (TCG's max, SVM included), the machine every door shares otherwise."""
    cmd = ["-accel", "kvm", "-cpu", "host", "-m", str(args.mem)]
    if args.smp > 1:
        cmd += ["-smp", str(args.smp)]
    cmd += ["-display", "none", "-vga", "none", "-serial", "stdio", "-monitor", "none",
            "-nic", "none", "-no-reboot",
            "-device", "isa-debug-exit,iobase=%#x,iosize=4" % DEBUG_EXIT_PORT,
            "-kernel", "/patchbay/patchbay.elf"]
    if args.cmdline:
        cmd += ["-append", args.cmdline]
    return cmd


def kvm_args(args, image, workdir):
    """L0's QEMU arguments for --kvm: L1's kernel, its initramfs (the base
    and this run's archive: the image, the L2 QEMU's arguments, the exit
    port) and command line."""
    vmlinux, base = fetch_kvm()
    with open(os.path.join(workdir, guest_image(workdir, image)), "rb") as f:
        elf = f.read()
    words = l2_qemu_args(args)
    if any("\n" in w for w in words):
        fail("--kvm passes the kernel command line as one line: it may not hold a newline", 2)
    overlay = cpio_newc([("patchbay", 0o040755, b""),
                         ("patchbay/patchbay.elf", 0o100644, elf),
                         ("patchbay/qemu.args", 0o100644,
                          "".join(w + "\n" for w in words).encode()),
                         ("patchbay/params", 0o100644, b"EXIT_PORT=%d\n" % DEBUG_EXIT_PORT)])
    with open(base, "rb") as f:
        data = f.read()
    with open(os.path.join(workdir, "initrd.cpio"), "wb") as out:
        # Linux takes the next archive at a 4-byte boundary after the zeros.
        out.write(data + b"\0" * (-len(data) % 4) + overlay)
    return ["-kernel", in_workdir(workdir, vmlinux, "vmlinux"), "-initrd", "initrd.cpio",
            "-append", L1_CMDLINE]


class KvmConsole(DomuConsole):
    """--kvm's serial stream: the guest's bytes and L1's lines together;
    shows all but the door's end line (which --verbose shows too)."""

    def shown(self, line):
        if not self.verbose and KVM_END_LINE.match(line.decode(errors="replace")):
            return b""
        return line.replace(b"\r\n", b"\n")


def kvm_outcome(args, status, end, errors, data):
    """outcome() of a --kvm run; data is all that L0's serial port wrote."""
    text = data.decode(errors="replace")
    if status is None:
        what = "timed out after %g s" % args.timeout
        return STATUS_TIMEOUT, what, what
    if end is not None:
        what = "L1 Linux: " + end
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
