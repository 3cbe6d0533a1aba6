"""tools/run --linux: Debian's own Linux kernel with patchbay's benchmark
program for Linux (linux-user/bench/, built by `make linux-bench`) as the /init
of a one-file initramfs: natively through QEMU's PVH loader, as this
kernel boots, or with --xen as Xen's dom0, as this kernel runs there. The
kernel is the one tools/fetch-domu fetches for --domu's dom0 (one cache);
with --kvm the same kernel and initramfs boot as KVM's L2 guest
(tools/pbtools/run/kvm.py). The program prints patchbay's result lines and
verdict, and ends QEMU through isa-debug-exit (a byte to /dev/port), so
tools/run's outcomes and statuses are those of every other door. With
--disk or --net natively the initramfs also holds Linux's virtio modules
for the device, in the order the program loads them."""

import os
import subprocess
import sys

from pbtools.paths import ROOT, build_dir
from pbtools.run.common import cpio_newc, fail, in_workdir
from pbtools.run.domu import linux_dom0_xen_cmdline, the_one
from pbtools.run.xen import fetch_xen

# Linux's own options; the program's arguments follow "--", which Linux
# hands to /init untouched. panic=-1 reboots at once, and QEMU's
# -no-reboot (or Xen) then ends the run instead of a hang.
NATIVE_CMDLINE = "console=ttyS0 quiet panic=-1"
DOM0_CMDLINE = "console=hvc0 earlyprintk=xen quiet panic=-1"


def fetch_linux():
    """The path of Debian's vmlinux, once tools/fetch-domu has checked the
    cache (or fetched what is missing or damaged, or said in one line why
    it cannot)."""
    vmlinux = os.path.join(build_dir(), "domu", "vmlinux")
    rc = subprocess.call([os.path.join(ROOT, "tools", "fetch-domu")],
                         stdin=subprocess.DEVNULL, stdout=sys.stderr)
    if rc != 0 or not os.path.exists(vmlinux):
        fail("tools/fetch-domu failed; Debian's Linux kernel is not available", 2)
    return vmlinux


# Linux's virtio drivers natively: Debian builds the stack as modules,
# which the program loads in these orders (each after what its modinfo
# depends on): the disk's (--disk) and the network card's (--net).
VIRTIO_MODULES = ["virtio_ring", "virtio", "virtio_pci_legacy_dev", "virtio_pci_modern_dev",
                  "virtio_pci"]
VIRTIO_DISK = VIRTIO_MODULES + ["virtio_blk"]
VIRTIO_NET = VIRTIO_MODULES + ["failover", "net_failover", "virtio_net"]


def virtio_modules(modules, order):
    """The initramfs files for a native virtio device: each module of
    modules, and the file order naming them in load order (the program
    reads disk.order in disk_probe, net.order in net_run)."""
    root = os.path.join(build_dir(), "domu", "root")
    files = []
    for m in modules:
        with open(the_one(root, "lib/modules/*/kernel/*/*/%s.ko" % m), "rb") as f:
            files.append((m + ".ko", 0o100644, f.read()))
    listing = "".join(m + "\n" for m in modules).encode()
    return files + [(order, 0o100644, listing)]


def linux_initrd(args, program):
    """The initramfs of a --linux run, as bytes: the program as /init, and
    the virtio modules its native devices need."""
    with open(program, "rb") as f:
        files = [("init", 0o100755, f.read())]
    if args.disk_path and not args.xen:
        files += virtio_modules(VIRTIO_DISK, "disk.order")
    if args.net:
        files += virtio_modules(VIRTIO_NET, "net.order")
    return cpio_newc(files)


def program_args(args):
    """The program's arguments, after Linux's own on its command line."""
    return " -- " + args.cmdline if args.cmdline else ""


def native_cmdline(args):
    """Linux's command line when it boots natively (or as KVM's guest)."""
    return NATIVE_CMDLINE + program_args(args)


def linux_args(args, program, workdir):
    """QEMU arguments for --linux: the kernel, its initramfs (the program as
    /init) and command line, natively or under Xen."""
    vmlinux = in_workdir(workdir, fetch_linux(), "vmlinux")
    with open(os.path.join(workdir, "initrd.cpio"), "wb") as f:
        f.write(linux_initrd(args, program))
    if not args.xen:
        return ["-kernel", vmlinux, "-initrd", "initrd.cpio", "-append", native_cmdline(args)]
    xen = in_workdir(workdir, fetch_xen(), "xen")
    modules = [vmlinux + " " + DOM0_CMDLINE + program_args(args), "initrd.cpio"]
    return ["-kernel", xen, "-append", linux_dom0_xen_cmdline(args),
            "-initrd", ",".join(m.replace(",", ",,") for m in modules)]
