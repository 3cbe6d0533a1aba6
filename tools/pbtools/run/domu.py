"""tools/run --domu: the kernel as an unprivileged PV domU (with --pvh, a
PVH one). Xen runs Debian's Linux as dom0 (tools/fetch-domu fetches it
into $BUILD/domu/), whose /init (tools/domu/init) starts the toolstack,
runs `xl create` of the image and relays the domU's console, each line
behind DOMU_PREFIX. A domU cannot reach isa-debug-exit: the kernel writes
its status to its xenstore node data/patchbay-status; dom0's /init reads
it once the domain has stopped (else takes the verdict line: PASS 0, FAIL
1), says so in DOMU_END_LINE and ends QEMU with it. This module builds the
run's initramfs (with --lifecycle's plan, lifecycle.py, and --net's peers,
net.py) and QEMU's arguments, shows only the domU's lines, and turns how
the run ended into tools/run's outcome."""

import glob
import os
import re
import subprocess
import sys

from pbtools.paths import ROOT, build_dir
from pbtools.run.common import (DEBUG_EXIT_PORT, KERNEL_STATUS_MAX, STATUS_DOM0_FAILED,
                                STATUS_DOMU_NO_VERDICT, STATUS_LIFECYCLE_FAILED, STATUS_NO_EXIT,
                                STATUS_TIMEOUT, VERDICT, cpio_newc, fail, guest_image, in_workdir,
                                qemu_error)
from pbtools.run.lifecycle import LIFECYCLE_PREFIX, LIFECYCLE_XEN
from pbtools.run.net import (NET_GUEST, NET_HOST, NET_MAC, NET_PLAN_COUNT, NET_PREFIX,
                             net_interval_ms)
from pbtools.run.xen import XEN_END, fetch_xen, pvh_unsupported, xen_ended_domain, xen_verdict

# dom0's /init relays each line of the domU's console with DOMU_PREFIX and
# ends with DOMU_END_LINE, the status it writes to isa-debug-exit and where
# that came from. The run also ends early when Linux panics (it then has
# Xen reboot) or Xen does.
DOMU_PREFIX = b"domU| "
DOMU_END_LINE = re.compile(r"^patchbay-domu: end (\d+) (\S+) ?([^\n]*)$", re.MULTILINE)
DOMU_END = re.compile(XEN_END.pattern + rb"|Kernel panic - not syncing[^\r\n]*")
DOMU_KEEPS = 1023  # the domain builder copies this much into start_info
DOMU_MEM = 64      # MiB: the domU's memory unless --domu-mem says otherwise
LINUX_DOMU_MEM = 128  # MiB: --linux --domu's, Debian's Linux with the program as /init
# --linux --domu: Linux's options for the domU; the program's follow "--",
# bench.domu first, so that it powers the domain off at its end.
LINUX_DOMU_CMDLINE = "console=hvc0 quiet panic=-1 -- bench.domu"
# --linux --domu --pvh: Xen traps RDTSCP in this TSC mode and cannot
# emulate it under TCG ("SVM Insn len emulation failed ... 0f 01 f9"), and
# Linux uses it once it sees the CPUID bit: hidden, Linux keeps to RDTSC,
# in the TSC mode patchbay's PVH domU has.
LINUX_PVH_CPUID = b'cpuid = "host,rdtscp=0"\n'
# --disk FILE: dom0's /init says in a line behind DISK_PREFIX that blkback
# took the guest's xvda and waits for a frontend.
DISK_PREFIX = b"domu-door: "
UDPCLIENT_STATIC = os.path.join("tools", "udpclient-static")  # under the build directory


def check_domu_args(p, args):
    """Default and check --domu-mem against the memory of the whole machine."""
    if args.domu_mem is None:
        args.domu_mem = LINUX_DOMU_MEM if args.linux else DOMU_MEM
    if args.domu_mem <= 0:
        p.error("--domu-mem must be positive")
    if args.dom0_mem + args.domu_mem >= args.mem:
        p.error("--dom0-mem plus --domu-mem must be smaller than --mem")


def xl_string(value):
    """bytes as the body of a double-quoted string of an xl config file:
    libxlu's lexer takes any byte but '"', '\\' and a newline between the
    quotes, and its dequoting knows these escapes (its \\x and octal ones
    are broken in 4.17, and none is needed)."""
    escapes = {b"\\": b"\\\\", b'"': b'\\"', b"\n": b"\\n", b"\r": b"\\r", b"\t": b"\\t"}
    return b"".join(escapes.get(bytes([c]), bytes([c])) for c in value)


def domu_config(args):
    """The domU's xl config: tools/domu/domu.cfg with its @...@ fields filled in."""
    with open(os.path.join(ROOT, "tools", "domu", "domu.cfg"), "rb") as f:
        template = f.read()
    cmdline = (LINUX_DOMU_CMDLINE + " " + args.cmdline).strip() if args.linux else args.cmdline
    fields = {b"@TYPE@": b"pvh" if args.pvh else b"pv",
              b"@KERNEL@": b"/patchbay/vmlinuz" if args.linux else b"/patchbay/patchbay.elf",
              b"@CMDLINE@": xl_string(os.fsencode(cmdline)),
              b"@MEMORY@": b"%d" % args.domu_mem,
              b"@VCPUS@": b"%d" % args.smp}
    config = re.sub(rb"@[A-Z]+@", lambda m: fields[m.group(0)], template)
    if args.linux:
        config += b'ramdisk = "/patchbay/initrd.cpio"\n'
        config += LINUX_PVH_CPUID if args.pvh else b""
    if args.disk:
        config += b"disk = [ 'phy:/dev/vda,xvda,%s' ]\n" % disk_mode(args).encode()
    if getattr(args, "net", False):
        config += b'vif = [ "bridge=xenbr0,mac=%s" ]\n' % NET_MAC.encode()
    return config


def disk_mode(args):
    """--disk's access for the guest: r for a read-only disk, else w."""
    return "r" if getattr(args, "disk_ro", False) else "w"


def domu_setup(args):
    """/patchbay/setup, which /init sources first: what it sets up before
    it takes the run's files (the isa-debug-exit port, a disk, a network),
    and so all a dom0 template holds of a run (tools/pbtools/run/dom0_template.py)."""
    setup = b"EXIT_PORT=%d\n" % DEBUG_EXIT_PORT
    if args.disk:
        setup += b"DISK=%s\n" % disk_mode(args).encode()
    if getattr(args, "net", False):
        setup += b"NET=1\n"
    return setup


def domu_setup_archive(args):
    """The initramfs' last archive: /patchbay/setup (domu_setup)."""
    return cpio_newc([("patchbay", 0o040755, b""), ("patchbay/setup", 0o100644, domu_setup(args))])


def domu_params(args):
    """/patchbay/params, which /init sources once it has the run's files:
    the lifecycle plan's steps when there is one, the disk's and the
    network's parts of the run."""
    params = b""
    if args.lifecycle:
        params += b'LIFECYCLE="%s"\n' % " ".join(args.lifecycle).encode()
    if getattr(args, "disk_detach", False):
        params += b"DISK_DETACH=1\n"
    detach = getattr(args, "net_detach", False)
    if detach:
        params += b"NET_DETACH=1\n"
    flood = getattr(args, "net_flood", None)
    if flood:
        params += b"NET_FLOOD=%d\n" % flood
    if getattr(args, "net", False):
        params += (b"NET_HOST=%s\nNET_GUEST=%s\nNET_COUNT=%d\nNET_SIZE=%d\n"
                   b"NET_WINDOW=%d\nNET_INTERVAL_MS=%d\n" % (
                       NET_HOST.encode(), NET_GUEST.encode(),
                       NET_PLAN_COUNT if args.lifecycle or detach or flood else args.net_count,
                       args.net_size,
                       args.net_window,
                       net_interval_ms(args)))
    return params


def domu_files(args, image, workdir):
    """The run's own files, a cpio archive of /patchbay/: the image, its xl
    config (domu_config) and the run's parameters (domu_params), which
    dom0's /init takes from the run disk (tools/pbtools/run/dom0_template.py). With
    --linux the domU's kernel is Debian's (its compressed vmlinuz: the
    domain builder unpacks it) and image, the program, is the /init of its
    own initramfs, with Linux's blkfront module beside it for a --disk and
    its netfront for a --net."""
    if args.linux:
        root = os.path.join(build_dir(), "domu", "root")
        kernel = the_one(root, "boot/vmlinuz-*")
        if args.pvh:
            check_pvh_entry(os.path.join(build_dir(), "domu", "vmlinux"), kernel)
        with open(image, "rb") as f:
            domu_files = [("init", 0o100755, f.read())]
        # Debian builds the frontends as modules; the program loads them
        # (disk_probe, net_run).
        for wanted, module in ((args.disk, "block/xen-blkfront"),
                               (getattr(args, "net", False), "net/xen-netfront")):
            if wanted:
                with open(the_one(root, "lib/modules/*/kernel/drivers/%s.ko" % module),
                          "rb") as f:
                    domu_files.append((os.path.basename(module) + ".ko", 0o100644, f.read()))
        with open(kernel, "rb") as f:
            files = [("patchbay/vmlinuz", 0o100644, f.read()),
                     ("patchbay/initrd.cpio", 0o100644, cpio_newc(domu_files))]
    else:
        with open(os.path.join(workdir, guest_image(workdir, image)), "rb") as f:
            files = [("patchbay/patchbay.elf", 0o100644, f.read())]
    if getattr(args, "net", False):
        with open(udpclient_static(), "rb") as f:
            files.append(("patchbay/udpclient", 0o100755, f.read()))
    return cpio_newc([("patchbay", 0o040755, b"")] + files +
                     [("patchbay/domu.cfg", 0o100644, domu_config(args)),
                      ("patchbay/params", 0o100644, domu_params(args))])



def check_pvh_entry(vmlinux, kernel):
    """Ends the run (status 2) unless the kernel has a PVH entry: xl's
    domain builder unpacks the vmlinuz and, for type = "pvh", enters the
    ELF inside at its XEN_ELFNOTE_PHYS32_ENTRY. vmlinux is that ELF, which
    tools/fetch-domu keeps (the dom0's) and Xen's readnotes reads."""
    fetch_xen()
    readnotes = os.path.join(build_dir(), "xen", "readnotes")
    p = subprocess.run([readnotes, vmlinux], stdin=subprocess.DEVNULL, capture_output=True)
    if p.returncode != 0 or not re.search(rb"^PHYS32_ENTRY: ", p.stdout, re.MULTILINE):
        fail("%s has no PVH entry (no XEN_ELFNOTE_PHYS32_ENTRY note in its ELF, %s): "
             "--linux --domu --pvh cannot boot it" % (os.path.basename(kernel), vmlinux), 2)


def udpclient_static():
    """The UDP client built static for dom0 (tools/tools.mk builds it on
    demand); ends the run (status 2) if it cannot be built."""
    path = os.path.join(build_dir(), UDPCLIENT_STATIC)
    try:
        subprocess.run(["make", "-s", "-C", ROOT, "BUILD=" + build_dir(), path], check=True,
                       stdin=subprocess.DEVNULL, stdout=sys.stderr)
    except (OSError, subprocess.CalledProcessError) as e:
        fail("--net: cannot build the static UDP client for dom0: %s" % e, 2)
    return path


def the_one(root, pattern):
    """The one file under root (tools/fetch-domu's unpacked packages) that
    pattern names; ends the run (status 2) if there is not exactly one."""
    found = glob.glob(os.path.join(root, pattern))
    if len(found) != 1:
        fail("tools/fetch-domu left %d files %s under %s, not one" % (len(found), pattern, root),
             2)
    return found[0]


def domu_args(args, image, workdir):
    """QEMU arguments for --domu: Xen, with Debian's Linux as dom0 and an
    initramfs of tools/fetch-domu's base (the toolstack, the virtio modules
    and tools/domu/init), its disk archive with --disk or --net (blkback,
    xl's hotplug scripts), its network archive with --net, and the run's
    setup (domu_setup). The run's own files come on the run disk
    (tools/pbtools/run/dom0_template.py's run_disk_args)."""
    xen = in_workdir(workdir, fetch_xen(), "xen")
    rc = subprocess.call([os.path.join(ROOT, "tools", "fetch-domu")],
                         stdin=subprocess.DEVNULL, stdout=sys.stderr)
    dom0 = os.path.join(build_dir(), "domu")
    base = os.path.join(dom0, "initrd.cpio")
    if rc != 0 or not os.path.exists(base):
        fail("tools/fetch-domu failed; the Linux dom0 for --domu is not available", 2)
    setup = domu_setup_archive(args)
    initrd = "initrd.cpio"
    # The disk archive holds xl's hotplug scripts, which the network's vif needs too.
    net = getattr(args, "net", False)
    archives = [base] + ([os.path.join(dom0, "disk.cpio")] if args.disk or net else []) + (
        [os.path.join(dom0, "net.cpio")] if net else [])
    with open(os.path.join(workdir, initrd), "wb") as out:
        for path in archives:
            with open(path, "rb") as f:
                data = f.read()
            # Linux takes the next archive at a 4-byte boundary after the zeros.
            out.write(data + b"\0" * (-len(data) % 4))
        out.write(setup)
    linux = "console=hvc0 earlyprintk=xen rdinit=/init quiet"
    modules = [in_workdir(workdir, os.path.join(dom0, "vmlinux"), "vmlinux") + " " + linux,
               initrd]
    # The disk itself, dom0's /dev/vda, is every door's (tools/pbtools/run/disk.py).
    return ["-kernel", xen, "-append", linux_dom0_xen_cmdline(args),
            "-initrd", ",".join(m.replace(",", ",,") for m in modules)]


def linux_dom0_xen_cmdline(args):
    """Xen's command line for a Linux dom0 (--domu, and --linux --xen). dom0
    keeps one vCPU whatever --host-cpus gives Xen; under --domu --smp is the
    domU's, in its xl config.
    smap=hvm: with SMAP on for PV guests, QEMU 7.2's TCG iretq reads a PV
    kernel's (user-mode) stack with supervisor rights, and Linux dies at
    its first one; SMAP stays on for Xen's HVM guests and --cpu unchanged.
    With --lifecycle, LIFECYCLE_XEN too."""
    line = ("console=com1 com1=115200 dom0_mem=%dM,max:%dM dom0_max_vcpus=1 "
            "guest_loglvl=all loglvl=all smap=hvm" % (args.dom0_mem, args.dom0_mem))
    if getattr(args, "lifecycle", None):
        line += " " + LIFECYCLE_XEN
    return line


class DomuConsole:
    """--domu's serial stream, Xen's, dom0's and the domU's lines together:
    shows the domU's, without DOMU_PREFIX, the lifecycle plan's steps and
    the disk's backend through console (the others too when verbose), and
    keeps everything in data and in FILE.full.log."""

    def __init__(self, console, verbose, log_path):
        self.console = console
        self.verbose = verbose
        self.data = bytearray()  # everything, for the outcome
        self.pending = b""       # the start of a line whose end has not come
        self.full = None
        if log_path:
            stem, ext = os.path.splitext(log_path)
            os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
            self.full = open(stem + ".full" + ext, "wb")

    def shown(self, line):
        """What of a whole line (with its newline, if any) is shown. A domU
        line ends in a bare newline, as natively: dom0's tty and Xen's
        serial driver have each put a carriage return before it."""
        for prefix, keep in ((DOMU_PREFIX, 0), (LIFECYCLE_PREFIX, len(LIFECYCLE_PREFIX)),
                             (DISK_PREFIX, len(DISK_PREFIX)), (NET_PREFIX, len(NET_PREFIX))):
            if line.lstrip(b"\r").startswith(prefix):
                body = line.lstrip(b"\r")[len(prefix) - keep:]
                newline = body.endswith(b"\n")
                return body.rstrip(b"\r\n") + (b"\n" if newline else b"")
        return line if self.verbose else b""

    def write(self, data):
        """Keep data whole; show what its complete lines show."""
        self.data += data
        if self.full is not None:
            self.full.write(data)
            self.full.flush()
        lines = (self.pending + data).split(b"\n")
        self.pending = lines.pop()
        shown = b"".join(self.shown(line + b"\n") for line in lines)
        if shown:
            self.console.write(shown)

    def flush(self):
        """Shows the last line, should it have no newline."""
        if self.pending:
            shown = self.shown(self.pending)
            self.pending = b""
            if shown:
                self.console.write(shown)

    def close(self):
        self.flush()
        if self.full is not None:
            self.full.close()


def domu_outcome(args, image, status, end, errors, data):
    """outcome() of a --domu run; data is all that QEMU's serial port wrote."""
    text = data.decode(errors="replace").replace("\r", "")
    prefix = DOMU_PREFIX.decode()
    domu = "\n".join(line[len(prefix):] for line in text.split("\n") if line.startswith(prefix))
    if status is None:
        what = "timed out after %g s" % args.timeout
        if prefix not in text:
            what += " before the domU wrote a line"
        return STATUS_TIMEOUT, what, what
    if end is not None:
        if end.startswith("ERR: ") or end.startswith("Panic on CPU"):
            code, reason = xen_verdict(data, end, image)
        else:
            # Linux panicked (and had Xen reboot), or Xen ended dom0.
            panic = re.search(r"Kernel panic - not syncing: *([^\n]*)", text)
            code = STATUS_DOM0_FAILED
            reason = "dom0: " + ("Linux panic: " + panic.group(1).strip() if panic
                                 else "xen: " + end)
        return code, reason, "%s (no kernel exit)" % reason
    if status == 1 and qemu_error(errors):
        what = "QEMU failed: %s" % qemu_error(errors)[0]
        return STATUS_NO_EXIT, what, what
    v = status >> 1
    if status > 0 and status & 1 and (v <= KERNEL_STATUS_MAX or v in (
            STATUS_DOMU_NO_VERDICT, STATUS_DOM0_FAILED, STATUS_LIFECYCLE_FAILED)):
        return domu_exit(v, DOMU_END_LINE.findall(text), domu, text, image, args.pvh)
    return (STATUS_NO_EXIT, "QEMU ended without a kernel exit",
            "QEMU exited with status %d without a kernel exit "
            "(crash, reset or triple fault?)" % status)


def domu_exit(v, ends, domu, text, image, pvh):
    """domu_outcome() of a run dom0's /init ended with status v, after its
    end lines ends; domu is the domU's console, text all of it; pvh: the
    domU was to be a PVH guest."""
    source, why = ends[-1][1:] if ends else ("", "")
    if v == STATUS_DOM0_FAILED:
        reason = (source + " " + why).strip() or "dom0 failed"
        lacks = pvh_unsupported(text) if pvh and "xl create" in why else None
        if lacks:
            # xl says only "neither hap nor shadow paging available".
            reason = "%s, which a PVH domU needs (%s)" % (lacks, reason)
        return v, reason, reason
    if v == STATUS_LIFECYCLE_FAILED:
        # The door's own line, and Xen's report should a domain have crashed
        # meanwhile (say, while it suspended).
        reason = (source + " " + why).strip() or "a step of the lifecycle plan failed"
        ended = xen_ended_domain(text, r"[1-9]\d*", image)
        if ended:
            reason += "; " + ended
        return v, reason, reason
    if v == STATUS_DOMU_NO_VERDICT:
        reason = "the domU %s without a verdict" % (
            "crashed" if why == "crash" else "stopped (%s)" % (why or "?"))
        ended = xen_ended_domain(text, r"[1-9]\d*", image)
        if ended:
            reason += "; " + ended
        return v, reason, reason
    # The kernel's status: from its xenstore node, or else its verdict.
    reason = None if VERDICT.search(domu.encode()) else (
        "status %d, but no verdict line reached the console" % v)
    if v == 0:
        return 0, reason or "", None
    how = "" if source == "xenstore" else " (its verdict line: it left no status in xenstore)"
    return v, reason, "kernel failed with status %d%s" % (v, how)
