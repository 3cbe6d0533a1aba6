#!/usr/bin/env python3
"""tools/run's doors, without booting: --smp N and --host-cpus M become
the QEMU, Xen and xl arguments tools/run --help promises; --smp 1 changes
no argument of any door; --pvh adds its machine and dom0=pvh to --xen's
command lines (which stay as they were without it) and type = "pvh" to
--domu's xl config; PATCHBAY_XEN_EXTRA ends --xen's Xen line; a bad value, or --linux or --pvh with a door or CPUs it
does not have, is refused with status 2 and one error line. --lifecycle
PLAN expands into its steps (lifecycle=K on the kernel command line,
LIFECYCLE in dom0's params, the memory and time-out it needs), and a
malformed plan, a plan without --domu, and migrate without --pvh are
refused in one line; the door's lines are shown and its failure becomes
the verdict. --disk FILE gives dom0 FILE as a virtio disk and the disk
archive, and the domU xvda; --domu --net gives the domU a vif on dom0's
bridge, the kernel its net words, and dom0 the network archive; every door gives QEMU the same virtio disk,
traced, FILE:ro and --disk-ro make it read-only, and --disk-new's SIZE
must be whole 4 KiB blocks. --gdb adds QEMU's -S and a gdbstub on the socket tools/run
listens on, an hour's time-out unless --timeout says otherwise, and is
refused with --linux and --pvh; a QEMU that gdb killed is named in the
verdict. --net gives the native door's QEMU a virtio-net card with two
UDP ports forwarded to the guest, adds the kernel's net words the command
line lacks (under --icount the longest wait), hands the client its count,
size and window, starts it on the guest's up line and shows its lines
whole; twice, on another door, without the client, or with a client
option out of its range or without --net, it is refused;
--net-peer puts the card on a datagram socket to tools/netpeer.py instead,
and needs --net. The verdicts
read from Xen's lines (recorded from real runs) name what Xen printed: a
PV or HVM crash, an HVM triple fault, and the HVM support a PVH guest
lacks. Ends with "N passed, N failed"."""

import contextlib
import io
import os
import selectors
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "tools", "run")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests"))
from report import check, summary  # noqa: E402


class Shown:
    """What a console stream showed: the bytes written to it."""
    data = b""

    def write(self, data):
        self.data += data


def refused(argv, message):
    """tools/run argv exits 2 before QEMU, its last stderr line message."""
    p = subprocess.run([sys.executable, RUN] + argv, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=30)
    errors = [line for line in p.stderr.splitlines() if "error" in line]
    check("%s is refused" % " ".join(argv),
          p.returncode == 2 and errors == ["tools/run: error: " + message]
          and not p.stdout,
          "status %d, stderr %r" % (p.returncode, p.stderr))


# Xen's lines, recorded, each ending a run the verdict must explain.
# A PV dom0 that overflowed its stack (fault=guard, as in xen-crash-verdict).
PV_CRASH = """\
(XEN)  L1[0x1c0] = 0000000000000000 ffffffffffffffff
(XEN) domain_crash_sync called from entry.S: fault at ffff82d0403602d0 x86_64/entry.S#domain_crash_page_fault_6x8+0/0x4
(XEN) Domain 0 (vcpu#0) crashed on cpu#0:
(XEN) ----[ Xen-4.17.7  x86_64  debug=n  Not tainted ]----
(XEN) CPU:    0
(XEN) RIP:    e033:[<0000000000107efe>]
(XEN) Hardware Dom0 crashed: rebooting machine in 5 seconds.
"""
# A PVH dom0 whose entry is a ud2 (tests/xen/test_pvh_crash.sh).
HVM_TRIPLE_FAULT = """\
(XEN) Freed 656kB init memory
(XEN) d0v0 Triple fault - invoking HVM shutdown action 1
(XEN) *** Dumping Dom0 vcpu#0 state: ***
(XEN) ----[ Xen-4.17.7  x86_64  debug=n  Not tainted ]----
(XEN) CPU:    0
(XEN) RIP:    0000:[<0000000000100190>]
(XEN) RFLAGS: 0000000000000002   CONTEXT: hvm guest (d0v0)
(XEN) Hardware Dom0 shutdown: rebooting machine
"""
# A PVH dom0 that loaded a code segment VMRUN refuses (L and D both set).
HVM_CRASH = """\
(XEN) Freed 656kB init memory
(XEN) d0v0 Unexpected vmexit: reason 0xffffffff, exitinfo1 0, exitinfo2 0
(XEN) domain_crash called from arch/x86/hvm/svm/svm.c:96
(XEN) Domain 0 (vcpu#0) crashed on cpu#0:
(XEN) ----[ Xen-4.17.7  x86_64  debug=n  Not tainted ]----
(XEN) CPU:    0
(XEN) RIP:    0018:[<00000000001004a2>]
(XEN) RFLAGS: 0000000000000086   CONTEXT: hvm guest (d0v0)
(XEN) Hardware Dom0 crashed: rebooting machine in 5 seconds.
"""
# A PV domU whose entry is a ud2 (tests/domu/test_domu_crash.sh): Xen's
# line before its reason stays out of the verdict, as it was.
PV_DOMU_CRASH = """\
(XEN) d1v0 Unhandled: vec 6, #UD[ffffffff]
(XEN) domain_crash_sync called from entry.S: fault at ffff82d040204b78 x86_64/entry.S#create_bounce_frame+0x14f/0x177
(XEN) Domain 1 (vcpu#0) crashed on cpu#0:
(XEN) ----[ Xen-4.17.7  x86_64  debug=n  Not tainted ]----
(XEN) CPU:    0
(XEN) RIP:    e033:[<00000000001164e0>]
(XEN) RFLAGS: 0000000000000202   EM: 1   CONTEXT: pv guest (d1v0)
patchbay-domu: end 102 none crash
"""
# Xen's boot log under --cpu max (SVM with nested paging), max,-svm and
# qemu64 (SVM without nested paging), then creating the PVH dom0 failing.
HVM_LOG = """\
(XEN) HVM: ASIDs enabled.
(XEN) HVM: SVM enabled
(XEN) HVM: Hardware Assisted Paging (HAP) detected
(XEN) HVM: HAP page sizes: 4kB, 2MB, 1GB
"""
NO_HAP_LOG = """\
(XEN) HVM: ASIDs enabled.
(XEN) HVM: SVM enabled
(XEN) HVM: Hardware Assisted Paging (HAP) not detected
"""
NO_HVM_LOG = "(XEN)   Support for HVM VMs: RSB\n"
D0_PANIC = """\
(XEN) ****************************************
(XEN) Panic on CPU 0:
(XEN) Error creating d0: %d
(XEN) ****************************************
(XEN) Reboot in five seconds...
"""
XL_NO_PAGING = ("patchbay-domu: end 103 dom0: xl create exited with status 6: libxl: error: "
                "libxl_create.c:46:libxl__domain_create_info_setdefault: neither hap nor "
                "shadow paging available\n")
NO_HVM = "xen has no HVM support (the CPU shows it no SVM or VMX)"
NO_HAP = ("xen has no paging for HVM guests: no hardware-assisted paging (the CPU shows it "
          "no nested paging), no shadow paging (not built in)")


def check_verdicts(run_xen, run_domu):
    """The reasons tools/run reads from Xen's recorded lines. The image does
    not exist, so RIPs stay hexadecimal."""
    image = "/nonexistent/patchbay.elf"

    def verdict(text, end, pvh=False):
        return run_xen.xen_verdict(text.encode(), end, image, pvh)

    for name, text, end, want in (
            ("PV crash", PV_CRASH, "Hardware Dom0 crashed",
             (99, "xen: domain_crash_sync called from entry.S at 0x107efe")),
            ("PVH dom0 triple fault", HVM_TRIPLE_FAULT, "Hardware Dom0 shutdown",
             (99, "xen: d0v0 triple fault at 0x100190")),
            ("PVH dom0 crash", HVM_CRASH, "Hardware Dom0 crashed",
             (99, "xen: d0v0 Unexpected vmexit: reason 0xffffffff, exitinfo1 0, exitinfo2 0 "
                  "(domain_crash called from arch/x86/hvm/svm/svm.c:96) at 0x1004a2"))):
        got = verdict(text, end)
        check("verdict of a %s: %r" % (name, want[1]), got == want, repr(got))
    for log, err, want in ((NO_HVM_LOG, -22, NO_HVM), (NO_HAP_LOG, -95, NO_HAP)):
        got = verdict(log + D0_PANIC % err, "Panic on CPU", pvh=True)
        want_pvh = (98, "%s, which a PVH dom0 needs (xen panic: Error creating d0: %d)"
                    % (want, err))
        check("--xen --pvh, Error creating d0: %d: %r" % (err, want), got == want_pvh, repr(got))
        got = verdict(log + D0_PANIC % err, "Panic on CPU")
        check("--xen, Error creating d0: %d: Xen's panic alone" % err,
              got == (98, "xen panic: Error creating d0: %d" % err), repr(got))
    got = verdict(HVM_LOG + D0_PANIC % -12, "Panic on CPU", pvh=True)
    check("--xen --pvh with HVM, another panic: Xen's panic alone",
          got == (98, "xen panic: Error creating d0: -12"), repr(got))

    # --domu: xl's failure, and a PVH domU's triple fault.
    def domu(text, v, pvh):
        code, reason, _ = run_domu.domu_exit(v, run_domu.DOMU_END_LINE.findall(text), "",
                                             text, image, pvh)
        return code, reason

    xl = XL_NO_PAGING.split(" ", 3)[3].rstrip("\n")
    for log, want in ((NO_HVM_LOG, NO_HVM), (NO_HAP_LOG, NO_HAP)):
        got = domu(log + XL_NO_PAGING, 103, True)
        check("--domu --pvh, xl: %r" % want,
              got == (103, "%s, which a PVH domU needs (%s)" % (want, xl)), repr(got))
    got = domu(NO_HVM_LOG + XL_NO_PAGING, 103, False)
    check("--domu, xl fails: xl's error alone", got == (103, xl), repr(got))
    got = domu(HVM_LOG + XL_NO_PAGING, 103, True)
    check("--domu --pvh with HVM, xl fails: xl's error alone", got == (103, xl), repr(got))
    got = domu(PV_DOMU_CRASH, 102, False)
    check("--domu crash: as it was",
          got == (102, "the domU crashed without a verdict; "
                       "xen: domain_crash_sync called from entry.S at 0x1164e0"), repr(got))
    domu_triple = (HVM_TRIPLE_FAULT.replace("d0v0", "d1v0").replace("Dom0", "Dom1")
                   + "patchbay-domu: end 102 none reboot\n")
    got = domu(domu_triple, 102, True)
    check("--domu --pvh triple fault: named with the RIP",
          got == (102, "the domU stopped (reboot) without a verdict; "
                       "xen: d1v0 triple fault at 0x100190"), repr(got))


def check_pvh_doors(run_qemu, run_xen, run_domu, args):
    """--pvh's command lines, and the PV ones staying as they were."""
    # No Xen to fetch, no image to strip: the command line alone.
    run_xen.fetch_xen = lambda: "/nonexistent/xen"
    run_xen.guest_image = lambda workdir, image: "patchbay.elf"
    machine = ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-m", "1024",
               "-display", "none", "-serial", "stdio", "-monitor", "none", "-nic", "none",
               "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=4"]

    def qemu(*argv):
        with tempfile.TemporaryDirectory() as d:
            return run_qemu.qemu_command(args(*argv), "/nonexistent/patchbay.elf", d)

    xen = machine + ["-kernel", "xen", "-append",
                     "console=com1 com1=115200 dom0_mem=64M guest_loglvl=all loglvl=all",
                     "-initrd", "patchbay.elf"]
    got = qemu("--xen")
    check("--xen: QEMU's command line as before", got == xen, got)
    pvh = machine + ["-machine", "q35", "-device", "amd-iommu",
                     "-kernel", "xen", "-append",
                     "console=com1 com1=115200 dom0_mem=64M dom0=pvh guest_loglvl=all "
                     "loglvl=all", "-initrd", "patchbay.elf"]
    got = qemu("--xen", "--pvh")
    check("--xen --pvh: q35 with an AMD IOMMU, Xen's dom0=pvh", got == pvh, got)
    got = qemu("--xen", "--pvh", "--smp", "2", "--host-cpus", "1")
    want = pvh[:-3] + ["console=com1 com1=115200 dom0_mem=64M dom0=pvh dom0_max_vcpus=2 "
                       "guest_loglvl=all loglvl=all", "-initrd", "patchbay.elf"]
    check("--xen --pvh --smp 2 --host-cpus 1: dom0_max_vcpus=2, one QEMU CPU",
          got == want, got)
    got = qemu("--xen", "--pvh", "--host-cpus", "2")
    check("--xen --pvh --host-cpus 2: QEMU -smp 2, dom0_max_vcpus=1",
          got[got.index("-smp") + 1] == "2" and " dom0_max_vcpus=1 " in got[-3], got)
    for argv in ([], ["--smp", "2"]):
        pv = run_domu.domu_config(args("--domu", *argv))
        got = run_domu.domu_config(args("--domu", "--pvh", *argv))
        check("--domu --pvh %s: the xl config's type, and nothing else, is pvh"
              % " ".join(argv), b'\ntype = "pv"\n' in pv
              and got == pv.replace(b'\ntype = "pv"\n', b'\ntype = "pvh"\n'), got)
    a = args("--domu", "--pvh", "--smp", "3")
    check("--domu --pvh --smp 3: vcpus = 3; dom0 stays one PV vCPU",
          b"\nvcpus = 3\n" in run_domu.domu_config(a)
          and run_domu.linux_dom0_xen_cmdline(a)
          == run_domu.linux_dom0_xen_cmdline(args("--domu", "--smp", "3")))


# A run whose door gave up on the plan: the new domain of a move crashed
# as it resumed, and xl restore failed (the run's own lines, recorded).
LIFECYCLE_CRASH = """\
(XEN) d2v0 Unhandled: vec 6, #UD[ffffffff]
(XEN) domain_crash_sync called from entry.S: fault at ffff82d040204b78 x86_64/entry.S#create_bounce_frame+0x14f/0x177
(XEN) Domain 2 (vcpu#0) crashed on cpu#0:
(XEN) ----[ Xen-4.17.7  x86_64  debug=n  Not tainted ]----
(XEN) CPU:    0
(XEN) RIP:    e033:[<00000000001164e0>]
patchbay-domu: end 104 lifecycle-door: step 2/2 move: xl restore exited with status 1: \
libxl: error: libxl_create.c:1640:domcreate_rebuild_done: Domain 2:cannot (re-)build domain: -3
"""
LIFECYCLE_CRASH_REASON = (
    "lifecycle-door: step 2/2 move: xl restore exited with status 1: libxl: error: "
    "libxl_create.c:1640:domcreate_rebuild_done: Domain 2:cannot (re-)build domain: -3; "
    "xen: domain_crash_sync called from entry.S at 0x1164e0")
DEAF = ("lifecycle-door: step 1/1 save-restore: the guest did not acknowledge the suspend "
        "request within 10 s")
BAD_STEP = ("argument --lifecycle: bad step %r in %r: each step is save-restore, move or "
            "migrate, optionally *N to repeat it (N from 1 to 100), and steps are separated "
            "by commas")
MIGRATE_PV = ("--lifecycle migrate needs --pvh: live migration of a PV guest needs log-dirty "
              "tracking, which for a PV domain needs Xen's shadow paging, and Debian's Xen is "
              "built without it (# CONFIG_SHADOW_PAGING is not set; xl fails with 'Failed to "
              "enable logdirty: 95'); use --pvh, or the steps save-restore and move")


def check_lifecycle(run_domu, run_lifecycle, args):
    """--lifecycle PLAN: the steps, what they add to the run, and refusals."""
    for plan, want in (("save-restore", ["save-restore"]),
                       ("move*3", ["move"] * 3),
                       ("save-restore,move*2,migrate", ["save-restore", "move", "move", "migrate"]),
                       ("migrate*100", ["migrate"] * 100)):
        got = run_lifecycle.lifecycle_plan(plan)
        check("--lifecycle %s: %d steps" % (plan, len(want)), got == want, got)
    for plan, bad in (("", ""), ("move,", ""), ("mvoe", "mvoe"), ("move*0", "move*0"),
                      ("save-restore,move*101", "move*101"), ("move*", "move*"),
                      ("move*x", "move*x"), ("move*2*2", "move*2*2"), ("move, move", " move"),
                      ("MOVE", "MOVE"), ("save_restore", "save_restore")):
        refused(["--domu", "--lifecycle", plan], BAD_STEP % (bad, plan))
    for door in ([], ["--iso"], ["--xen"], ["--linux"]):
        refused(door + ["--lifecycle", "move"],
                "--lifecycle applies to --domu only: Xen's toolstack saves, moves and "
                "migrates a domU")
    for plan in ("migrate", "save-restore,migrate*2"):
        refused(["--domu", "--lifecycle", plan], MIGRATE_PV)
    refused(["--domu", "--lifecycle", "move", "--", "wl=on lifecycle=2"],
            "--lifecycle puts lifecycle=K on the kernel command line itself")

    a = args("--domu", "--pvh", "--lifecycle", "save-restore,move*2,migrate", "--", "wl=on")
    # 90 + 30 + 30 * 2 + 180 s of time-out.
    check("--lifecycle: lifecycle=K and the run's time-out first on the kernel command line",
          a.cmdline == "lifecycle=4 lifecycle.timeout=360 wl=on", a.cmdline)
    a = args("--domu", "--icount", "--lifecycle", "move", "--timeout", "500")
    check("--lifecycle --icount --timeout 500: tsc.icount lifecycle=1 lifecycle.timeout=500",
          a.cmdline == "tsc.icount lifecycle=1 lifecycle.timeout=500", a.cmdline)
    a = args("--domu", "--lifecycle", "move", "--", "lifecycle.timeout=60")
    check("--lifecycle: a lifecycle.timeout of the user's own is kept",
          a.cmdline == "lifecycle=1 lifecycle.timeout=60", a.cmdline)
    line = run_domu.linux_dom0_xen_cmdline(args("--domu", "--lifecycle", "move"))
    check("--lifecycle: Xen switches FPU state eagerly",
          line == run_domu.linux_dom0_xen_cmdline(args("--domu")) + " spec-ctrl=eager-fpu"
          and "eager" not in run_domu.linux_dom0_xen_cmdline(args("--domu")), line)
    params = run_domu.domu_params(args("--domu", "--lifecycle", "save-restore,move*2"))
    check("--lifecycle: the plan in dom0's params",
          params == b'LIFECYCLE="save-restore move move"\n', params)
    params = run_domu.domu_params(args("--domu"))
    check("no --lifecycle: dom0's params empty", params == b"", params)
    setup = run_domu.domu_setup(args("--domu", "--lifecycle", "save-restore,move*2"))
    check("--lifecycle: nothing of the plan in dom0's setup (a template's)",
          setup == b"EXIT_PORT=244\n", setup)

    def sizes(*argv):
        a = args(*argv)
        return a.mem, a.dom0_mem, a.timeout

    for argv, want in ((["--domu"], (1024, 384, 60)),
                       (["--domu", "--lifecycle", "move"], (1024, 384, 120)),
                       (["--domu", "--lifecycle", "move*10"], (1024, 384, 390)),
                       (["--domu", "--domu-mem", "128", "--lifecycle", "move"], (1280, 512, 120)),
                       (["--domu", "--lifecycle", "move", "--mem", "2048", "--dom0-mem", "600",
                         "--timeout", "50"], (2048, 600, 50))):
        got = sizes(*argv)
        check("%s: --mem, --dom0-mem, --timeout %s" % (" ".join(argv), want), got == want,
              repr(got))


def check_lifecycle_lines(run_domu):
    """The door's lines are shown as they are, dom0's are not; its failure
    is the verdict, with Xen's report of a domain that crashed meanwhile."""
    shown = Shown()
    stream = run_domu.DomuConsole(shown, False, None)
    stream.write(b"dom0: toolstack up\r\ndomU| lifecycle: watching control/shutdown for 2 "
                 b"resumes\r\nlifecycle-door: step 1/2 save-restore: domain 1 -> 2 in 4.6 s "
                 b"(checkpoint 67.2 MB)\r\ndom0: save.log: xc: info: Saving domain 1\r\n")
    stream.flush()
    check("--lifecycle: the domU's and the door's lines shown, dom0's not",
          shown.data == b"lifecycle: watching control/shutdown for 2 resumes\n"
          b"lifecycle-door: step 1/2 save-restore: domain 1 -> 2 in 4.6 s (checkpoint 67.2 MB)\n",
          shown.data)

    def domu(text):
        code, reason, _ = run_domu.domu_exit(104, run_domu.DOMU_END_LINE.findall(text), "",
                                             text, "/nonexistent/patchbay.elf", False)
        return code, reason

    got = domu("patchbay-domu: end 104 %s\n" % DEAF)
    check("--lifecycle, a deaf guest: the door's line is the verdict", got == (104, DEAF),
          repr(got))
    got = domu(LIFECYCLE_CRASH)
    check("--lifecycle, a new domain that crashed as it resumed: xl's error and Xen's report",
          got == (104, LIFECYCLE_CRASH_REASON), repr(got))


def check_disk_drive(run_qemu, args):
    """--disk FILE: every door gives QEMU the same virtio disk, modern only,
    cache=writeback, traced into the run's directory; FILE:ro makes it
    read-only; --disk-ro and --disk-new need --disk, and --disk-new's SIZE
    is whole 4 KiB blocks."""
    with tempfile.TemporaryDirectory() as work:
        for door in ([], ["--iso"], ["--domu"], ["--domu", "--pvh"]):
            words = run_qemu.disk_qemu_args(args(*(door + ["--disk", "/tmp/a,b.img"])), work)
            check("--disk %s: QEMU's virtio disk, cache=writeback, traced" % " ".join(door),
                  words[:4] == ["-drive", "file=/tmp/a,,b.img,if=none,id=pbdisk,format=raw,"
                                "cache=writeback", "-device",
                                "virtio-blk-pci,drive=pbdisk,disable-legacy=on"]
                  and "enable=virtio_blk_req_complete" in words
                  and words[-2:] == ["-D", os.path.join(work, "disk-trace.log")], words)
        qemu = run_qemu.qemu_command(args("--disk", "/tmp/a,b.img:ro"), "/nonexistent/patchbay.elf",
                                work)
        check("--disk FILE:ro: read-only, in QEMU's command",
              "file=/tmp/a,,b.img,if=none,id=pbdisk,format=raw,cache=writeback,readonly=on"
              in qemu, qemu)
        qemu = run_qemu.qemu_command(args(), "/nonexistent/patchbay.elf", work)
        check("no --disk: no disk, no trace", "-drive" not in qemu and "-D" not in qemu, qemu)
    refused(["--disk-ro"], "--disk-ro and --disk-new apply to --disk FILE only")
    refused(["--disk", "f.img", "--disk-new", "5000"],
            "--disk-new 5000: not a positive multiple of 4 KiB")
    refused(["--disk", "f.img", "--disk-new", "4X"], "--disk-new 4X: not a size")
    refused(["--disk", "f.img", "--disk-detach"],
            "--disk-detach applies to --domu --disk, without --lifecycle or --linux")


def check_net(run_qemu, run_net, args):
    """--net: natively (or under --domu, check_domu_net), once, with the
    client built; the kernel's words unless the command line sets them; QEMU's card with both ports forwarded
    to the guest's address; the client started by the guest's up line, its
    lines shown between the guest's, and a silent end named."""
    refused(["--net", "--net"], "--net given 2 times: the guest has one network card")
    for door in (["--iso"], ["--xen"], ["--linux", "--xen"]):
        refused(door + ["--net"], "--net is not supported with %s (only natively and with "
                "--domu, patchbay or --linux)" % door[-1])
    refused(["--net-count", "5"], "--net-count applies to --net only")
    refused(["--net-size", "64", "--net-window", "2"],
            "--net-size and --net-window apply to --net only")
    refused(["--net", "--net-count", "0"], "--net-count must be from 1 to 100000000, not 0")
    refused(["--net", "--net-size", "1473"], "--net-size must be from 8 to 1472, not 1473")
    refused(["--net", "--net-window", "0"], "--net-window must be from 1 to 4096, not 0")
    refused(["--net-interval-ms", "0"], "--net-interval-ms applies to --net only")
    refused(["--net", "--net-interval-ms", "60001"],
            "--net-interval-ms must be from 0 to 60000, not 60001")
    a = args("--net")
    check("--net: net=on net.ip=10.0.2.15 net.timeout=50 on the command line; 200 "
          "datagrams of 64 bytes, 8 in flight",
          a.cmdline == "net=on net.ip=10.0.2.15 net.timeout=50"
          and (a.net_count, a.net_size, a.net_window) == (200, 64, 8), a.cmdline)
    a = args("--net", "--icount")
    check("--net --icount: the guest waits as long as it may (its idle clock runs ahead)",
          a.cmdline == "tsc.icount net=on net.ip=10.0.2.15 net.timeout=86400", a.cmdline)
    a = args("--net", "--timeout", "90", "--net-count", "7", "--net-size", "1472",
             "--net-window", "64", "--", "net.ip=10.0.2.99 x")
    a.echo_port, a.counters_port = 5555, 5556
    words = run_qemu.net_qemu_args(a)
    check("--net, the user's net.ip: kept, and the ports forwarded to it",
          a.cmdline == "net=on net.timeout=80 net.ip=10.0.2.99 x"
          and words == ["-netdev", "user,id=pbnet,hostfwd=udp:127.0.0.1:5555-10.0.2.99:7,"
                        "hostfwd=udp:127.0.0.1:5556-10.0.2.99:9",
                        "-device", "virtio-net-pci,netdev=pbnet,disable-legacy=on"]
          and run_net.client_command(a)[1:] == ["127.0.0.1", "5555", "--count", "7", "--size",
                                                "1472", "--window", "64", "--end-port", "5556"],
          (a.cmdline, words))
    a = args("--net", "--net-interval-ms", "3")
    a.echo_port, a.counters_port = 5555, 5556
    check("--net-interval-ms 3: the host's client waits 3 ms between sendings",
          run_net.client_command(a)[-2:] == ["--interval-ms", "3"], run_net.client_command(a))
    refused(["--net-peer", "frames"], "--net-peer applies to --net only")
    a = args("--net", "--net-peer", "frames", "--net-count", "3")
    a.echo_port, a.counters_port = 5555, 5556
    peer = run_net.client_command(a)
    check("--net-peer frames: QEMU's card on a datagram socket to tools/netpeer.py's port",
          run_qemu.net_qemu_args(a) == [
              "-netdev", "dgram,id=pbnet,local.type=inet,local.host=127.0.0.1,local.port=5555,"
              "remote.type=inet,remote.host=127.0.0.1,remote.port=5556",
              "-device", "virtio-net-pci,netdev=pbnet,disable-legacy=on"]
          and peer[1].endswith("tools/netpeer.py")
          and peer[2:] == ["frames", "--port", "5556", "--guest-port", "5555", "--guest-ip",
                           "10.0.2.15", "--count", "3"], (run_qemu.net_qemu_args(a), peer))
    with tempfile.TemporaryDirectory() as work:
        qemu = run_qemu.qemu_command(args(), "/nonexistent/patchbay.elf", work)
        check("no --net: no card, no net= words", "-netdev" not in qemu
              and "net=" not in args().cmdline, qemu)
        env = dict(os.environ, BUILD=work)
        p = subprocess.run([sys.executable, RUN, "--net", "--image", RUN], env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
        check("--net without the client built: one line, status 2",
              p.returncode == 2 and p.stderr == "run: %s/host/udpclient not found; build it "
              "with make udpclient (--net runs it as the guest's peer)\n" % work and not p.stdout,
              "status %d, stderr %r" % (p.returncode, p.stderr))
        os.makedirs(os.path.join(work, "host"))
        client = os.path.join(work, "host", "udpclient")
        for script, want in (
                ("echo \"udpclient: sent to $1:$2, end to ${10}\"",
                 b"udpclient: sent to 127.0.0.1:8, end to 9\n"),
                ("exit 3", b"udpclient: exited with status 3 without its counts\n")):
            with open(client, "w") as f:
                f.write("#!/bin/sh\n%s\n" % script)
            os.chmod(client, 0o755)
            os.environ["BUILD"] = work
            try:
                a = args("--net")
                a.echo_port, a.counters_port = 8, 9
                shown = Shown()
                c = run_net.NetClient(a, shown)
                with selectors.DefaultSelector() as sel:
                    for data in (b"net: registered\n",
                                 b"net: eth0 up at 10.0.2.15: UDP echo\nnet: par"):
                        shown.write(data)
                        c.guest_wrote(data, sel)
                        started = c.proc is not None
                    while sel.get_map():
                        sel.select(10)
                        c.read(sel)
                    held = shown.data
                    shown.write(b"tial\n")
                    c.guest_wrote(b"tial\n", sel)
                c.stop()
            finally:
                os.environ.pop("BUILD")
            check("--net, a client that says %r: started on the up line, shown after the "
                  "guest's line" % script, started and held.endswith(b"net: par")
                  and shown.data.endswith(b"net: partial\n" + want), shown.data)


def check_disk(run, run_domu, args):
    """--disk FILE: every door gives QEMU FILE as the same traced virtio
    disk (dom0's under --domu, with the disk archive), the xl config hands
    /dev/vda to the guest as xvda, dom0's params say so, the door's line is
    shown; nothing of it without --disk."""
    with tempfile.TemporaryDirectory() as d:
        run_domu.build_dir = lambda: d
        run_domu.fetch_xen = lambda: "/nonexistent/xen"
        run_domu.subprocess.call = lambda *a, **k: 0
        run_domu.domu_setup_archive = lambda a: b"SETUP"
        os.makedirs(os.path.join(d, "domu"))
        for name, data in (("initrd.cpio", b"BASE"), ("disk.cpio", b"DISK!"),
                           ("vmlinux", b"")):
            with open(os.path.join(d, "domu", name), "wb") as f:
                f.write(data)

        def door(*argv):
            with tempfile.TemporaryDirectory() as work:
                qemu = run_domu.domu_args(args("--domu", *argv), "/nonexistent/patchbay.elf",
                                          work)
                with open(os.path.join(work, "initrd.cpio"), "rb") as f:
                    return qemu, f.read()

        qemu, initrd = door("--disk", "/tmp/a,b.img")
        check("--disk: the disk archive between the base and the run's setup",
              initrd == b"BASE" + b"DISK!\0\0\0" + b"SETUP", initrd)
        check("--disk: the disk itself is not the door's (tools/pbtools/run/disk.py)",
              "-drive" not in qemu, qemu)
        qemu, initrd = door()
        check("no --disk: no disk archive", initrd == b"BASESETUP", initrd)
    for argv, mode in ((["--disk", "f.img"], b"w"), (["--disk", "f.img:ro"], b"r"),
                       (["--disk", "f.img", "--disk-ro"], b"r")):
        a = args("--domu", *argv)
        config = run_domu.domu_config(a)
        check("--domu %s: the xl config's disk is dom0's /dev/vda as xvda, mode %s"
              % (" ".join(argv), mode.decode()),
              config.endswith(b"\ndisk = [ 'phy:/dev/vda,xvda,%s' ]\n" % mode), config)
        setup = run_domu.domu_setup(a)
        check("--domu %s: DISK=%s in dom0's setup" % (" ".join(argv), mode.decode()),
              setup == b"EXIT_PORT=244\nDISK=%s\n" % mode, setup)
    check("no --disk: no disk in the xl config", b"disk" not in run_domu.domu_config(
        args("--domu")))
    a = args("--domu", "--disk", "f.img", "--lifecycle", "save-restore,move")
    check("--disk --lifecycle save-restore,move: 20 s more a step, 90 + 2 * 50 s in all",
          a.timeout == 190 and "lifecycle.timeout=190" in a.cmdline, (a.timeout, a.cmdline))

    shown = Shown()
    stream = run_domu.DomuConsole(shown, False, None)
    stream.write(b"dom0: /local/domain/0/backend/vbd/1/51712/state = \"2\"\r\n"
                 b"domu-door: disk xvda backend ready (blkback, InitWait)\r\n")
    stream.flush()
    check("--disk: the door's line shown, dom0's not",
          shown.data == b"domu-door: disk xvda backend ready (blkback, InitWait)\n", shown.data)


def check_pvh_entry(run_domu):
    """--linux --domu --pvh's check of the kernel's PVH entry note, through
    Xen's readnotes when it is there: an ELF with the note passes (the
    image has one), one without is refused in one line."""
    build = run_domu.build_dir()
    image = os.path.join(build, "patchbay.elf")
    if not (os.path.exists(os.path.join(build, "xen", "readnotes")) and os.path.exists(image)):
        print("SKIP the PVH entry check: no readnotes or image under %s" % build)
        return
    run_domu.check_pvh_entry(image, "vmlinuz-test")
    check("an ELF with XEN_ELFNOTE_PHYS32_ENTRY passes the PVH entry check", True)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            run_domu.check_pvh_entry("/bin/true", "vmlinuz-test")
            status = None
        except SystemExit as e:
            status = e.code
    check("an ELF without the PVH entry note is refused in one line, status 2",
          status == 2 and err.getvalue() == (
              "run: vmlinuz-test has no PVH entry (no XEN_ELFNOTE_PHYS32_ENTRY note in its "
              "ELF, /bin/true): --linux --domu --pvh cannot boot it\n"),
          "status %r, stderr %r" % (status, err.getvalue()))
def check_domu_net(run_domu, args):
    """--domu --net: the kernel's net words unless given (and net.timeout
    under a plan, which gets 30 s more a step), the vif in the xl config,
    NET in dom0's params, the disk archive (the hotplug scripts) and the
    network archive before the run's own, the peers' lines shown; --net
    without --domu refused."""
    a = args("--domu", "--net")
    check("--domu --net: net=on net.ip=10.0.0.2 on the kernel's line",
          a.cmdline == "net=on net.ip=10.0.0.2", a.cmdline)
    a = args("--domu", "--net", "--", "net.ip=10.0.0.9 x=1")
    check("--domu --net -- net.ip=...: the user's address, not the door's",
          a.cmdline == "net=on net.ip=10.0.0.9 x=1", a.cmdline)
    a = args("--domu", "--net", "--lifecycle", "save-restore,move")
    check("--net --lifecycle save-restore,move: 30 s more a step, 90 + 2 * 60 s, net.timeout too",
          a.timeout == 210 and "net.timeout=210" in a.cmdline.split(), str((a.timeout, a.cmdline)))
    config = run_domu.domu_config(args("--domu", "--net"))
    check("--net: the xl config's vif on xenbr0 with Xen's OUI",
          config.endswith(b'\nvif = [ "bridge=xenbr0,mac=00:16:3e:0a:00:02" ]\n'), config)
    check("no --net: no vif", b"vif" not in run_domu.domu_config(args("--domu")))
    params = run_domu.domu_params(args("--domu", "--net"))
    setup = run_domu.domu_setup(args("--domu", "--net"))
    check("--net: NET=1 in the setup; the addresses, 200 datagrams of 64 bytes, 8 in flight, "
          "10 ms apart in the params",
          setup == b"EXIT_PORT=244\nNET=1\n"
          and params == b"NET_HOST=10.0.0.1\nNET_GUEST=10.0.0.2\n"
          b"NET_COUNT=200\nNET_SIZE=64\nNET_WINDOW=8\nNET_INTERVAL_MS=10\n", (setup, params))
    params = run_domu.domu_params(args("--domu", "--net", "--net-count", "5", "--net-size",
                                       "1472", "--net-window", "2"))
    check("--domu --net-count 5 --net-size 1472 --net-window 2: the client's, in the params",
          b"NET_COUNT=5\nNET_SIZE=1472\nNET_WINDOW=2\n" in params, params)
    params = run_domu.domu_params(args("--domu", "--net", "--net-interval-ms", "0"))
    check("--domu --net-interval-ms 0: the client sends back to back",
          b"NET_INTERVAL_MS=0\n" in params, params)
    params = run_domu.domu_params(args("--domu", "--net", "--lifecycle", "move"))
    check("--net --lifecycle: the client sends until the plan is through, 20 ms apart, 64 in "
          "flight",
          b"NET_COUNT=1000000\n" in params and b"NET_INTERVAL_MS=20\n" in params
          and b"NET_WINDOW=64\n" in params, params)
    params = run_domu.domu_params(args("--domu", "--net", "--lifecycle", "move", "--net-window",
                                       "4"))
    check("--net --lifecycle --net-window 4: the user's window", b"NET_WINDOW=4\n" in params,
          params)
    params = run_domu.domu_params(args("--domu", "--net", "--net-detach"))
    check("--net-detach: NET_DETACH=1, the client sends until the guest stops",
          b"NET_DETACH=1\n" in params and b"NET_COUNT=1000000\n" in params, params)
    params = run_domu.domu_params(args("--domu", "--net", "--net-flood", "300"))
    check("--net-flood 300: NET_FLOOD=300, the client sends until the flood is over",
          b"NET_FLOOD=300\n" in params and b"NET_COUNT=1000000\n" in params, params)
    for argv, why in ((["--domu", "--net-detach"], "--net-detach applies to --domu --net, "
                       "without --lifecycle or --linux"),
                      (["--domu", "--net", "--net-detach", "--lifecycle", "move"],
                       "--net-detach applies to --domu --net, without --lifecycle or --linux"),
                      (["--net", "--net-flood", "5"], "--net-flood applies to --domu --net, "
                       "without --linux: the flood is dom0's ping"),
                      (["--domu", "--net", "--net-flood", "0"],
                       "--net-flood must be from 1 to 1000000, not 0")):
        refused(argv, why)
    with tempfile.TemporaryDirectory() as d:
        run_domu.build_dir = lambda: d
        run_domu.fetch_xen = lambda: "/nonexistent/xen"
        run_domu.subprocess.call = lambda *a, **k: 0
        run_domu.domu_setup_archive = lambda a: b"SETUP"
        os.makedirs(os.path.join(d, "domu"))
        for name, data in (("initrd.cpio", b"BASE"), ("disk.cpio", b"DISK!"),
                           ("net.cpio", b"NET"), ("vmlinux", b"")):
            with open(os.path.join(d, "domu", name), "wb") as f:
                f.write(data)
        with tempfile.TemporaryDirectory() as work:
            run_domu.domu_args(args("--domu", "--net"), "/nonexistent/patchbay.elf", work)
            with open(os.path.join(work, "initrd.cpio"), "rb") as f:
                initrd = f.read()
        check("--net: the disk archive (hotplug scripts) and the network archive, then the run's",
              initrd == b"BASE" + b"DISK!\0\0\0" + b"NET\0" + b"SETUP", initrd)
    refused(["--domu", "--net", "--net-peer", "frames"],
            "--net-peer frames needs the native door: under --domu the peers are dom0's")

    shown = Shown()
    stream = run_domu.DomuConsole(shown, False, None)
    stream.write(b"dom0: network modules loaded\r\n"
                 b"net-door: ping: 5 packets transmitted, 5 packets received, 0% packet loss\r\n")
    stream.flush()
    check("--net: the peers' lines shown, dom0's not",
          shown.data == b"net-door: ping: 5 packets transmitted, 5 packets received, 0% packet "
          b"loss\n", shown.data)


def cpio_names(archive):
    """The (name, data) entries of a newc cpio archive, in order."""
    out, pos = [], 0
    while True:
        size, namesize = int(archive[pos + 54:pos + 62], 16), int(archive[pos + 94:pos + 102], 16)
        name = archive[pos + 110:pos + 110 + namesize - 1].decode()
        pos += 110 + namesize
        pos += -pos % 4
        if name == "TRAILER!!!":
            return out
        out.append((name, archive[pos:pos + size]))
        pos += size + -(pos + size) % 4


def check_linux_net(run_linux, run_domu, args):
    """--linux --net: natively the door's words go to the program, and its
    initramfs holds Linux's virtio-net stack with net.order in load order;
    in a domU, xen-netfront.ko beside the program; the Ethernet peer, which
    checks patchbay's own stack, refused."""
    a = args("--linux", "--net")
    check("--linux --net: the program gets net=on net.ip=10.0.2.15 net.timeout=50",
          a.cmdline == "net=on net.ip=10.0.2.15 net.timeout=50", a.cmdline)
    refused(["--linux", "--net", "--net-peer", "frames"],
            "--net-peer frames checks patchbay's own stack: --linux takes the UDP client only")
    with tempfile.TemporaryDirectory() as d:
        modules = os.path.join(d, "domu", "root", "lib", "modules", "6.1", "kernel")
        for path in ("drivers/virtio/virtio_ring", "drivers/virtio/virtio",
                     "drivers/virtio/virtio_pci_legacy_dev", "drivers/virtio/virtio_pci_modern_dev",
                     "drivers/virtio/virtio_pci", "drivers/block/virtio_blk", "net/core/failover",
                     "drivers/net/net_failover", "drivers/net/virtio_net",
                     "drivers/net/xen-netfront", "drivers/block/xen-blkfront"):
            os.makedirs(os.path.dirname(os.path.join(modules, path)), exist_ok=True)
            with open(os.path.join(modules, path + ".ko"), "w") as f:
                f.write(path)
        os.makedirs(os.path.join(d, "domu", "root", "boot"))
        for name in ("domu/root/boot/vmlinuz-6.1", "program"):
            with open(os.path.join(d, name), "w") as f:
                f.write("ELF")
        saved = (run_linux.build_dir, run_linux.fetch_linux, run_domu.build_dir,
                 run_domu.udpclient_static)
        run_linux.build_dir = run_domu.build_dir = lambda: d
        run_linux.fetch_linux = lambda: os.path.join(d, "program")
        run_domu.udpclient_static = lambda: os.path.join(d, "program")
        try:
            with tempfile.TemporaryDirectory() as work:
                run_linux.linux_args(args("--linux", "--net"), os.path.join(d, "program"), work)
                with open(os.path.join(work, "initrd.cpio"), "rb") as f:
                    files = dict(cpio_names(f.read()))
            order = ["virtio_ring", "virtio", "virtio_pci_legacy_dev", "virtio_pci_modern_dev",
                     "virtio_pci", "failover", "net_failover", "virtio_net"]
            check("--linux --net: the initramfs holds the virtio-net stack, net.order in "
                  "modinfo's order, no disk's",
                  files.get("net.order") == b"".join(m.encode() + b"\n" for m in order)
                  and files.get("virtio_net.ko") == b"drivers/net/virtio_net"
                  and files.get("failover.ko") == b"net/core/failover"
                  and "disk.order" not in files and "virtio_blk.ko" not in files,
                  sorted(files))
            overlay = dict(cpio_names(run_domu.domu_files(
                args("--linux", "--domu", "--net"), os.path.join(d, "program"), None)))
            domu = dict(cpio_names(overlay["patchbay/initrd.cpio"]))
            check("--linux --domu --net: xen-netfront.ko beside the program, no blkfront",
                  domu.get("xen-netfront.ko") == b"drivers/net/xen-netfront"
                  and "xen-blkfront.ko" not in domu and "patchbay/udpclient" in overlay,
                  sorted(domu))
        finally:
            (run_linux.build_dir, run_linux.fetch_linux, run_domu.build_dir,
             run_domu.udpclient_static) = saved


def check_gdb(run, run_qemu, run_gdb, args):
    """--gdb: QEMU's arguments, the time-out, refusals and gdb's kill."""
    os.chdir(ROOT)  # the printed command names paths below the working directory
    with tempfile.TemporaryDirectory() as d:
        plain = run_qemu.qemu_command(args(), "/nonexistent/patchbay.elf", d)
        a = args("--gdb")
        a.gdb_socket = run_gdb.gdb_listen()
        with a.gdb_socket:
            fd = a.gdb_socket.fileno()
            got = run_qemu.qemu_command(a, "/nonexistent/patchbay.elf", d)
    want = plain + ["-S", "-chardev", "socket,id=gdb,fd=%d,server=on,wait=off" % fd,
                    "-gdb", "chardev:gdb"]
    check("--gdb: QEMU stopped (-S), its gdbstub on tools/run's socket", got == want, got)
    check("no --gdb: no -S, no gdbstub", "-S" not in plain and "-gdb" not in plain, plain)
    for argv, want in ((["--gdb"], 3600), (["--gdb", "--timeout", "30"], 30),
                       (["--xen", "--gdb"], 3600),
                       (["--domu", "--gdb", "--lifecycle", "move"], 3600),
                       (["--domu", "--lifecycle", "move"], 120)):
        got = args(*argv).timeout
        check("%s: time-out %d" % (" ".join(argv), want), got == want, got)
    line = run_gdb.gdb_command(1234, os.path.join(ROOT, "build", "patchbay.elf"))
    check("--gdb: the printed command loads the image and the commands, then connects",
          line == "gdb -q build/patchbay.elf -x tools/gdb/patchbay.py "
          "-ex 'target remote 127.0.0.1:1234'", line)
    for door in (["--linux"], ["--linux", "--xen"]):
        refused(door + ["--gdb"], run_gdb.GDB_NOT_LINUX)
    for door in (["--xen", "--pvh"], ["--domu", "--pvh"]):
        refused(door + ["--gdb"], run_gdb.GDB_NOT_PVH)
    killed = b"qemu-system-x86_64: QEMU: Terminated via GDBstub\n"
    got = run.outcome(args("--gdb"), "/nonexistent/patchbay.elf", 0, None, killed, b"")
    check("--gdb, QEMU ended by gdb's kill: status 101, named so",
          got == (101, "gdb killed QEMU", "gdb killed QEMU"), got)
    got = run.outcome(args("--gdb"), "/nonexistent/patchbay.elf", 0, None, b"", b"")
    check("--gdb, QEMU ended otherwise: as without --gdb",
          got == run.outcome(args(), "/nonexistent/patchbay.elf", 0, None, b"", b"")
          and got[0] == 101 and "gdb" not in got[1], got)


def check_kvm(run_args, run_qemu, args):
    """--kvm: L1's CPUs and memory on QEMU's line, the guest's on the L2
    QEMU's (its KVM and L1's CPU), and what the door does not do refused."""
    from pbtools.run import kvm as run_kvm

    a = args("--kvm", "--smp", "2", "--host-cpus", "1", "--mem", "64", "--", "wl=on")
    machine, l2 = run_qemu.machine_args(a), run_kvm.l2_qemu_args(a)
    check("--kvm --smp 2 --host-cpus 1 --mem 64: L1 one CPU and 64 + L1_MEM MiB",
          "-smp" not in machine and machine[machine.index("-m") + 1] == str(64 + run_kvm.L1_MEM),
          machine)
    check("--kvm: the L2 QEMU runs KVM with L1's CPU, 2 CPUs, 64 MiB, the command line",
          l2[:6] == ["-accel", "kvm", "-cpu", "host", "-m", "64"]
          and l2[l2.index("-smp") + 1] == "2" and l2[-2:] == ["-append", "wl=on"], l2)
    check("--kvm: 240 s unless told", args("--kvm").timeout == run_args.KVM_TIMEOUT == 240)
    for extra in (["--gdb"], ["--disk", "f.img"], ["--net"]):
        refused(["--kvm"] + extra, "--kvm boots KVM's guest without --lifecycle, --gdb, "
                "--disk or --net")
    refused(["--kvm", "--xen"], "argument --xen: not allowed with argument --kvm")
    refused(["--kvm", "--domu-mem", "64"],
            "--domu-mem applies to --domu only, --verbose to --domu and --kvm")


def check_kvm_consoles(run, args):
    """--kvm: L1's console is its own file, the guest's the stream. A panic
    on the guest's console is the guest's; L1's panic, in its file, is
    L1's failure (103); the guest's status comes through the door's end
    line in L1's file; its kvm-door lines are shown after the guest's,
    the end line only with --verbose."""
    from pbtools.run import kvm as run_kvm

    image = "/nonexistent/patchbay.elf"
    guest_panic = b"[    4.5] Kernel panic - not syncing: No working init found.\n"
    end_101 = b"patchbay-kvm: end 101 the L2 QEMU ended with status 0 without a kernel exit\n"
    got = run.outcome(args("--kvm"), image, 2 * 101 + 1, None, b"", guest_panic, end_101)
    check("--kvm: the guest's panic is the guest's: status 101 from the door's end line",
          got[0] == 101 and "without a kernel exit" in got[1], str(got))
    got = run.outcome(args("--kvm"), image, 0, None, b"",
                      b"", b"Kernel panic - not syncing: System is deadlocked on memory\n")
    check("--kvm: L1's panic, on its own console, is L1's failure (103)",
          got == (103, "L1 Linux: Kernel panic - not syncing: System is deadlocked on memory",
                  "L1 Linux: Kernel panic - not syncing: System is deadlocked on memory"), str(got))
    got = run.outcome(args("--kvm"), image, 1, None, b"", b"patchbay: PASS\n",
                      b"patchbay-kvm: end 0 kernel\n")
    check("--kvm: the guest's PASS and the door's end 0: status 0", got == (0, "", None), str(got))
    shown_l1 = b"patchbay: PASS\nkvm-door: a line\n"
    for verbose, want in ((False, shown_l1), (True, shown_l1 + b"patchbay-kvm: end 0 kernel\n")):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, run_kvm.L1_LOG), "wb") as f:
                f.write(b"kvm-door: a line\r\npatchbay-kvm: end 0 kernel\r\n")
            shown = Shown()
            stream = run_kvm.KvmConsole(shown, verbose, None, d)
            stream.write(b"patchbay: PASS\r\n")
            stream.close()
            check("--kvm%s: the guest's lines, then L1's kvm-door lines%s" % (
                " --verbose" if verbose else "", " and its end line" if verbose else ""),
                bytes(shown.data) == want and stream.l1.endswith(b"end 0 kernel\n"),
                bytes(shown.data))


def main():
    os.environ.pop("PATCHBAY_QEMU_EXTRA", None)
    from pbtools.run import main as run
    from pbtools.run import args as run_args
    from pbtools.run import lifecycle as run_lifecycle
    from pbtools.run import qemu as run_qemu
    from pbtools.run import domu as run_domu
    from pbtools.run import gdb as run_gdb
    from pbtools.run import linux as run_linux
    from pbtools.run import net as run_net
    from pbtools.run import xen as run_xen

    def args(*argv):
        return run_args.parse_args(list(argv))

    # --smp 1 (and --host-cpus 1) is the run of before: the same arguments.
    with tempfile.TemporaryDirectory() as d:
        image = os.path.join(d, "patchbay.elf")
        for door in ([], ["--icount"]):
            base = run_qemu.qemu_command(args(*door), image, d)
            for extra in (["--smp", "1"],):
                got = run_qemu.qemu_command(args(*(door + extra)), image, d)
                check("PVH %s QEMU command = without it" % " ".join(door + extra),
                      got == base, "%s != %s" % (got, base))
    for door in (["--iso"], ["--xen"], ["--domu"]):
        base = run_qemu.machine_args(args(*door))
        same = [["--smp", "1"]] + ([["--smp", "1", "--host-cpus", "1"]]
                                   if door != ["--iso"] else [])
        for extra in same:
            got = run_qemu.machine_args(args(*(door + extra)))
            check("%s machine = without it" % " ".join(door + extra), got == base,
                  "%s != %s" % (got, base))
    base = run_qemu.machine_args(args())
    check("one CPU: -accel tcg, no -smp",
          base[:2] == ["-accel", "tcg"] and "-smp" not in base, base)
    check("--xen --smp 1: Xen's line as before",
          run_xen.xen_cmdline(args("--xen", "--smp", "1")) ==
          "console=com1 com1=115200 dom0_mem=64M guest_loglvl=all loglvl=all")
    check("--domu --smp 1: vcpus = 1",
          b"\nvcpus = 1\n" in run_domu.domu_config(args("--domu", "--smp", "1")))
    os.environ["PATCHBAY_XEN_EXTRA"] = " sched=credit  sched_ratelimit_us=0 "
    try:
        line = run_xen.xen_cmdline(args("--xen", "--smp", "1"))
    finally:
        del os.environ["PATCHBAY_XEN_EXTRA"]
    check("PATCHBAY_XEN_EXTRA: its words at the end of Xen's line",
          line == "console=com1 com1=115200 dom0_mem=64M guest_loglvl=all loglvl=all "
          "sched=credit sched_ratelimit_us=0", line)

    # Several CPUs: where each door puts N and M.
    def machine(*argv):
        a = run_qemu.machine_args(args(*argv))
        smp = a[a.index("-smp") + 1] if "-smp" in a else None
        return a[a.index("-accel") + 1], smp

    check("--smp 4: QEMU -smp 4, multi-threaded",
          machine("--smp", "4") == ("tcg,thread=multi", "4"), str(machine("--smp", "4")))
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
    # A PVH domU of two vCPUs: one thread, unless asked (docs/pvh.md).
    check("--domu --pvh --smp 2: single-threaded",
          machine("--domu", "--pvh", "--smp", "2") == ("tcg,thread=single", "2"),
          str(machine("--domu", "--pvh", "--smp", "2")))
    check("--domu --pvh --host-cpus 2 (one vCPU): multi-threaded",
          machine("--domu", "--pvh", "--host-cpus", "2") == ("tcg,thread=multi", "2"))
    check("--xen --pvh --smp 2 (dom0): multi-threaded",
          machine("--xen", "--pvh", "--smp", "2") == ("tcg,thread=multi", "2"))
    check("--domu --pvh --smp 2 --tcg-thread multi: as asked",
          machine("--domu", "--pvh", "--smp", "2", "--tcg-thread", "multi")
          == ("tcg,thread=multi", "2"))
    check("--smp 2 --tcg-thread single: as asked",
          machine("--smp", "2", "--tcg-thread", "single") == ("tcg,thread=single", "2"))
    check("--tcg-thread on one CPU: nothing added",
          machine("--tcg-thread", "single") == ("tcg", None))
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
    refused(["--smp", "2", "--icount", "--tcg-thread", "multi"],
            "--tcg-thread multi: QEMU runs --icount only single-threaded")
    refused(["--tcg-thread", "many"], "argument --tcg-thread: invalid choice: 'many' "
            "(choose from 'multi', 'single')")
    for door in ([], ["--iso"]):
        refused(door + ["--host-cpus", "2"],
                "--host-cpus applies to --xen, --domu and --kvm only "
                "(natively, --smp N is QEMU's CPU count)")
    check_kvm(run_args, run_qemu, args)
    check_kvm_consoles(run, args)

    # --linux boots Debian's kernel natively, as a PV dom0 or as a PV or PVH
    # domU, on one CPU.
    for extra in (["--iso"], ["--smp", "2"], ["--xen", "--host-cpus", "2"],
                  ["--pvh"], ["--xen", "--pvh"], ["--domu", "--pvh", "--smp", "2"],
                  ["--domu", "--smp", "2"]):
        refused(["--linux"] + extra,
                "--linux boots natively, with --xen as a PV dom0, with --domu as a PV "
                "or (--pvh) PVH domU, or with --kvm as KVM's guest, on one CPU")
    refused(["--linux", "--domu", "--lifecycle", "move"],
            "--lifecycle applies to patchbay, not --linux: the program does not wait for "
            "resumes")
    a = args("--linux", "--domu", "--", "bench.quick")
    config = run_domu.domu_config(a)
    check("--linux --domu: Debian's vmlinuz, the program's initramfs, bench.domu first",
          b'\nkernel = "/patchbay/vmlinuz"\n' in config
          and config.endswith(b'\nramdisk = "/patchbay/initrd.cpio"\n')
          and b'\nextra = "console=hvc0 quiet panic=-1 -- bench.domu bench.quick"\n' in config
          and b"\nmemory = 128\n" in config, config)
    check("--linux --domu: RDTSCP left as it is for a PV domU", b"cpuid" not in config, config)
    config = run_domu.domu_config(args("--linux", "--domu", "--pvh"))
    check("--linux --domu --pvh: the same vmlinuz as a PVH domU, RDTSCP hidden",
          b'\ntype = "pvh"\n' in config and b'\nkernel = "/patchbay/vmlinuz"\n' in config
          and b'\ncpuid = "host,rdtscp=0"\n' in config, config)
    config = run_domu.domu_config(args("--domu"))
    check("--domu: patchbay's image, no ramdisk",
          b'\nkernel = "/patchbay/patchbay.elf"\n' in config and b"ramdisk" not in config,
          config)
    # --pvh makes the kernel a PVH guest of Xen: natively it is none.
    for door in ([], ["--iso"]):
        refused(door + ["--pvh"],
                "--pvh applies to --xen and --domu only: it makes the kernel a PVH guest of Xen")

    check_pvh_doors(run_qemu, run_xen, run_domu, args)
    check_pvh_entry(run_domu)  # before check_disk, which points build_dir elsewhere
    check_linux_net(run_linux, run_domu, args)  # before check_disk replaces domu_setup_archive
    check_verdicts(run_xen, run_domu)
    check_lifecycle(run_domu, run_lifecycle, args)
    check_lifecycle_lines(run_domu)
    check_gdb(run, run_qemu, run_gdb, args)
    check_disk(run, run_domu, args)
    check_domu_net(run_domu, args)
    check_disk_drive(run_qemu, args)
    check_net(run_qemu, run_net, args)

    sys.exit(summary())


if __name__ == "__main__":
    main()
