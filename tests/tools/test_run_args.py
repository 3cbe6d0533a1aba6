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
lacks."""

import contextlib
import io
import os
import selectors
import subprocess
import sys
import tempfile

import pytest
from pbtools.run import args as run_args
from pbtools.run import domu as run_domu
from pbtools.run import gdb as run_gdb
from pbtools.run import kvm as run_kvm
from pbtools.run import lifecycle as run_lifecycle
from pbtools.run import linux as run_linux
from pbtools.run import main as run
from pbtools.run import net as run_net
from pbtools.run import qemu as run_qemu
from pbtools.run import xen as run_xen

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "tools", "run")
IMAGE = "/nonexistent/patchbay.elf"  # no image: RIPs stay hexadecimal


@pytest.fixture(autouse=True)
def no_extra_words(monkeypatch):
    """The caller's extra QEMU and Xen words stay out of the command lines."""
    monkeypatch.delenv("PATCHBAY_QEMU_EXTRA", raising=False)
    monkeypatch.delenv("PATCHBAY_XEN_EXTRA", raising=False)


def args(*argv):
    return run_args.parse_args(list(argv))


class Shown:
    """What a console stream showed: the bytes written to it."""
    data = b""

    def write(self, data):
        self.data += data


def refusals(table):
    """Parametrizes a test over (argv, message) pairs, each named by its argv."""
    return pytest.mark.parametrize("argv,message", table,
                                   ids=[" ".join(argv) for argv, _ in table])


def assert_refused(argv, message):
    """tools/run argv exits 2 before QEMU, its last stderr line message."""
    p = subprocess.run([sys.executable, RUN] + argv, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=30)
    errors = [line for line in p.stderr.splitlines() if "error" in line]
    assert p.returncode == 2 and errors == ["tools/run: error: " + message] \
        and not p.stdout, "%s is refused: status %d, stderr %r" % (
            " ".join(argv), p.returncode, p.stderr)


def console_shows(written):
    """What the domU door's console shows of the lines dom0 wrote."""
    shown = Shown()
    stream = run_domu.DomuConsole(shown, False, None)
    stream.write(written)
    stream.flush()
    return shown.data


def domu_verdict(text, end, pvh=False):
    """The --domu door's (status, reason) for a console ending with end."""
    code, reason, _ = run_domu.domu_exit(end, run_domu.DOMU_END_LINE.findall(text), "",
                                         text, IMAGE, pvh)
    return code, reason


def fake_domu_build(monkeypatch, d, archives):
    """The domU door's build directory at d, holding archives ({name: data}
    under domu/); no Xen to fetch, no command run, the run's setup SETUP."""
    monkeypatch.setattr(run_domu, "build_dir", lambda: d)
    monkeypatch.setattr(run_domu, "fetch_xen", lambda: "/nonexistent/xen")
    monkeypatch.setattr(run_domu.subprocess, "call", lambda *a, **k: 0)
    monkeypatch.setattr(run_domu, "domu_setup_archive", lambda a: b"SETUP")
    os.makedirs(os.path.join(d, "domu"))
    for name, data in dict(archives, vmlinux=b"").items():
        with open(os.path.join(d, "domu", name), "wb") as f:
            f.write(data)


def domu_initrd(base, *argv):
    """The QEMU command and initramfs the domU door makes for argv, in a
    working directory of its own under base."""
    work = tempfile.mkdtemp(dir=base)
    qemu = run_domu.domu_args(args("--domu", *argv), IMAGE, work)
    with open(os.path.join(work, "initrd.cpio"), "rb") as f:
        return qemu, f.read()


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


# --smp 1 (and --host-cpus 1) is the run of before: the same arguments.
@pytest.mark.parametrize("door", ([], ["--icount"]), ids=["native", "--icount"])
def test_smp_1_qemu_command_as_without(tmp_path, door):
    image = str(tmp_path / "patchbay.elf")
    base = run_qemu.qemu_command(args(*door), image, str(tmp_path))
    got = run_qemu.qemu_command(args(*(door + ["--smp", "1"])), image, str(tmp_path))
    assert got == base, "PVH %s QEMU command = without it" % " ".join(door + ["--smp", "1"])


SAME_MACHINE = [(door, extra) for door in (["--iso"], ["--xen"], ["--domu"])
                for extra in [["--smp", "1"]] + ([["--smp", "1", "--host-cpus", "1"]]
                                                 if door != ["--iso"] else [])]


@pytest.mark.parametrize("door,extra", SAME_MACHINE,
                         ids=[" ".join(d + e) for d, e in SAME_MACHINE])
def test_one_cpu_machine_as_without(door, extra):
    base = run_qemu.machine_args(args(*door))
    got = run_qemu.machine_args(args(*(door + extra)))
    assert got == base, "%s machine = without it" % " ".join(door + extra)


def test_one_cpu_no_smp():
    base = run_qemu.machine_args(args())
    assert base[:2] == ["-accel", "tcg"] and "-smp" not in base, \
        "one CPU: -accel tcg, no -smp: %s" % base


def test_xen_smp_1_line_as_before():
    assert run_xen.xen_cmdline(args("--xen", "--smp", "1")) == \
        "console=com1 com1=115200 dom0_mem=64M guest_loglvl=all loglvl=all", \
        "--xen --smp 1: Xen's line as before"


def test_domu_smp_1_one_vcpu():
    assert b"\nvcpus = 1\n" in run_domu.domu_config(args("--domu", "--smp", "1")), \
        "--domu --smp 1: vcpus = 1"


def test_xen_extra_ends_xens_line(monkeypatch):
    monkeypatch.setenv("PATCHBAY_XEN_EXTRA", " sched=credit  sched_ratelimit_us=0 ")
    line = run_xen.xen_cmdline(args("--xen", "--smp", "1"))
    assert line == "console=com1 com1=115200 dom0_mem=64M guest_loglvl=all loglvl=all " \
        "sched=credit sched_ratelimit_us=0", \
        "PATCHBAY_XEN_EXTRA: its words at the end of Xen's line"


def machine(*argv):
    """QEMU's -accel and -smp (None without one) for argv."""
    a = run_qemu.machine_args(args(*argv))
    smp = a[a.index("-smp") + 1] if "-smp" in a else None
    return a[a.index("-accel") + 1], smp


# Several CPUs: where each door puts N and M. (what, argv, QEMU's -accel and -smp)
MACHINES = [
    ("--smp 4: QEMU -smp 4, multi-threaded", ["--smp", "4"], ("tcg,thread=multi", "4")),
    ("--iso --smp 2: QEMU -smp 2", ["--iso", "--smp", "2"], ("tcg,thread=multi", "2")),
    ("--smp 2 --icount: single-threaded", ["--smp", "2", "--icount"], ("tcg,thread=single", "2")),
    ("--xen --smp 2: QEMU -smp 2 (M defaults to N)", ["--xen", "--smp", "2"],
     ("tcg,thread=multi", "2")),
    ("--xen --smp 2 --host-cpus 1: one QEMU CPU", ["--xen", "--smp", "2", "--host-cpus", "1"],
     ("tcg", None)),
    ("--xen --host-cpus 3: QEMU -smp 3", ["--xen", "--host-cpus", "3"],
     ("tcg,thread=multi", "3")),
    ("--domu --smp 2 --host-cpus 4: QEMU -smp 4", ["--domu", "--smp", "2", "--host-cpus", "4"],
     ("tcg,thread=multi", "4")),
    # A PVH domU of two vCPUs: one thread, unless asked (docs/pvh.md).
    ("--domu --pvh --smp 2: single-threaded", ["--domu", "--pvh", "--smp", "2"],
     ("tcg,thread=single", "2")),
    ("--domu --pvh --host-cpus 2 (one vCPU): multi-threaded",
     ["--domu", "--pvh", "--host-cpus", "2"],
     ("tcg,thread=multi", "2")),
    ("--xen --pvh --smp 2 (dom0): multi-threaded", ["--xen", "--pvh", "--smp", "2"],
     ("tcg,thread=multi", "2")),
    ("--domu --pvh --smp 2 --tcg-thread multi: as asked",
     ["--domu", "--pvh", "--smp", "2", "--tcg-thread", "multi"], ("tcg,thread=multi", "2")),
    ("--smp 2 --tcg-thread single: as asked", ["--smp", "2", "--tcg-thread", "single"],
     ("tcg,thread=single", "2")),
    ("--tcg-thread on one CPU: nothing added", ["--tcg-thread", "single"], ("tcg", None)),
]


@pytest.mark.parametrize("argv,want", [m[1:] for m in MACHINES], ids=[m[0] for m in MACHINES])
def test_machine_cpus(argv, want):
    assert machine(*argv) == want


@pytest.mark.parametrize("argv,want", [(["--smp", "4"], " dom0_max_vcpus=4 "),
                                       (["--smp", "2", "--host-cpus", "1"], " dom0_max_vcpus=2 "),
                                       (["--host-cpus", "2"], " dom0_max_vcpus=1 ")],
                         ids=["--smp 4", "--smp 2 --host-cpus 1", "--host-cpus 2"])
def test_xen_dom0_vcpus(argv, want):
    line = run_xen.xen_cmdline(args("--xen", *argv))
    assert want in line, "--xen %s: Xen gets%s" % (" ".join(argv), want.rstrip())


@pytest.mark.parametrize("argv", (["--smp", "3"], ["--smp", "3", "--host-cpus", "1"]),
                         ids=["--smp 3", "--smp 3 --host-cpus 1"])
def test_domu_vcpus_dom0_keeps_one(argv):
    a = args("--domu", *argv)
    assert b"\nvcpus = 3\n" in run_domu.domu_config(a) \
        and " dom0_max_vcpus=1 " in run_domu.linux_dom0_xen_cmdline(a), \
        "--domu %s: vcpus = 3, dom0 keeps 1" % " ".join(argv)


# Bad values: one error line, status 2, before anything starts.
@refusals([(["--smp", value], "argument --smp: must be a whole number from 1 to 8, not %r" % value)
           for value in ("0", "9", "x", "-1", "1.5", "")] + [
    (["--xen", "--host-cpus", "9"],
     "argument --host-cpus: must be a whole number from 1 to 8, not '9'"),
    (["--smp", "2", "--icount", "--tcg-thread", "multi"],
     "--tcg-thread multi: QEMU runs --icount only single-threaded"),
    (["--tcg-thread", "many"], "argument --tcg-thread: invalid choice: 'many' "
     "(choose from 'multi', 'single')")] + [
    (door + ["--host-cpus", "2"], "--host-cpus applies to --xen, --domu and --kvm only "
     "(natively, --smp N is QEMU's CPU count)") for door in ([], ["--iso"])])
def test_cpus_refused(argv, message):
    assert_refused(argv, message)


def test_kvm_l1_cpus_and_memory():
    a = args("--kvm", "--smp", "2", "--host-cpus", "1", "--mem", "64", "--", "wl=on")
    machine = run_qemu.machine_args(a)
    assert "-smp" not in machine \
        and machine[machine.index("-m") + 1] == str(64 + run_kvm.L1_MEM), \
        "--kvm --smp 2 --host-cpus 1 --mem 64: L1 one CPU and 64 + L1_MEM MiB: %s" % machine


def test_kvm_l2_qemu():
    a = args("--kvm", "--smp", "2", "--host-cpus", "1", "--mem", "64", "--", "wl=on")
    l2 = run_kvm.l2_qemu_args(a)
    assert l2[:6] == ["-accel", "kvm", "-cpu", "host", "-m", "64"] \
        and l2[l2.index("-smp") + 1] == "2" and l2[-2:] == ["-append", "wl=on"], \
        "--kvm: the L2 QEMU runs KVM with L1's CPU, 2 CPUs, 64 MiB, the command line: %s" % l2


def test_kvm_timeout():
    assert args("--kvm").timeout == run_args.KVM_TIMEOUT == 240, "--kvm: 240 s unless told"


@refusals([(["--kvm"] + extra, "--kvm boots KVM's guest without --lifecycle, --gdb, "
            "--disk or --net") for extra in (["--gdb"], ["--disk", "f.img"], ["--net"])] + [
    (["--kvm", "--xen"], "argument --xen: not allowed with argument --kvm"),
    (["--kvm", "--domu-mem", "64"],
     "--domu-mem applies to --domu only, --verbose to --domu and --kvm")])
def test_kvm_refused(argv, message):
    assert_refused(argv, message)


# --kvm: L1's console is its own file, the guest's the stream. A panic on
# the guest's console is the guest's; L1's panic, in its file, is L1's
# failure (103); the guest's status comes through the door's end line in
# L1's file.
L1_PANIC = "L1 Linux: Kernel panic - not syncing: System is deadlocked on memory"
KVM_OUTCOMES = [
    ("the guest's panic is the guest's: status 101 from the door's end line",
     (2 * 101 + 1, b"[    4.5] Kernel panic - not syncing: No working init found.\n",
      b"patchbay-kvm: end 101 the L2 QEMU ended with status 0 without a kernel exit\n"),
     lambda got: got[0] == 101 and "without a kernel exit" in got[1]),
    ("L1's panic, on its own console, is L1's failure (103)",
     (0, b"", b"Kernel panic - not syncing: System is deadlocked on memory\n"),
     lambda got: got == (103, L1_PANIC, L1_PANIC)),
    ("a time-out with nothing from L1 says L1 never reached its /init",
     (None, b"", b""),
     lambda got: got[1] == "timed out after 240 s (L1 printed nothing: it never reached its "
     "/init)"),
    ("a time-out once L1 ran its /init says only that",
     (None, b"", b"kvm-door: starting the guest\n"),
     lambda got: got[1].startswith("timed out") and "L1" not in got[1]),
    ("the guest's PASS and the door's end 0: status 0",
     (1, b"patchbay: PASS\n", b"patchbay-kvm: end 0 kernel\n"),
     lambda got: got == (0, "", None)),
]


@pytest.mark.parametrize("status,guest,l1,ok", [o[1] + (o[2],) for o in KVM_OUTCOMES],
                         ids=[o[0] for o in KVM_OUTCOMES])
def test_kvm_outcome_reads_l1_apart(status, guest, l1, ok):
    got = run.outcome(args("--kvm"), IMAGE, status, None, b"", guest, l1)
    assert ok(got), "--kvm: %s" % (got,)


@pytest.mark.parametrize("verbose", [False, True], ids=["quiet", "verbose"])
def test_kvm_console_shows_l1_lines_after_the_guest(verbose, tmp_path):
    """The guest's lines, then L1's kvm-door lines, and the door's end line
    only with --verbose."""
    with open(os.path.join(tmp_path, run_kvm.L1_LOG), "wb") as f:
        f.write(b"kvm-door: a line\r\npatchbay-kvm: end 0 kernel\r\n")
    shown = Shown()
    stream = run_kvm.KvmConsole(shown, verbose, None, str(tmp_path))
    stream.write(b"patchbay: PASS\r\n")
    stream.close()
    want = b"patchbay: PASS\nkvm-door: a line\n"
    if verbose:
        want += b"patchbay-kvm: end 0 kernel\n"
    assert bytes(shown.data) == want and stream.l1.endswith(b"end 0 kernel\n"), shown.data


# --linux boots Debian's kernel natively, as a PV dom0 or as a PV or PVH
# domU, on one CPU; --pvh makes the kernel a PVH guest of Xen: natively it
# is none.
@refusals([(["--linux"] + extra,
            "--linux boots natively, with --xen as a PV dom0, with --domu as a PV "
            "or (--pvh) PVH domU, or with --kvm as KVM's guest, on one CPU")
           for extra in (["--iso"], ["--smp", "2"], ["--xen", "--host-cpus", "2"],
                         ["--pvh"], ["--xen", "--pvh"], ["--domu", "--pvh", "--smp", "2"],
                         ["--domu", "--smp", "2"])] + [
    (["--linux", "--domu", "--lifecycle", "move"],
     "--lifecycle applies to patchbay, not --linux: the program does not wait for resumes")] + [
    (door + ["--pvh"], "--pvh applies to --xen and --domu only: it makes the kernel a PVH "
     "guest of Xen") for door in ([], ["--iso"])])
def test_linux_and_pvh_refused(argv, message):
    assert_refused(argv, message)


def test_linux_domu_config():
    config = run_domu.domu_config(args("--linux", "--domu", "--", "bench.quick"))
    assert b'\nkernel = "/patchbay/vmlinuz"\n' in config \
        and config.endswith(b'\nramdisk = "/patchbay/initrd.cpio"\n') \
        and b'\nextra = "console=hvc0 quiet panic=-1 -- bench.domu bench.quick"\n' in config \
        and b"\nmemory = 128\n" in config, \
        "--linux --domu: Debian's vmlinuz, the program's initramfs, bench.domu first"
    assert b"cpuid" not in config, "--linux --domu: RDTSCP left as it is for a PV domU"


def test_linux_domu_pvh_config():
    config = run_domu.domu_config(args("--linux", "--domu", "--pvh"))
    assert b'\ntype = "pvh"\n' in config and b'\nkernel = "/patchbay/vmlinuz"\n' in config \
        and b'\ncpuid = "host,rdtscp=0"\n' in config, \
        "--linux --domu --pvh: the same vmlinuz as a PVH domU, RDTSCP hidden"


def test_domu_config_patchbays_image():
    config = run_domu.domu_config(args("--domu"))
    assert b'\nkernel = "/patchbay/patchbay.elf"\n' in config and b"ramdisk" not in config, \
        "--domu: patchbay's image, no ramdisk"


# --pvh's command lines, and the PV ones staying as they were.
MACHINE = ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-m", "1024",
           "-display", "none", "-serial", "stdio", "-monitor", "none", "-nic", "none",
           "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=4"]
XEN_QEMU = MACHINE + ["-kernel", "xen", "-append",
                      "console=com1 com1=115200 dom0_mem=64M guest_loglvl=all loglvl=all",
                      "-initrd", "patchbay.elf"]
PVH_QEMU = MACHINE + ["-machine", "q35", "-device", "amd-iommu",
                      "-kernel", "xen", "-append",
                      "console=com1 com1=115200 dom0_mem=64M dom0=pvh guest_loglvl=all "
                      "loglvl=all", "-initrd", "patchbay.elf"]


@pytest.fixture
def xen_qemu(monkeypatch, tmp_path):
    """QEMU's command line for tools/run argv: no Xen to fetch, no image to strip."""
    monkeypatch.setattr(run_xen, "fetch_xen", lambda: "/nonexistent/xen")
    monkeypatch.setattr(run_xen, "guest_image", lambda workdir, image: "patchbay.elf")
    return lambda *argv: run_qemu.qemu_command(args(*argv), IMAGE, str(tmp_path))


def test_xen_qemu_as_before(xen_qemu):
    assert xen_qemu("--xen") == XEN_QEMU, "--xen: QEMU's command line as before"


def test_xen_pvh_q35_iommu_dom0_pvh(xen_qemu):
    assert xen_qemu("--xen", "--pvh") == PVH_QEMU, \
        "--xen --pvh: q35 with an AMD IOMMU, Xen's dom0=pvh"


def test_xen_pvh_smp_2_host_cpus_1(xen_qemu):
    want = PVH_QEMU[:-3] + ["console=com1 com1=115200 dom0_mem=64M dom0=pvh dom0_max_vcpus=2 "
                            "guest_loglvl=all loglvl=all", "-initrd", "patchbay.elf"]
    assert xen_qemu("--xen", "--pvh", "--smp", "2", "--host-cpus", "1") == want, \
        "--xen --pvh --smp 2 --host-cpus 1: dom0_max_vcpus=2, one QEMU CPU"


def test_xen_pvh_host_cpus_2(xen_qemu):
    got = xen_qemu("--xen", "--pvh", "--host-cpus", "2")
    assert got[got.index("-smp") + 1] == "2" and " dom0_max_vcpus=1 " in got[-3], \
        "--xen --pvh --host-cpus 2: QEMU -smp 2, dom0_max_vcpus=1: %s" % got


@pytest.mark.parametrize("argv", ([], ["--smp", "2"]), ids=["one vCPU", "--smp 2"])
def test_domu_pvh_config_type_only(argv):
    pv = run_domu.domu_config(args("--domu", *argv))
    got = run_domu.domu_config(args("--domu", "--pvh", *argv))
    assert b'\ntype = "pv"\n' in pv \
        and got == pv.replace(b'\ntype = "pv"\n', b'\ntype = "pvh"\n'), \
        "--domu --pvh %s: the xl config's type, and nothing else, is pvh" % " ".join(argv)


def test_domu_pvh_smp_3_dom0_stays_one():
    a = args("--domu", "--pvh", "--smp", "3")
    assert b"\nvcpus = 3\n" in run_domu.domu_config(a) \
        and run_domu.linux_dom0_xen_cmdline(a) \
        == run_domu.linux_dom0_xen_cmdline(args("--domu", "--smp", "3")), \
        "--domu --pvh --smp 3: vcpus = 3; dom0 stays one PV vCPU"


def test_pvh_entry(build_has_readnotes):
    """--linux --domu --pvh's check of the kernel's PVH entry note, through
    Xen's readnotes: an ELF with the note passes (the image has one), one
    without is refused in one line."""
    run_domu.check_pvh_entry(build_has_readnotes, "vmlinuz-test")  # passes: no exit
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as e:
        run_domu.check_pvh_entry("/bin/true", "vmlinuz-test")
    assert e.value.code == 2 and err.getvalue() == (
        "run: vmlinuz-test has no PVH entry (no XEN_ELFNOTE_PHYS32_ENTRY note in its "
        "ELF, /bin/true): --linux --domu --pvh cannot boot it\n"), \
        "an ELF without the PVH entry note is refused in one line, status 2: %r" % err.getvalue()


@pytest.fixture
def build_has_readnotes():
    """The image, when the build has it and Xen's readnotes."""
    build = run_domu.build_dir()
    image = os.path.join(build, "patchbay.elf")
    if not (os.path.exists(os.path.join(build, "xen", "readnotes")) and os.path.exists(image)):
        pytest.skip("no readnotes or image under %s" % build)
    return image


# The reasons tools/run reads from Xen's recorded lines. (what, lines, end, want)
XEN_VERDICTS = [
    ("PV crash", PV_CRASH, "Hardware Dom0 crashed",
     (99, "xen: domain_crash_sync called from entry.S at 0x107efe")),
    ("PVH dom0 triple fault", HVM_TRIPLE_FAULT, "Hardware Dom0 shutdown",
     (99, "xen: d0v0 triple fault at 0x100190")),
    ("PVH dom0 crash", HVM_CRASH, "Hardware Dom0 crashed",
     (99, "xen: d0v0 Unexpected vmexit: reason 0xffffffff, exitinfo1 0, exitinfo2 0 "
          "(domain_crash called from arch/x86/hvm/svm/svm.c:96) at 0x1004a2")),
]
# A Xen without what a PVH guest needs: (boot log, its error creating d0, why).
NO_PVH = [(NO_HVM_LOG, -22, NO_HVM), (NO_HAP_LOG, -95, NO_HAP)]


@pytest.mark.parametrize("text,end,want", [v[1:] for v in XEN_VERDICTS],
                         ids=[v[0] for v in XEN_VERDICTS])
def test_xen_verdict(text, end, want):
    got = run_xen.xen_verdict(text.encode(), end, IMAGE, False)
    assert got == want, "verdict: %r" % want[1]


@pytest.mark.parametrize("log,err,want", NO_PVH, ids=["no HVM", "no HAP"])
def test_xen_pvh_error_creating_d0(log, err, want):
    got = run_xen.xen_verdict((log + D0_PANIC % err).encode(), "Panic on CPU", IMAGE, True)
    assert got == (98, "%s, which a PVH dom0 needs (xen panic: Error creating d0: %d)"
                   % (want, err)), "--xen --pvh, Error creating d0: %d: %r" % (err, want)


@pytest.mark.parametrize("log,err", [v[:2] for v in NO_PVH], ids=["no HVM", "no HAP"])
def test_xen_error_creating_d0_panic_alone(log, err):
    got = run_xen.xen_verdict((log + D0_PANIC % err).encode(), "Panic on CPU", IMAGE, False)
    assert got == (98, "xen panic: Error creating d0: %d" % err), \
        "--xen, Error creating d0: %d: Xen's panic alone" % err


def test_xen_pvh_with_hvm_another_panic_alone():
    got = run_xen.xen_verdict((HVM_LOG + D0_PANIC % -12).encode(), "Panic on CPU", IMAGE, True)
    assert got == (98, "xen panic: Error creating d0: -12"), \
        "--xen --pvh with HVM, another panic: Xen's panic alone"


# --domu: xl's failure, and a PVH domU's triple fault.
XL_ERROR = XL_NO_PAGING.split(" ", 3)[3].rstrip("\n")


@pytest.mark.parametrize("log,want", [(log, want) for log, _, want in NO_PVH],
                         ids=["no HVM", "no HAP"])
def test_domu_pvh_xl_fails(log, want):
    got = domu_verdict(log + XL_NO_PAGING, 103, True)
    assert got == (103, "%s, which a PVH domU needs (%s)" % (want, XL_ERROR)), \
        "--domu --pvh, xl: %r" % want


def test_domu_xl_fails_xls_error_alone():
    assert domu_verdict(NO_HVM_LOG + XL_NO_PAGING, 103, False) == (103, XL_ERROR), \
        "--domu, xl fails: xl's error alone"


def test_domu_pvh_with_hvm_xl_fails_xls_error_alone():
    assert domu_verdict(HVM_LOG + XL_NO_PAGING, 103, True) == (103, XL_ERROR), \
        "--domu --pvh with HVM, xl fails: xl's error alone"


def test_domu_crash_as_it_was():
    assert domu_verdict(PV_DOMU_CRASH, 102, False) == (
        102, "the domU crashed without a verdict; "
             "xen: domain_crash_sync called from entry.S at 0x1164e0"), "--domu crash: as it was"


def test_domu_pvh_triple_fault_named_with_rip():
    domu_triple = (HVM_TRIPLE_FAULT.replace("d0v0", "d1v0").replace("Dom0", "Dom1")
                   + "patchbay-domu: end 102 none reboot\n")
    assert domu_verdict(domu_triple, 102, True) == (
        102, "the domU stopped (reboot) without a verdict; "
             "xen: d1v0 triple fault at 0x100190"), \
        "--domu --pvh triple fault: named with the RIP"


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


# --lifecycle PLAN: the steps, what they add to the run, and refusals.
PLANS = [("save-restore", ["save-restore"]),
         ("move*3", ["move"] * 3),
         ("save-restore,move*2,migrate", ["save-restore", "move", "move", "migrate"]),
         ("migrate*100", ["migrate"] * 100)]


@pytest.mark.parametrize("plan,want", PLANS, ids=[p for p, _ in PLANS])
def test_lifecycle_plan_steps(plan, want):
    assert run_lifecycle.lifecycle_plan(plan) == want, \
        "--lifecycle %s: %d steps" % (plan, len(want))


@refusals([(["--domu", "--lifecycle", plan], BAD_STEP % (bad, plan)) for plan, bad in (
    ("", ""), ("move,", ""), ("mvoe", "mvoe"), ("move*0", "move*0"),
    ("save-restore,move*101", "move*101"), ("move*", "move*"), ("move*x", "move*x"),
    ("move*2*2", "move*2*2"), ("move, move", " move"), ("MOVE", "MOVE"),
    ("save_restore", "save_restore"))] + [
    (door + ["--lifecycle", "move"], "--lifecycle applies to --domu only: Xen's toolstack "
     "saves, moves and migrates a domU") for door in ([], ["--iso"], ["--xen"], ["--linux"])] + [
    (["--domu", "--lifecycle", plan], MIGRATE_PV) for plan in ("migrate",
                                                               "save-restore,migrate*2")] + [
    (["--domu", "--lifecycle", "move", "--", "wl=on lifecycle=2"],
     "--lifecycle puts lifecycle=K on the kernel command line itself")])
def test_lifecycle_refused(argv, message):
    assert_refused(argv, message)


# (what, argv, the kernel's command line)
LIFECYCLE_CMDLINES = [
    # 90 + 30 + 30 * 2 + 180 s of time-out.
    ("--lifecycle: lifecycle=K and the run's time-out first on the kernel command line",
     ["--domu", "--pvh", "--lifecycle", "save-restore,move*2,migrate", "--", "wl=on"],
     "lifecycle=4 lifecycle.timeout=360 wl=on"),
    ("--lifecycle --icount --timeout 500: tsc.icount lifecycle=1 lifecycle.timeout=500",
     ["--domu", "--icount", "--lifecycle", "move", "--timeout", "500"],
     "tsc.icount lifecycle=1 lifecycle.timeout=500"),
    ("--lifecycle: a lifecycle.timeout of the user's own is kept",
     ["--domu", "--lifecycle", "move", "--", "lifecycle.timeout=60"],
     "lifecycle=1 lifecycle.timeout=60"),
]


@pytest.mark.parametrize("argv,want", [c[1:] for c in LIFECYCLE_CMDLINES],
                         ids=[c[0] for c in LIFECYCLE_CMDLINES])
def test_lifecycle_cmdline(argv, want):
    assert args(*argv).cmdline == want


def test_lifecycle_xen_eager_fpu():
    line = run_domu.linux_dom0_xen_cmdline(args("--domu", "--lifecycle", "move"))
    plain = run_domu.linux_dom0_xen_cmdline(args("--domu"))
    assert line == plain + " spec-ctrl=eager-fpu" and "eager" not in plain, \
        "--lifecycle: Xen switches FPU state eagerly"


def test_lifecycle_plan_in_dom0s_params():
    params = run_domu.domu_params(args("--domu", "--lifecycle", "save-restore,move*2"))
    assert params == b'LIFECYCLE="save-restore move move"\n', \
        "--lifecycle: the plan in dom0's params"


def test_no_lifecycle_params_empty():
    assert run_domu.domu_params(args("--domu")) == b"", "no --lifecycle: dom0's params empty"


def test_lifecycle_nothing_in_dom0s_setup():
    setup = run_domu.domu_setup(args("--domu", "--lifecycle", "save-restore,move*2"))
    assert setup == b"EXIT_PORT=244\n", \
        "--lifecycle: nothing of the plan in dom0's setup (a template's)"


SIZES = [(["--domu"], (1024, 384, 60)),
         (["--domu", "--lifecycle", "move"], (1024, 384, 120)),
         (["--domu", "--lifecycle", "move*10"], (1024, 384, 390)),
         (["--domu", "--domu-mem", "128", "--lifecycle", "move"], (1280, 512, 120)),
         (["--domu", "--lifecycle", "move", "--mem", "2048", "--dom0-mem", "600",
           "--timeout", "50"], (2048, 600, 50))]


@pytest.mark.parametrize("argv,want", SIZES, ids=[" ".join(a) for a, _ in SIZES])
def test_lifecycle_mem_dom0_mem_timeout(argv, want):
    a = args(*argv)
    assert (a.mem, a.dom0_mem, a.timeout) == want, \
        "%s: --mem, --dom0-mem, --timeout %s" % (" ".join(argv), want)


# The door's lines are shown as they are, dom0's are not; its failure is
# the verdict, with Xen's report of a domain that crashed meanwhile.
def test_lifecycle_lines_shown():
    shown = console_shows(
        b"dom0: toolstack up\r\ndomU| lifecycle: watching control/shutdown for 2 "
        b"resumes\r\nlifecycle-door: step 1/2 save-restore: domain 1 -> 2 in 4.6 s "
        b"(checkpoint 67.2 MB)\r\ndom0: save.log: xc: info: Saving domain 1\r\n")
    assert shown == b"lifecycle: watching control/shutdown for 2 resumes\n" \
        b"lifecycle-door: step 1/2 save-restore: domain 1 -> 2 in 4.6 s (checkpoint 67.2 MB)\n", \
        "--lifecycle: the domU's and the door's lines shown, dom0's not"


def test_lifecycle_deaf_guest_verdict():
    assert domu_verdict("patchbay-domu: end 104 %s\n" % DEAF, 104) == (104, DEAF), \
        "--lifecycle, a deaf guest: the door's line is the verdict"


def test_lifecycle_crash_on_resume_verdict():
    assert domu_verdict(LIFECYCLE_CRASH, 104) == (104, LIFECYCLE_CRASH_REASON), \
        "--lifecycle, a new domain that crashed as it resumed: xl's error and Xen's report"


# --gdb: QEMU's arguments, the time-out, refusals and gdb's kill.
def test_gdb_qemu_stopped_gdbstub_on_runs_socket(tmp_path):
    plain = run_qemu.qemu_command(args(), IMAGE, str(tmp_path))
    a = args("--gdb")
    a.gdb_socket = run_gdb.gdb_listen()
    with a.gdb_socket:
        fd = a.gdb_socket.fileno()
        got = run_qemu.qemu_command(a, IMAGE, str(tmp_path))
    assert got == plain + ["-S", "-chardev", "socket,id=gdb,fd=%d,server=on,wait=off" % fd,
                           "-gdb", "chardev:gdb"], \
        "--gdb: QEMU stopped (-S), its gdbstub on tools/run's socket"
    assert "-S" not in plain and "-gdb" not in plain, "no --gdb: no -S, no gdbstub"


GDB_TIMEOUTS = [(["--gdb"], 3600), (["--gdb", "--timeout", "30"], 30), (["--xen", "--gdb"], 3600),
                (["--domu", "--gdb", "--lifecycle", "move"], 3600),
                (["--domu", "--lifecycle", "move"], 120)]


@pytest.mark.parametrize("argv,want", GDB_TIMEOUTS, ids=[" ".join(a) for a, _ in GDB_TIMEOUTS])
def test_gdb_timeout(argv, want):
    assert args(*argv).timeout == want, "%s: time-out %d" % (" ".join(argv), want)


def test_gdb_printed_command(monkeypatch):
    monkeypatch.chdir(ROOT)  # the printed command names paths below the working directory
    line = run_gdb.gdb_command(1234, os.path.join(ROOT, "build", "patchbay.elf"))
    assert line == "gdb -q build/patchbay.elf -x tools/gdb/patchbay.py " \
        "-ex 'target remote 127.0.0.1:1234'", \
        "--gdb: the printed command loads the image and the commands, then connects"


@refusals([(door + ["--gdb"], run_gdb.GDB_NOT_LINUX) for door in (["--linux"],
                                                                ["--linux", "--xen"])] + [
    (door + ["--gdb"], run_gdb.GDB_NOT_PVH) for door in (["--xen", "--pvh"], ["--domu", "--pvh"])])
def test_gdb_refused(argv, message):
    assert_refused(argv, message)


def test_gdb_kill_named():
    killed = b"qemu-system-x86_64: QEMU: Terminated via GDBstub\n"
    got = run.outcome(args("--gdb"), IMAGE, 0, None, killed, b"")
    assert got == (101, "gdb killed QEMU", "gdb killed QEMU"), \
        "--gdb, QEMU ended by gdb's kill: status 101, named so"


def test_gdb_other_end_as_without():
    got = run.outcome(args("--gdb"), IMAGE, 0, None, b"", b"")
    assert got == run.outcome(args(), IMAGE, 0, None, b"", b"") \
        and got[0] == 101 and "gdb" not in got[1], \
        "--gdb, QEMU ended otherwise: as without --gdb: %s" % (got,)


# --disk FILE: every door gives QEMU the same virtio disk, modern only,
# cache=writeback, traced into the run's directory; FILE:ro makes it
# read-only; --disk-ro and --disk-new need --disk, and --disk-new's SIZE
# is whole 4 KiB blocks.
@pytest.mark.parametrize("door", ([], ["--iso"], ["--domu"], ["--domu", "--pvh"]),
                         ids=["native", "--iso", "--domu", "--domu --pvh"])
def test_disk_drive(tmp_path, door):
    work = str(tmp_path)
    words = run_qemu.disk_qemu_args(args(*(door + ["--disk", "/tmp/a,b.img"])), work)
    assert words[:4] == ["-drive", "file=/tmp/a,,b.img,if=none,id=pbdisk,format=raw,"
                         "cache=writeback", "-device",
                         "virtio-blk-pci,drive=pbdisk,disable-legacy=on"] \
        and "enable=virtio_blk_req_complete" in words \
        and words[-2:] == ["-D", os.path.join(work, "disk-trace.log")], \
        "--disk %s: QEMU's virtio disk, cache=writeback, traced: %s" % (" ".join(door), words)


def test_disk_ro_in_qemus_command(tmp_path):
    qemu = run_qemu.qemu_command(args("--disk", "/tmp/a,b.img:ro"), IMAGE, str(tmp_path))
    assert "file=/tmp/a,,b.img,if=none,id=pbdisk,format=raw,cache=writeback,readonly=on" \
        in qemu, "--disk FILE:ro: read-only, in QEMU's command"


def test_no_disk_no_drive(tmp_path):
    qemu = run_qemu.qemu_command(args(), IMAGE, str(tmp_path))
    assert "-drive" not in qemu and "-D" not in qemu, "no --disk: no disk, no trace"


@refusals([(["--disk-ro"], "--disk-ro and --disk-new apply to --disk FILE only"),
           (["--disk", "f.img", "--disk-new", "5000"],
            "--disk-new 5000: not a positive multiple of 4 KiB"),
           (["--disk", "f.img", "--disk-new", "4X"], "--disk-new 4X: not a size"),
           (["--disk", "f.img", "--disk-detach"],
            "--disk-detach applies to --domu --disk, without --lifecycle or --linux")])
def test_disk_refused(argv, message):
    assert_refused(argv, message)


# --disk FILE under --domu: dom0's disk, with the disk archive; the xl
# config hands /dev/vda to the guest as xvda, dom0's params say so, the
# door's line is shown; nothing of it without --disk.
def test_domu_disk_archive(tmp_path, monkeypatch):
    fake_domu_build(monkeypatch, str(tmp_path), {"initrd.cpio": b"BASE", "disk.cpio": b"DISK!"})
    qemu, initrd = domu_initrd(str(tmp_path), "--disk", "/tmp/a,b.img")
    assert initrd == b"BASE" + b"DISK!\0\0\0" + b"SETUP", \
        "--disk: the disk archive between the base and the run's setup"
    assert "-drive" not in qemu, \
        "--disk: the disk itself is not the door's (tools/pbtools/run/disk.py)"
    _, initrd = domu_initrd(str(tmp_path))
    assert initrd == b"BASESETUP", "no --disk: no disk archive"


DOMU_DISKS = [(["--disk", "f.img"], b"w"), (["--disk", "f.img:ro"], b"r"),
              (["--disk", "f.img", "--disk-ro"], b"r")]


@pytest.mark.parametrize("argv,mode", DOMU_DISKS, ids=[" ".join(a) for a, _ in DOMU_DISKS])
def test_domu_disk_xvda(argv, mode):
    a = args("--domu", *argv)
    assert run_domu.domu_config(a).endswith(b"\ndisk = [ 'phy:/dev/vda,xvda,%s' ]\n" % mode), \
        "--domu %s: the xl config's disk is dom0's /dev/vda as xvda, mode %s" % (
            " ".join(argv), mode.decode())
    assert run_domu.domu_setup(a) == b"EXIT_PORT=244\nDISK=%s\n" % mode, \
        "--domu %s: DISK=%s in dom0's setup" % (" ".join(argv), mode.decode())


def test_domu_no_disk_in_config():
    assert b"disk" not in run_domu.domu_config(args("--domu")), \
        "no --disk: no disk in the xl config"


def test_disk_lifecycle_timeout():
    a = args("--domu", "--disk", "f.img", "--lifecycle", "save-restore,move")
    assert a.timeout == 190 and "lifecycle.timeout=190" in a.cmdline, \
        "--disk --lifecycle save-restore,move: 20 s more a step, 90 + 2 * 50 s in all"


def test_disk_doors_line_shown():
    shown = console_shows(b"dom0: /local/domain/0/backend/vbd/1/51712/state = \"2\"\r\n"
                          b"domu-door: disk xvda backend ready (blkback, InitWait)\r\n")
    assert shown == b"domu-door: disk xvda backend ready (blkback, InitWait)\n", \
        "--disk: the door's line shown, dom0's not"


# --domu --net: the kernel's net words unless given (and net.timeout under
# a plan, which gets 30 s more a step), the vif in the xl config, NET in
# dom0's params, the disk archive (the hotplug scripts) and the network
# archive before the run's own, the peers' lines shown; --net without
# --domu refused. (what, argv, the kernel's command line)
DOMU_NET_CMDLINES = [
    ("--domu --net: net=on net.ip=10.0.0.2 on the kernel's line", ["--domu", "--net"],
     "net=on net.ip=10.0.0.2"),
    ("--domu --net -- net.ip=...: the user's address, not the door's",
     ["--domu", "--net", "--", "net.ip=10.0.0.9 x=1"], "net=on net.ip=10.0.0.9 x=1"),
]


@pytest.mark.parametrize("argv,want", [c[1:] for c in DOMU_NET_CMDLINES],
                         ids=[c[0] for c in DOMU_NET_CMDLINES])
def test_domu_net_cmdline(argv, want):
    assert args(*argv).cmdline == want


def test_domu_net_lifecycle_timeout():
    a = args("--domu", "--net", "--lifecycle", "save-restore,move")
    assert a.timeout == 210 and "net.timeout=210" in a.cmdline.split(), \
        "--net --lifecycle save-restore,move: 30 s more a step, 90 + 2 * 60 s, net.timeout too"


def test_domu_net_vif():
    assert run_domu.domu_config(args("--domu", "--net")).endswith(
        b'\nvif = [ "bridge=xenbr0,mac=00:16:3e:0a:00:02" ]\n'), \
        "--net: the xl config's vif on xenbr0 with Xen's OUI"
    assert b"vif" not in run_domu.domu_config(args("--domu")), "no --net: no vif"


def test_domu_net_setup_and_params():
    params = run_domu.domu_params(args("--domu", "--net"))
    setup = run_domu.domu_setup(args("--domu", "--net"))
    assert setup == b"EXIT_PORT=244\nNET=1\n" \
        and params == b"NET_HOST=10.0.0.1\nNET_GUEST=10.0.0.2\n" \
        b"NET_COUNT=200\nNET_SIZE=64\nNET_WINDOW=8\nNET_INTERVAL_MS=10\n", \
        "--net: NET=1 in the setup; the addresses, 200 datagrams of 64 bytes, 8 in flight, " \
        "10 ms apart in the params"


# (what, argv after --domu --net, what dom0's params hold)
DOMU_NET_PARAMS = [
    ("--domu --net-count 5 --net-size 1472 --net-window 2: the client's, in the params",
     ["--net-count", "5", "--net-size", "1472", "--net-window", "2"],
     [b"NET_COUNT=5\nNET_SIZE=1472\nNET_WINDOW=2\n"]),
    ("--domu --net-interval-ms 0: the client sends back to back", ["--net-interval-ms", "0"],
     [b"NET_INTERVAL_MS=0\n"]),
    ("--net --lifecycle: the client sends until the plan is through, 20 ms apart, 64 in flight",
     ["--lifecycle", "move"],
     [b"NET_COUNT=1000000\n", b"NET_INTERVAL_MS=20\n", b"NET_WINDOW=64\n"]),
    ("--net --lifecycle --net-window 4: the user's window",
     ["--lifecycle", "move", "--net-window", "4"], [b"NET_WINDOW=4\n"]),
    ("--net-detach: NET_DETACH=1, the client sends until the guest stops", ["--net-detach"],
     [b"NET_DETACH=1\n", b"NET_COUNT=1000000\n"]),
    ("--net-flood 300: NET_FLOOD=300, the client sends until the flood is over",
     ["--net-flood", "300"], [b"NET_FLOOD=300\n", b"NET_COUNT=1000000\n"]),
]


@pytest.mark.parametrize("argv,want", [c[1:] for c in DOMU_NET_PARAMS],
                         ids=[c[0].split(":")[0] for c in DOMU_NET_PARAMS])
def test_domu_net_params(argv, want):
    params = run_domu.domu_params(args("--domu", "--net", *argv))
    assert all(w in params for w in want), params


@refusals([(["--domu", "--net-detach"], "--net-detach applies to --domu --net, "
            "without --lifecycle or --linux"),
           (["--domu", "--net", "--net-detach", "--lifecycle", "move"],
            "--net-detach applies to --domu --net, without --lifecycle or --linux"),
           (["--net", "--net-flood", "5"], "--net-flood applies to --domu --net, "
            "without --linux: the flood is dom0's ping"),
           (["--domu", "--net", "--net-flood", "0"],
            "--net-flood must be from 1 to 1000000, not 0"),
           (["--domu", "--net", "--net-peer", "frames"],
            "--net-peer frames needs the native door: under --domu the peers are dom0's")])
def test_domu_net_refused(argv, message):
    assert_refused(argv, message)


def test_domu_net_archives(tmp_path, monkeypatch):
    fake_domu_build(monkeypatch, str(tmp_path), {"initrd.cpio": b"BASE", "disk.cpio": b"DISK!",
                                                 "net.cpio": b"NET"})
    _, initrd = domu_initrd(str(tmp_path), "--net")
    assert initrd == b"BASE" + b"DISK!\0\0\0" + b"NET\0" + b"SETUP", \
        "--net: the disk archive (hotplug scripts) and the network archive, then the run's"


def test_domu_net_peers_lines_shown():
    shown = console_shows(b"dom0: network modules loaded\r\n"
                          b"net-door: ping: 5 packets transmitted, 5 packets received, "
                          b"0% packet loss\r\n")
    assert shown == b"net-door: ping: 5 packets transmitted, 5 packets received, 0% packet " \
        b"loss\n", "--net: the peers' lines shown, dom0's not"


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


# --linux --net: natively the door's words go to the program, and its
# initramfs holds Linux's virtio-net stack with net.order in load order;
# in a domU, xen-netfront.ko beside the program; the Ethernet peer, which
# checks patchbay's own stack, refused.
def test_linux_net_cmdline():
    assert args("--linux", "--net").cmdline == "net=on net.ip=10.0.2.15 net.timeout=50", \
        "--linux --net: the program gets net=on net.ip=10.0.2.15 net.timeout=50"


@pytest.fixture
def linux_build(tmp_path, monkeypatch):
    """A build directory with Debian's modules (each .ko holding its path),
    a vmlinuz and a program; the door's fetches point into it."""
    d = str(tmp_path / "build")
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
    monkeypatch.setattr(run_linux, "build_dir", lambda: d)
    monkeypatch.setattr(run_domu, "build_dir", lambda: d)
    monkeypatch.setattr(run_linux, "fetch_linux", lambda: os.path.join(d, "program"))
    monkeypatch.setattr(run_domu, "udpclient_static", lambda: os.path.join(d, "program"))
    return d


def test_linux_net_initramfs(linux_build, tmp_path):
    work = str(tmp_path / "work")
    os.makedirs(work)
    run_linux.linux_args(args("--linux", "--net"), os.path.join(linux_build, "program"), work)
    with open(os.path.join(work, "initrd.cpio"), "rb") as f:
        files = dict(cpio_names(f.read()))
    order = ["virtio_ring", "virtio", "virtio_pci_legacy_dev", "virtio_pci_modern_dev",
             "virtio_pci", "failover", "net_failover", "virtio_net"]
    assert files.get("net.order") == b"".join(m.encode() + b"\n" for m in order) \
        and files.get("virtio_net.ko") == b"drivers/net/virtio_net" \
        and files.get("failover.ko") == b"net/core/failover" \
        and "disk.order" not in files and "virtio_blk.ko" not in files, \
        "--linux --net: the initramfs holds the virtio-net stack, net.order in modinfo's " \
        "order, no disk's: %s" % sorted(files)


def test_linux_domu_net_netfront(linux_build):
    overlay = dict(cpio_names(run_domu.domu_files(
        args("--linux", "--domu", "--net"), os.path.join(linux_build, "program"), None)))
    domu = dict(cpio_names(overlay["patchbay/initrd.cpio"]))
    assert domu.get("xen-netfront.ko") == b"drivers/net/xen-netfront" \
        and "xen-blkfront.ko" not in domu and "patchbay/udpclient" in overlay, \
        "--linux --domu --net: xen-netfront.ko beside the program, no blkfront: %s" % sorted(domu)


# --net: natively (or under --domu, above), once, with the client built;
# the kernel's words unless the command line sets them; QEMU's card with
# both ports forwarded to the guest's address; the client started by the
# guest's up line, its lines shown between the guest's, and a silent end
# named.
@refusals([(["--net", "--net"], "--net given 2 times: the guest has one network card")] + [
    (door + ["--net"], "--net is not supported with %s (only natively and with "
     "--domu, patchbay or --linux)" % door[-1])
    for door in (["--iso"], ["--xen"], ["--linux", "--xen"])] + [
    (["--net-count", "5"], "--net-count applies to --net only"),
    (["--net-size", "64", "--net-window", "2"],
     "--net-size and --net-window apply to --net only"),
    (["--net", "--net-count", "0"], "--net-count must be from 1 to 100000000, not 0"),
    (["--net", "--net-size", "1473"], "--net-size must be from 8 to 1472, not 1473"),
    (["--net", "--net-window", "0"], "--net-window must be from 1 to 4096, not 0"),
    (["--net-interval-ms", "0"], "--net-interval-ms applies to --net only"),
    (["--net", "--net-interval-ms", "60001"],
     "--net-interval-ms must be from 0 to 60000, not 60001"),
    (["--net-peer", "frames"], "--net-peer applies to --net only"),
    (["--linux", "--net", "--net-peer", "frames"],
     "--net-peer frames checks patchbay's own stack: --linux takes the UDP client only")])
def test_net_refused(argv, message):
    assert_refused(argv, message)


def test_net_defaults():
    a = args("--net")
    assert a.cmdline == "net=on net.ip=10.0.2.15 net.timeout=50" \
        and (a.net_count, a.net_size, a.net_window) == (200, 64, 8), \
        "--net: net=on net.ip=10.0.2.15 net.timeout=50 on the command line; 200 " \
        "datagrams of 64 bytes, 8 in flight"


def test_net_icount_waits_longest():
    assert args("--net", "--icount").cmdline == \
        "tsc.icount net=on net.ip=10.0.2.15 net.timeout=86400", \
        "--net --icount: the guest waits as long as it may (its idle clock runs ahead)"


def ported(*argv):
    """tools/run's arguments for argv, the echo and counters ports 5555 and 5556."""
    a = args(*argv)
    a.echo_port, a.counters_port = 5555, 5556
    return a


def test_net_users_ip_kept_and_forwarded():
    a = ported("--net", "--timeout", "90", "--net-count", "7", "--net-size", "1472",
               "--net-window", "64", "--", "net.ip=10.0.2.99 x")
    words = run_qemu.net_qemu_args(a)
    assert a.cmdline == "net=on net.timeout=80 net.ip=10.0.2.99 x" \
        and words == ["-netdev", "user,id=pbnet,hostfwd=udp:127.0.0.1:5555-10.0.2.99:7,"
                      "hostfwd=udp:127.0.0.1:5556-10.0.2.99:9",
                      "-device", "virtio-net-pci,netdev=pbnet,disable-legacy=on"] \
        and run_net.client_command(a)[1:] == ["127.0.0.1", "5555", "--count", "7", "--size",
                                              "1472", "--window", "64", "--end-port", "5556"], \
        "--net, the user's net.ip: kept, and the ports forwarded to it: %s" % ((a.cmdline, words),)


def test_net_interval_ms():
    a = ported("--net", "--net-interval-ms", "3")
    assert run_net.client_command(a)[-2:] == ["--interval-ms", "3"], \
        "--net-interval-ms 3: the host's client waits 3 ms between sendings"


def test_net_peer_frames():
    a = ported("--net", "--net-peer", "frames", "--net-count", "3")
    peer = run_net.client_command(a)
    assert run_qemu.net_qemu_args(a) == [
        "-netdev", "dgram,id=pbnet,local.type=inet,local.host=127.0.0.1,local.port=5555,"
        "remote.type=inet,remote.host=127.0.0.1,remote.port=5556",
        "-device", "virtio-net-pci,netdev=pbnet,disable-legacy=on"] \
        and peer[1].endswith("tools/netpeer.py") \
        and peer[2:] == ["frames", "--port", "5556", "--guest-port", "5555", "--guest-ip",
                         "10.0.2.15", "--count", "3"], \
        "--net-peer frames: QEMU's card on a datagram socket to tools/netpeer.py's port"


def test_no_net_no_card(tmp_path):
    qemu = run_qemu.qemu_command(args(), IMAGE, str(tmp_path))
    assert "-netdev" not in qemu and "net=" not in args().cmdline, \
        "no --net: no card, no net= words"


def test_net_without_client_built(tmp_path):
    work = str(tmp_path)
    p = subprocess.run([sys.executable, RUN, "--net", "--image", RUN],
                       env=dict(os.environ, BUILD=work), stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and p.stderr == "run: %s/host/udpclient not found; build it " \
        "with make udpclient (--net runs it as the guest's peer)\n" % work and not p.stdout, \
        "--net without the client built: one line, status 2: status %d, stderr %r" % (
            p.returncode, p.stderr)


CLIENTS = [("echo \"udpclient: sent to $1:$2, end to ${10}\"",
            b"udpclient: sent to 127.0.0.1:8, end to 9\n"),
           ("exit 3", b"udpclient: exited with status 3 without its counts\n")]


@pytest.mark.parametrize("script,want", CLIENTS, ids=["says its counts", "exits 3"])
def test_net_client_started_on_up_line(tmp_path, monkeypatch, script, want):
    work = str(tmp_path)
    os.makedirs(os.path.join(work, "host"))
    client = os.path.join(work, "host", "udpclient")
    with open(client, "w") as f:
        f.write("#!/bin/sh\n%s\n" % script)
    os.chmod(client, 0o755)
    monkeypatch.setenv("BUILD", work)
    a = args("--net")
    a.echo_port, a.counters_port = 8, 9
    shown = Shown()
    c = run_net.NetClient(a, shown)
    with selectors.DefaultSelector() as sel:
        for data in (b"net: registered\n", b"net: eth0 up at 10.0.2.15: UDP echo\nnet: par"):
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
    assert started and held.endswith(b"net: par") \
        and shown.data.endswith(b"net: partial\n" + want), \
        "--net, a client that says %r: started on the up line, shown after the guest's " \
        "line: %r" % (script, shown.data)
