"""tools/run --xen: this kernel as dom0 of Xen 4.17 (tools/fetch-xen
fetches it into $BUILD/xen/), a PV dom0 or, with --pvh, a PVH one. Builds
QEMU's arguments for Xen, spots the lines after which Xen stops the
machine, and reads its crash report or panic into a verdict. domu.py
reuses all of these: there Xen runs a Linux dom0 and this kernel as a domU."""

import os
import re
import subprocess
import sys

from pbtools.paths import ROOT, build_dir
from pbtools.run.common import (STATUS_NO_EXIT, STATUS_NOT_STARTED, STATUS_XEN_CRASH, fail,
                                guest_image, in_workdir)

XEN_KEEPS = 1023  # Xen keeps this much of dom0's command line

# Xen lines after which the machine halts or resets instead of the kernel
# exiting through isa-debug-exit: stop QEMU early rather than wait for it.
# Xen's early boot (head.S) writes "ERR: ...!" with no newline and halts.
XEN_END = re.compile(
    rb"Hardware Dom0 (crashed|halted|shutdown)|Reboot in five seconds|"
    rb"Manual reset required|Panic on CPU|(?:^|[\r\n])ERR: [^\r\n]*!"
)


# QEMU's machine for a PVH dom0. Xen 4.17 builds one only with an IOMMU
# (it panics "Presently, iommu must be enabled for PVH hardware domain"),
# and QEMU emulates AMD's only on its q35 machine.
PVH_DOM0_MACHINE = ["-machine", "q35", "-device", "amd-iommu"]

# How Xen ends a domain: a PV or HVM domain it crashes (the dump follows)...
CRASH_LINE = r"^\(XEN\) Domain (%s) \(vcpu#\d+\) crashed on cpu#\d+:$"
# ... or an HVM (PVH) vCPU's triple fault, which shuts the domain down
# (dom0's shutdown resets the machine) after a dump of the vCPU.
TRIPLE_FAULT_LINE = r"^\(XEN\) (d(%s)v\d+) Triple fault - invoking HVM shutdown action \d+$"
# The guest RIP of the dump that follows either, and the kind of guest.
RIP_LINE = re.compile(r"^\(XEN\) RIP:\s+[0-9a-f]{4}:\[<([0-9a-f]+)>\]", re.MULTILINE)
CONTEXT = re.compile(r"\bCONTEXT: (\w+) guest\b")

# A PVH guest needs HVM (SVM or VMX) with hardware-assisted paging, as
# Debian builds Xen without shadow paging. Xen's boot log says which it
# found ("HVM: SVM enabled", "HVM: Hardware Assisted Paging (HAP)
# detected"); creating the guest then fails without saying why (a PVH dom0:
# "Error creating d0: -22", -95 without HAP; xl: "neither hap nor shadow
# paging available").
HVM_ENABLED = re.compile(r"^\(XEN\) HVM: \S+ enabled$", re.MULTILINE)
HAP_MISSING = re.compile(r"^\(XEN\) HVM: Hardware Assisted Paging \(HAP\) not detected$",
                         re.MULTILINE)


def fetch_xen():
    """The hypervisor's path, after tools/fetch-xen when it is missing."""
    xen = os.path.join(build_dir(), "xen", "xen-4.17-amd64")
    readnotes = os.path.join(build_dir(), "xen", "readnotes")
    if not (os.path.exists(xen) and os.path.exists(readnotes)):
        rc = subprocess.call([os.path.join(ROOT, "tools", "fetch-xen")],
                             stdin=subprocess.DEVNULL, stdout=sys.stderr)
        if rc != 0 or not os.path.exists(xen):
            fail("tools/fetch-xen failed; Xen is not available", 2)
    return xen


def xen_cmdline_problem(cmdline):
    """Why Xen would not hand dom0 cmdline (bytes) as it is, or None."""
    if cmdline.startswith(b" "):
        # Xen skips the spaces after the image name in dom0's module string.
        return "the Xen door drops the leading spaces of the kernel command line"
    return None


def xen_args(args, image, workdir):
    """QEMU arguments for --xen: Xen as the kernel, image as dom0's module."""
    xen = in_workdir(workdir, fetch_xen(), "xen")
    image = guest_image(workdir, image)
    # -initrd takes a ','-separated module list, each "file args"; a literal
    # ',' is written ',,'. The first module is dom0's kernel, its args dom0's
    # command line.
    module = image.replace(",", ",,")
    if args.cmdline:
        module += " " + args.cmdline.replace(",", ",,")
    machine = PVH_DOM0_MACHINE if args.pvh else []
    return machine + ["-kernel", xen, "-append", xen_cmdline(args), "-initrd", module]


def xen_cmdline(args):
    """Xen's command line for --xen. dom0_max_vcpus=N gives dom0 exactly N
    vCPUs (Xen 4.17 reads N as N-N, and only its default, one vCPU per
    physical CPU, follows the host: N may exceed --host-cpus). Left out at
    one CPU on one, as before --smp, where Xen's default is that one.
    dom0=pvh builds dom0 as a PVH guest. PATCHBAY_XEN_EXTRA adds words at
    the end, e.g. a scheduler option."""
    mode = " dom0=pvh" if args.pvh else ""
    vcpus = ""
    if (args.smp, args.host_cpus) != (1, 1):
        vcpus = " dom0_max_vcpus=%d" % args.smp
    extra = " ".join(os.environ.get("PATCHBAY_XEN_EXTRA", "").split())
    return ("console=com1 com1=115200 dom0_mem=%dM%s%s guest_loglvl=all loglvl=all%s"
            % (args.dom0_mem, mode, vcpus, " " + extra if extra else ""))


def symbolize(image, addr):
    """addr as name+0xN from the image's symbol table, or as hex."""
    try:
        from pbtools.elf import image as elfimage
        name = elfimage.Image(image).symbolize(addr)
    except (Exception, SystemExit):  # elfimage exits when pyelftools is missing
        name = None
    return name or "%#x" % addr


def xen_verdict(data, end, image, pvh=False):
    """(status, reason) for a run Xen ended: its crash report, its panic, or
    its early boot refusing the CPU. pvh: dom0 was to be a PVH guest."""
    text = data.decode(errors="replace").replace("\r", "")
    if end.startswith("ERR: "):
        return STATUS_NOT_STARTED, "xen: " + end[len("ERR: "):].rstrip("!")
    m = re.search(r"Panic on CPU \d+:\s*\(XEN\) ([^\n]+)", text)
    if m:
        panic = "xen panic: " + m.group(1).strip()
        lacks = pvh_unsupported(text) if pvh else None
        if lacks and panic.startswith("xen panic: Error creating d0:"):
            return STATUS_NOT_STARTED, "%s, which a PVH dom0 needs (%s)" % (lacks, panic)
        # Xen frees its init memory just before it starts dom0.
        started = re.search(r"^\(XEN\) Freed \d+kB init memory", text, re.MULTILINE)
        return STATUS_XEN_CRASH if started else STATUS_NOT_STARTED, panic
    why = xen_ended_domain(text, r"\d+", image)
    if why is None:
        # Dom0 asked Xen to halt or shut down: not an exit the kernel makes.
        return STATUS_NO_EXIT, "xen: " + end
    return STATUS_XEN_CRASH, why


def pvh_unsupported(text):
    """What Xen's boot log (text) says it lacks to run a PVH guest, or None."""
    if not HVM_ENABLED.search(text):
        return "xen has no HVM support (the CPU shows it no SVM or VMX)"
    if HAP_MISSING.search(text):
        return ("xen has no paging for HVM guests: no hardware-assisted paging (the CPU "
                "shows it no nested paging), no shadow paging (not built in)")
    return None


def xen_ended_domain(text, domid, image):
    """Why Xen ended a domain whose id matches domid (a regex), as a verdict
    names it, or None: Xen crashed it (a PV or HVM domain), or an HVM
    vCPU's triple fault shut it down."""
    crash = re.search(CRASH_LINE % domid, text, re.MULTILINE)
    if crash:
        return xen_crash_reason(text, crash, image)
    triple = re.search(TRIPLE_FAULT_LINE % domid, text, re.MULTILINE)
    if triple:
        return "xen: %s triple fault%s" % (triple.group(1), at_rip(text[triple.end():], image))
    return None


def xen_crash_reason(text, crash, image):
    """Why Xen crashed a domain, from the lines around crash, the match of
    its "Domain N (vcpu#M) crashed on cpu#K:" line in text."""
    # Xen names why just before the dump: "domain_crash_sync called from
    # entry.S: fault at <Xen's own address>"; the address means nothing here.
    # For an HVM (PVH) vCPU, the line before that says what went wrong
    # ("d0v0 Unexpected vmexit: reason ...") and "domain_crash called from
    # svm.c:96" only where Xen gave up.
    why = "xen crashed the domain"
    before = text[:crash.start()].rstrip("\n").rsplit("\n", 2)[-2:]
    m = re.match(r"\(XEN\) (domain_crash\S* called from [^:\n]+(?::\d+)?)", before[-1])
    if m:
        why = "xen: " + m.group(1)
        vcpu = re.match(r"\(XEN\) (d%sv\d+ .+)$" % crash.group(1), before[0])
        context = CONTEXT.search(text, crash.end())
        if len(before) == 2 and vcpu and context and context.group(1) == "hvm":
            why = "xen: %s (%s)" % (vcpu.group(1), m.group(1))
    return why + at_rip(text[crash.end():], image)


def at_rip(dump, image):
    """" at SYMBOL+0xN" for the first guest RIP in dump (Xen's register
    dump), or "" without one."""
    rip = RIP_LINE.search(dump)
    return " at " + symbolize(image, int(rip.group(1), 16)) if rip else ""
