"""tools/run --xen: this kernel as dom0 of Xen 4.17 (tools/fetch-xen
fetches it into $BUILD/xen/). Builds QEMU's arguments for Xen, spots the
lines after which Xen stops the machine, and reads its crash report or
panic into a verdict. run_domu.py reuses all of these: there Xen runs a
Linux dom0 and this kernel as a domU."""

import os
import re
import subprocess
import sys

from run_common import (ROOT, STATUS_NO_EXIT, STATUS_NOT_STARTED, STATUS_XEN_CRASH,
                        build_dir, fail, guest_image, in_workdir)

XEN_KEEPS = 1023  # Xen keeps this much of dom0's command line

# Xen lines after which the machine halts or resets instead of the kernel
# exiting through isa-debug-exit: stop QEMU early rather than wait for it.
# Xen's early boot (head.S) writes "ERR: ...!" with no newline and halts.
XEN_END = re.compile(
    rb"Hardware Dom0 (crashed|halted|shutdown)|Reboot in five seconds|"
    rb"Manual reset required|Panic on CPU|(?:^|[\r\n])ERR: [^\r\n]*!"
)


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
    return ["-kernel", xen, "-append", xen_cmdline(args), "-initrd", module]


def xen_cmdline(args):
    """Xen's command line for --xen. dom0_max_vcpus=N gives dom0 exactly N
    vCPUs (Xen 4.17 reads N as N-N, and only its default, one vCPU per
    physical CPU, follows the host: N may exceed --host-cpus). Left out at
    one CPU on one, as before --smp, where Xen's default is that one."""
    vcpus = ""
    if (args.smp, args.host_cpus) != (1, 1):
        vcpus = " dom0_max_vcpus=%d" % args.smp
    return ("console=com1 com1=115200 dom0_mem=%dM%s guest_loglvl=all loglvl=all"
            % (args.dom0_mem, vcpus))


def symbolize(image, addr):
    """addr as name+0xN from the image's symbol table, or as hex."""
    try:
        import elfimage
        name = elfimage.Image(image).symbolize(addr)
    except (Exception, SystemExit):  # elfimage exits when pyelftools is missing
        name = None
    return name or "%#x" % addr


def xen_verdict(data, end, image):
    """(status, reason) for a run Xen ended: its crash report, its panic, or
    its early boot refusing the CPU."""
    text = data.decode(errors="replace").replace("\r", "")
    if end.startswith("ERR: "):
        return STATUS_NOT_STARTED, "xen: " + end[len("ERR: "):].rstrip("!")
    m = re.search(r"Panic on CPU \d+:\s*\(XEN\) ([^\n]+)", text)
    if m:
        # Xen frees its init memory just before it starts dom0.
        started = re.search(r"^\(XEN\) Freed \d+kB init memory", text, re.MULTILINE)
        return (STATUS_XEN_CRASH if started else STATUS_NOT_STARTED,
                "xen panic: " + m.group(1).strip())
    crash = re.search(r"^\(XEN\) Domain \d+ \(vcpu#\d+\) crashed on cpu#\d+:$", text,
                      re.MULTILINE)
    if crash is None:
        # Dom0 asked Xen to halt or shut down: not an exit the kernel makes.
        return STATUS_NO_EXIT, "xen: " + end
    return STATUS_XEN_CRASH, xen_crash_reason(text, crash, image)


def xen_crash_reason(text, crash, image):
    """Why Xen crashed a domain, from the lines around crash, the match of
    its "Domain N (vcpu#M) crashed on cpu#K:" line in text."""
    # Xen names why just before the dump: "domain_crash_sync called from
    # entry.S: fault at <Xen's own address>"; the address means nothing here.
    why = "xen crashed the domain"
    before = text[:crash.start()].rstrip("\n").rsplit("\n", 1)[-1]
    m = re.match(r"\(XEN\) (domain_crash\S* called from [^:\n]+(?::\d+)?)", before)
    if m:
        why = "xen: " + m.group(1)
    rip = re.search(r"^\(XEN\) RIP:\s+[0-9a-f]{4}:\[<([0-9a-f]+)>\]", text[crash.end():],
                    re.MULTILINE)
    if rip:
        why += " at " + symbolize(image, int(rip.group(1), 16))
    return why
