"""tools/run's command line: its options and --help (parser()), the
checks of what goes together and the defaults that depend on the door
(parse_args()), and the kernel command line each door delivers whole
(check_cmdline()). docs/run.md is the reference for the options."""

import argparse
import contextlib
import io

from pbtools.run.common import STATUS_CMDLINE, STATUS_DISK_CHECK, cmdline_sets
from pbtools.run.disk import check_disk_args
from pbtools.run.domu import DOMU_KEEPS, DOMU_MEM, check_domu_args
from pbtools.run.gdb import GDB_TIMEOUT, check_gdb_args
from pbtools.run.iso import iso_cmdline_problem
from pbtools.run.kvm import L1_MEM
from pbtools.run.lifecycle import (LIFECYCLE_BOOT_TIME, LIFECYCLE_DISK_STEP_TIME,
                                   LIFECYCLE_NET_STEP_TIME, LIFECYCLE_REPEAT_MAX,
                                   LIFECYCLE_STEP_TIME, MIGRATE_NEEDS_PVH, lifecycle_plan,
                                   lifecycle_timeout)
from pbtools.run.net import (COUNT, GUEST_IP, INTERVALS_MS, NET_FLOOD_MAX, NET_GUEST,
                             NET_INTERVAL_MS, NET_PLAN_INTERVAL_MS, NET_PLAN_WINDOW, PEERS, SIZE,
                             SIZES, TIMEOUT_MARGIN, WINDOW, WINDOWS, check_net_args,
                             domu_net_words, net_words)
from pbtools.run.xen import XEN_KEEPS, xen_cmdline_problem

# The longest command line each door delivers byte for byte (tools/run -h).
# PVH: QEMU 7.2's loader copies the line (and its NUL) to a fixed address
# 4128 bytes below the hvm_start_info it builds, so the NUL of a 4128-byte
# line lands on the start_info's magic. GRUB takes longer lines but aborts
# ("token too large") on a 12,000-byte word; --iso takes PVH's limit, so
# a line that boots through one native door boots through the other. Under
# Xen the line travels in QEMU's -initrd argument and Xen keeps its first
# 1023 bytes; longer lines are accepted (the kernel marks them truncated)
# up to a bound far below Linux's 128 KiB for one argument. --domu takes
# the same bound: xl's extra= carries the line (escaped, xl_string) to the
# domain builder, which keeps 1023 bytes in start_info.
CMDLINE_MAX = {"PVH": 4127, "ISO": 4127, "Xen": 65536, "domU": 65536, "KVM": 4127}
CPUS_MAX = 8  # --smp and --host-cpus
# --kvm's default time-out: L1 boots in TCG and its guest runs at about
# 0.4 times a direct TCG boot's speed.
KVM_TIMEOUT = 240


def check_lifecycle_args(p, args, cmdline):
    """Refuse --lifecycle without --domu, migrate without --pvh, and a
    lifecycle= of the user's own (cmdline, the words after --); fill in the
    memory and time-out a plan needs where the user gave none: dom0's tmpfs
    holds a checkpoint, Xen two copies of the domain while it migrates."""
    if not args.domu:
        p.error("--lifecycle applies to --domu only: Xen's toolstack saves, moves and "
                "migrates a domU")
    if "migrate" in args.lifecycle and not args.pvh:
        p.error(MIGRATE_NEEDS_PVH)
    if cmdline_sets(cmdline, "lifecycle"):
        p.error("--lifecycle puts lifecycle=K on the kernel command line itself")
    domu = args.domu_mem or DOMU_MEM
    if args.dom0_mem is None:
        args.dom0_mem = max(384, 256 + 2 * domu)
    if args.mem is None:
        args.mem = max(1024, args.dom0_mem + 2 * domu + 512)
    if args.timeout is None:
        args.timeout = lifecycle_timeout(args.lifecycle, args.disk is not None,
                                         getattr(args, "net", False))


def parse_args(argv):
    """The options, with the defaults that depend on the door filled in,
    and the kernel command line (after --) as args.cmdline."""
    if "--" in argv:
        i = argv.index("--")
        argv, cmdline = argv[:i], argv[i + 1:]
    else:
        cmdline = []
    p = parser()
    args, extra = p.parse_known_args(argv)
    if extra:
        p.error("unrecognized arguments: %s (the kernel command line goes after --)"
                % " ".join(extra))
    if args.gdb:
        check_gdb_args(p, args)
    if args.lifecycle is not None:
        check_lifecycle_args(p, args, cmdline)
    # Only the launcher knows the TSC counts instructions; the kernel's
    # figures name their unit from this option. lifecycle=K tells the kernel
    # how many resumes to wait for, and lifecycle.timeout (unless given)
    # the run's time-out, so that a slow plan ends by the door's limits (its
    # watchdogs, then the time-out) rather than by an earlier default;
    # they come first, as tsc.icount does, so that the domain builder's
    # 1023-byte cut never drops them. --net's words (tools/pbtools/run/net.py) too.
    if args.timeout is None:
        args.timeout = KVM_TIMEOUT if args.kvm else 60
    if args.net and args.domu and args.lifecycle and args.net_window is None:
        args.net_window = NET_PLAN_WINDOW
    check_net_args(p, args)
    ours = (["tsc.icount"] if args.icount else []) + (
        lifecycle_words(args, cmdline) if args.lifecycle else []) + (
        domu_net_words(args, cmdline) if args.domu else net_words(args, cmdline))
    args.cmdline = " ".join(ours + cmdline)
    if args.linux and (args.iso or (args.pvh and not args.domu) or args.smp != 1
                       or args.host_cpus):
        p.error("--linux boots natively, with --xen as a PV dom0, with --domu as a PV "
                "or (--pvh) PVH domU, or with --kvm as KVM's guest, on one CPU")
    if args.linux and args.lifecycle is not None:
        p.error("--lifecycle applies to patchbay, not --linux: the program does not wait "
                "for resumes")
    if args.kvm:
        check_kvm_args(p, args)
    if args.pvh and not (args.xen or args.domu):
        p.error("--pvh applies to --xen and --domu only: it makes the kernel a PVH "
                "guest of Xen")
    if args.mem is None:
        args.mem = 1024 if args.xen or args.domu else 512 if args.linux else 128
    # QEMU's own memory: under --kvm L1's, --mem being its guest's.
    args.qemu_mem = args.mem + L1_MEM if args.kvm else args.mem
    if args.dom0_mem is None:
        args.dom0_mem = 384 if args.domu or args.linux else 64
    if args.host_cpus is not None and not (args.xen or args.domu or args.kvm):
        p.error("--host-cpus applies to --xen, --domu and --kvm only "
                "(natively, --smp N is QEMU's CPU count)")
    # QEMU's CPUs: the kernel's natively, Xen's physical ones under Xen,
    # L1's under --kvm.
    if args.host_cpus is None:
        args.host_cpus = args.smp
    args.qemu_cpus = args.host_cpus if args.xen or args.domu or args.kvm else args.smp
    check_tcg_thread(p, args)
    if args.domu:
        check_domu_args(p, args)
    elif args.domu_mem is not None or args.verbose and not args.kvm:
        p.error("--domu-mem applies to --domu only, --verbose to --domu and --kvm")
    check_disk_args(p, args)
    if args.disk_detach and (not args.domu or args.disk is None or args.lifecycle or args.linux):
        p.error("--disk-detach applies to --domu --disk, without --lifecycle or --linux")
    if args.net_detach and (not args.domu or not args.net or args.lifecycle or args.linux):
        p.error("--net-detach applies to --domu --net, without --lifecycle or --linux")
    if args.net_flood is not None and (not args.domu or not args.net or args.linux):
        p.error("--net-flood applies to --domu --net, without --linux: the flood is dom0's ping")
    if args.net_flood is not None and not 1 <= args.net_flood <= NET_FLOOD_MAX:
        p.error("--net-flood must be from 1 to %d, not %d" % (NET_FLOOD_MAX, args.net_flood))
    if args.mem <= 0 or args.dom0_mem <= 0 or args.timeout <= 0:
        p.error("--mem, --dom0-mem and --timeout must be positive")
    if args.xen and args.dom0_mem >= args.mem:
        p.error("--dom0-mem must be smaller than --mem")
    return args


def check_kvm_args(p, args):
    """Refuse with --kvm what its door does not do."""
    if args.lifecycle is not None or args.gdb or args.disk or args.net:
        p.error("--kvm boots KVM's guest without --lifecycle, --gdb, --disk or --net")


def check_tcg_thread(p, args):
    """--tcg-thread's default, and the one choice QEMU refuses."""
    if args.icount and args.tcg_thread == "multi":
        # QEMU: "No MTTCG when icount is enabled".
        p.error("--tcg-thread multi: QEMU runs --icount only single-threaded")
    if args.tcg_thread is None:
        # A PVH domU of more than one vCPU under QEMU 7.2's multi-threaded
        # SVM emulation was at times resumed with Xen's own RIP, RSP and RAX
        # in its VMCB, and triple-faulted (docs/pvh.md, "Two vCPUs, one
        # thread").
        single = args.icount or (args.domu and args.pvh and args.smp > 1)
        args.tcg_thread = "single" if single else "multi"


def host_threads(argv):
    """The host threads QEMU runs for tools/run argv: one per QEMU CPU
    multi-threaded, else one; 0 for argv tools/run refuses. The test and
    benchmark runners ask, to run such boots alone."""
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            args = parse_args(argv)
    except SystemExit:
        return 0
    return args.qemu_cpus if args.tcg_thread == "multi" else 1


def parser():
    """tools/run's options and --help."""
    p = argparse.ArgumentParser(
        prog="tools/run",
        usage="tools/run [--iso] [--xen] [--domu] [--kvm] [--pvh] [--linux] [--smp N] "
              "[--host-cpus M] "
              "[--mem MIB] [--dom0-mem MIB] "
              "[--domu-mem MIB] [--cpu MODEL] [--icount] [--tcg-thread T] [--timeout S] "
              "[--image PATH] "
              "[--log FILE] [--quiet] [--verbose] [--lifecycle PLAN] [--gdb] "
              "[--disk FILE[:ro]] [--disk-ro] [--disk-new SIZE] [--net] [--net-count N] "
              "[--net-size S] [--net-window W] [--net-interval-ms M] "
              "[-- KERNEL CMDLINE...]",
        description="Boot patchbay under QEMU (TCG) and stream the serial console "
                    "to stdout. Everything after -- is the kernel command line.",
        epilog="Every run ends with one verdict line, 'patchbay: PASS' or "
               "'patchbay: FAIL REASON' (the kernel's, or tools/run's when the kernel "
               "could not print one). Exit status: 0 clean kernel exit; 1..97 "
               "kernel-reported failure; 2 usage error, missing image or tools, or a "
               "command line the door cannot deliver (PVH and --iso: at most %d bytes; "
               "--iso: no quotes, backslashes or carriage returns; --xen: at most %d "
               "bytes, of which Xen keeps %d, and no leading space; --domu: at most %d "
               "bytes, of which the domain builder keeps %d for a PV domU); %d the "
               "kernel's: its command line asks for what it cannot do (every problem "
               "listed, then 'patchbay: FAIL cmdline: ...'); 98 the boot "
               "stopped before the kernel ran (--kvm's L1 has no SVM; Xen refused the CPU, has no HVM support "
               "for a --pvh dom0, or panicked; GRUB error or menu); 99 Xen crashed the "
               "domain (or a PVH guest's triple fault shut it down) or panicked while "
               "it ran; 101 QEMU ended without a kernel exit; 102 --domu: the domU "
               "stopped without a status or verdict; 103 --kvm: the L1 host failed; "
               "--domu: dom0 or its toolstack "
               "failed (or xl found no HVM support for a --pvh domU); 104 --domu "
               "--lifecycle: a step of the plan failed (or the guest did not acknowledge "
               "a suspend request, or ended before the plan was through); 105 --disk: "
               "the host found a flushed block wrong or a flush missing; "
               "124 time-out. "
               "PATCHBAY_QEMU_EXTRA adds words to QEMU's arguments, PATCHBAY_XEN_EXTRA to "
               "Xen's command line with --xen. docs/run.md says the same at length."
               % (CMDLINE_MAX["PVH"], CMDLINE_MAX["Xen"], XEN_KEEPS, CMDLINE_MAX["domU"],
                  DOMU_KEEPS, STATUS_CMDLINE),
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--iso", action="store_true",
                      help="boot from a GRUB ISO (multiboot2) instead of PVH -kernel")
    mode.add_argument("--xen", action="store_true",
                      help="boot under the Xen hypervisor as a PV dom0 (fetches Xen first)")
    mode.add_argument("--kvm", action="store_true",
                      help="boot as an L2 guest of KVM: Debian's QEMU with -accel kvm "
                      "inside Debian's Linux, itself under QEMU TCG with SVM (fetches "
                      "both first)")
    mode.add_argument("--domu", action="store_true",
                      help="boot as a PV domU of a Linux dom0 under Xen, created with xl "
                      "(fetches Xen and dom0 first)")
    p.add_argument("--pvh", action="store_true",
                   help="with --xen or --domu: the kernel as a PVH guest of Xen, not a "
                   "PV one (--xen: Xen's dom0=pvh, QEMU's -machine q35 -device "
                   "amd-iommu; --domu: type = \"pvh\" in the xl config). Needs HVM "
                   "with nested paging in the CPU model, as --cpu max has"),
    p.add_argument("--linux", action="store_true",
                   help="boot Debian's Linux (fetched as for --domu) with patchbay's "
                   "benchmark program for Linux as its /init instead of patchbay; with "
                   "--xen as dom0, with --domu as the PV domU (with --pvh the PVH one), "
                   "with --kvm as KVM's L2 guest. "
                   "The command line goes to the program")
    p.add_argument("--smp", type=cpu_count, default=1, metavar="N",
                   help="the kernel's CPUs, 1..%d (default 1): QEMU's -smp N natively "
                   "and with --iso; Xen's dom0_max_vcpus=N with --xen (Xen gives dom0 "
                   "N vCPUs, even more than --host-cpus); the xl config's vcpus = N "
                   "with --domu (its Linux dom0 keeps 1). More than one QEMU CPU runs "
                   "as --tcg-thread says" % CPUS_MAX)
    p.add_argument("--host-cpus", type=cpu_count, metavar="M",
                   help="--xen and --domu only: QEMU's -smp M, the physical CPUs Xen "
                   "runs on, 1..%d (default N)" % CPUS_MAX)
    p.add_argument("--mem", type=int, metavar="MIB",
                   help="guest RAM in MiB (default 128; 512 with --linux; 1024 with --xen "
                   "or --domu)")
    p.add_argument("--dom0-mem", type=int, metavar="MIB",
                   help="dom0 memory under Xen in MiB (default 64; 384 with --domu and "
                   "--linux, where dom0 is Linux)")
    p.add_argument("--domu-mem", type=int, metavar="MIB",
                   help="--domu: the domU's memory in MiB (default 64; 128 with --linux)")
    p.add_argument("--cpu", default="max", metavar="MODEL",
                   help="QEMU CPU model (default max)")
    p.add_argument("--icount", action="store_true",
                   help="deterministic timing: TSC advances one per instruction "
                   "(and the kernel is told so with tsc.icount, so its figures say instructions)")
    p.add_argument("--tcg-thread", choices=("multi", "single"), metavar="T",
                   help="with more than one QEMU CPU, QEMU's -accel tcg,thread=T: multi "
                   "(a host thread per CPU) or single (the CPUs take turns on one). "
                   "Default multi; single with --icount, which QEMU runs no other way, "
                   "and for a --pvh --domu of more than one vCPU, which QEMU 7.2's "
                   "multi-threaded SVM emulation at times resumes with Xen's own "
                   "registers (docs/pvh.md)")
    p.add_argument("--timeout", type=float, metavar="S",
                   help="kill QEMU after S seconds (default 60; with --gdb %d; with "
                   "--lifecycle %d plus, per step, %s)"
                   % (GDB_TIMEOUT, LIFECYCLE_BOOT_TIME, step_times()))
    p.add_argument("--image", metavar="PATH",
                   help="kernel image (default $BUILD/patchbay.elf)")
    p.add_argument("--log", metavar="FILE", help="also write the console to FILE")
    p.add_argument("--quiet", action="store_true",
                   help="do not stream the console to stdout")
    p.add_argument("--verbose", action="store_true",
                   help="--domu: show Xen's and dom0's lines too, not only the domU's")
    p.add_argument("--lifecycle", type=lifecycle_plan, metavar="PLAN",
                   help="--domu only: Xen's toolstack saves, restores and migrates the "
                   "running domU, one step after another: PLAN is comma-separated steps, "
                   "each save-restore (xl save to a file, xl restore), move (xl save piped "
                   "into xl restore) or migrate (xl migrate to localhost, live; --pvh "
                   "only: a PV domain's log-dirty tracking needs shadow paging, which "
                   "Debian's Xen lacks), each optionally *N (1..%d times), e.g. "
                   "save-restore,move*10. Adds lifecycle=K (K steps in all), and "
                   "lifecycle.timeout (the run's time-out) unless given, to the kernel "
                   "command line. Defaults --dom0-mem to 384 or 256 plus twice --domu-mem, "
                   "--mem to 1024 or --dom0-mem plus twice --domu-mem plus 512, and "
                   "--timeout to %d plus, per step, %s" % (LIFECYCLE_REPEAT_MAX,
                                                           LIFECYCLE_BOOT_TIME, step_times()))
    p.add_argument("--disk", metavar="FILE",
                   help="give the guest FILE as a virtio-blk PCI disk (natively and with "
                   "--iso its own; with --domu dom0's, passed on to the domU's blkfront); "
                   "FILE:ro or --disk-ro makes it read-only. After the run the host checks "
                   "the blocks the guest said it flushed (tools/diskcheck), and a run that "
                   "passed fails with status %d if any is wrong or the device saw fewer "
                   "flushes than the guest claimed. A missing FILE is refused (status 2)"
                   % STATUS_DISK_CHECK)
    p.add_argument("--disk-ro", action="store_true", help="--disk FILE is read-only")
    p.add_argument("--disk-detach", action="store_true",
                   help="with --domu --disk: once the guest's disk is up (its 'block: xvda' "
                   "line), dom0 runs xl block-detach on it mid-run, as an administrator "
                   "would, and says how that ended in a line 'domu-door: xl block-detach ...'")
    p.add_argument("--disk-new", metavar="SIZE",
                   help="make --disk FILE afresh first: SIZE bytes of zeros (K, M or G "
                   "suffix; whole 4 KiB blocks)")
    p.add_argument("--net", action="count", default=0,
                   help="natively: give the guest a virtio-net PCI card on QEMU's user "
                   "network, with free UDP ports of 127.0.0.1 forwarded to its echo (7) and "
                   "counters (9) ports; adds net=on, net.ip=%s and net.timeout (the "
                   "time-out less %d s; the kernel's most with --icount) to the kernel "
                   "command line unless it sets them. "
                   "Once the guest's card is up, the host's tools/udpclient sends its "
                   "datagrams, checks each echo, and its line is shown; the guest's verdict "
                   "carries its counts. With --domu: a vif on a bridge in dom0 (netback, "
                   "xl's vif-bridge), net=on net.ip=%s, and dom0's ping and client as the "
                   "peers (under --lifecycle the client sends until the plan is through). "
                   "With --linux the same doors serve Linux's own stack (bench.net). "
                   "Refused with the other doors, given twice, or natively without a built "
                   "client (status 2)" % (GUEST_IP, TIMEOUT_MARGIN, NET_GUEST))
    p.add_argument("--net-detach", action="store_true",
                   help="with --domu --net: once dom0's client has been sending for 2 s, dom0 "
                   "runs xl network-detach on the guest's vif mid-run, as an administrator "
                   "would, and says how that ended in a line 'domu-door: xl network-detach "
                   "...'; the client sends until the guest has stopped")
    p.add_argument("--net-flood", type=int, metavar="N",
                   help="with --domu --net: dom0 also floods the guest with N pings (busybox "
                   "ping -i 0.001, one a millisecond) while the client's stream runs, which "
                   "then ends with the flood")
    p.add_argument("--net-count", type=int, metavar="N",
                   help="--net: the datagrams the client sends (default %d)" % COUNT)
    p.add_argument("--net-size", type=int, metavar="S",
                   help="--net: each datagram's payload bytes, %d..%d (default %d; %d fills "
                   "a 1514-byte frame)" % (SIZES + (SIZE, SIZES[1])))
    p.add_argument("--net-window", type=int, metavar="W",
                   help="--net: datagrams in flight at once, %d..%d (default %d)"
                   % (WINDOWS + (WINDOW,)))
    p.add_argument("--net-interval-ms", type=int, metavar="M",
                   help="--net: the client's wait between sendings, %d..%d ms (default: none "
                   "natively, %d ms with --domu, %d ms under --lifecycle)"
                   % (INTERVALS_MS + (NET_INTERVAL_MS, NET_PLAN_INTERVAL_MS)))
    p.add_argument("--net-peer", choices=PEERS,
                   help="--net: the peer, the host's udpclient through QEMU's user network "
                   "(the default), or tools/netpeer.py's plan at the Ethernet layer on a "
                   "socket of QEMU's: frames (echoes, then one of each malformed frame, each "
                   "counted) or flood (--net-count echoes back to back)")
    p.add_argument("--gdb", action="store_true",
                   help="QEMU starts stopped, its gdbstub listening on a free port of "
                   "127.0.0.1, and waits for gdb; prints the port and the gdb command that "
                   "connects and loads the image's symbols and patchbay's gdb commands "
                   "(tools/gdb/patchbay.py). Natively, with --iso, --xen and --domu, not "
                   "with --pvh or --linux; defaults --timeout to %d" % GDB_TIMEOUT)
    return p


def lifecycle_words(args, cmdline):
    """The kernel's lifecycle= and, unless the user set it, lifecycle.timeout."""
    words = ["lifecycle=%d" % len(args.lifecycle)]
    if not cmdline_sets(cmdline, "lifecycle.timeout"):
        words.append("lifecycle.timeout=%d" % args.timeout)
    return words


def step_times():
    """--lifecycle's time-out allowance per step, for --help."""
    return ", ".join("%d for %s" % (t, step) for step, t in LIFECYCLE_STEP_TIME.items()) + (
        ", %d more with --disk, %d more with --net" % (LIFECYCLE_DISK_STEP_TIME,
                                                        LIFECYCLE_NET_STEP_TIME))


def cpu_count(text):
    """--smp's and --host-cpus's value: a whole number from 1 to CPUS_MAX."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= CPUS_MAX:
        raise argparse.ArgumentTypeError("must be a whole number from 1 to %d, not %r"
                                         % (CPUS_MAX, text))
    return n


def check_cmdline(door, cmdline):
    """None if door delivers cmdline (bytes) byte for byte, else why not."""
    limit = CMDLINE_MAX[door]
    if len(cmdline) > limit:
        return ("the kernel command line is %d bytes; the %s door delivers at most %d"
                % (len(cmdline), door, limit))
    if door == "ISO":
        return iso_cmdline_problem(cmdline)
    if door == "Xen":
        return xen_cmdline_problem(cmdline)
    return None
