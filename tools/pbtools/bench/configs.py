"""What `make bench` boots: the configurations that change what the
benchmarks measure, and the report's columns. Shared by tools/bench (which
boots them) and tools/bench_report.py (which lays the results out).

The benchmarks themselves are not listed here: the kernel registers each
one once (BENCH_DEFINE, bench/bench.h) and the tools read that list, with
groups, descriptions and the capabilities each needs, out of the image
(bench_catalog.catalog). A configuration's platform ("native", "xen-pv",
"xen-pvh", "kvm") is matched against the platforms the image names for each
capability.

A configuration's id is exactly the config= string the kernel derives at run
time (bench/config.c): tools/bench checks that each boot agrees, so a
result can never be filed under the wrong column.
"""

import re

# Under Xen every boot names its xen.mmu mode; batch is the one the
# general tables use, and the pte table sets the four side by side.
XEN_MMU_MODES = ["trap", "hypercall", "batch", "swap"]
XEN = "+xen.mmu=batch"

# A Xen domU (tools/run --domu) runs the same backend as dom0; the kernel
# tags its config string "+domu" (pv_info.variant).
DOMU = "+domu"

# With more than one CPU the kernel tags its config string "+smpN".
SMP2 = "+smp2"
SMP4 = "+smp4"
SMP6 = "+smp6"

# Xen's pv lock is the queued lock; xen.lock=ticket, the blocking ticket
# lock, tags the configurations that set it beside the queued one.
TICKET = "+xen.lock=ticket"

# The PVH dom0 (tools/run --xen --pvh) has no xen.mmu: its page tables are
# the CPU's own. Its per-op choices tag a configuration only when they are
# not Xen's way (xen/pvh/bench.c); PVH_CHOICES below says which.
PVH_UNPATCHED, PVH_PATCHED = "xen-pvh-unpatched", "xen-pvh-patched"

# KVM's guest (tools/run --kvm): L2 under Debian's QEMU with -accel kvm in
# Debian's Linux, itself under QEMU. Its per-op choices tag a
# configuration only when they are not KVM's way (kvm/bench.c).
KVM_PATCHED = "kvm-patched"

# The report's columns: (configuration, heading). "normal" is the kernel
# built without paravirt; under Xen there is no such kernel, so the Xen
# columns are compared with the native normal one too. A configuration
# whose id extends a column's with more tags is a row variant of it (the
# longest matching column wins, so the domU columns are not variants).
COLUMNS = [
    ("native-nopv", "normal"),
    ("native-unpatched", "paravirt"),
    ("native-patched", "paravirt-patch"),
    ("xen-pv-unpatched" + XEN, "xen-pv"),
    ("xen-pv-patched" + XEN, "xen-pv-patch"),
    ("xen-pv-patched" + XEN + DOMU, "domU-patch"),
    (PVH_UNPATCHED, "pvh"),
    (PVH_PATCHED, "pvh-patch"),
    (PVH_PATCHED + DOMU, "pvh-domU-patch"),
    (KVM_PATCHED, "kvm-patch"),
]
PTE_COLUMNS = [("native-nopv", "normal"), ("native-patched", "paravirt-patch")] + [
    ("xen-pv-patched+xen.mmu=" + mode, "xen-pv " + mode) for mode in XEN_MMU_MODES] + [
    ("xen-pv-patched" + XEN + DOMU, "domU batch"), (PVH_PATCHED, "pvh"),
    (PVH_PATCHED + DOMU, "pvh-domU")]

# Where both ways work under PVH, a kernel option chooses between Xen's
# (the default) and the emulated hardware's: (option, Xen's value, the
# hardware's, the groups or benchmarks whose figures it changes, the CPUs
# they need to show it). Each gives a configuration of its own, and the
# report's PVH section sets it beside its default (PVH_SWITCHES). The
# shootdowns leave wl_cycle out: through the emulated LAPIC each of its
# thousands of shootdowns is several VM exits on each vCPU, and its quick
# run alone took minutes.
PVH_CHOICES = [
    ("xen.timer", "pv", "lapic", ["time", "sched"], 1),
    ("xen.ipi", "evtchn", "lapic", ["patching", "sched"], 2),
    ("xen.shootdown", "hypercall", "ipi", ["mprotect_1", "mprotect_16", "mprotect_512",
                                          "tlb_shootdown_1", "tlb_shootdown_16",
                                          "tlb_shootdown_512"], 2),
]


# How tools/run boots each door: a platform's own (native, xen-pv, xen-pvh:
# the two Xen ones as dom0) or a domU of a Linux dom0.
DOORS = {"native": [], "xen-pv": ["--xen"], "xen-pvh": ["--xen", "--pvh"], "domu": ["--domu"],
         "domu-pvh": ["--domu", "--pvh"], "kvm": ["--kvm"]}

# A configuration id starts with the platform (pv_info.name), then the build.
PLATFORM = re.compile(r"^(native|xen-pvh|xen-pv|kvm)-(?:nopv|unpatched|patched)\b")


def config(id, select, options=(), nopv=False, door=None, smp=1, host_cpus=None, icount=False,
           trials=(), disk=False, net=False):
    """A boot: id (= the kernel's config string), the bench= selection
    (a list of benchmark or group names), the other kernel options, the
    tools/run door (DOORS; default: the platform's own, as dom0 under Xen), the
    number of CPUs (tools/run --smp), under Xen of physical CPUs
    (--host-cpus; default as many), whether it always runs under
    --icount, and its trials: the benchmarks whose figure depends on where
    the hypervisor's time slices fall, which tools/bench runs again in
    further boots (--runs), each starting at another offset; disk: the
    door gives the guest a scratch disk (tools/run --disk, --disk-new),
    which the disk benchmarks need (capability "disk"); net: the door gives
    the guest a network card and its peers (tools/run --net), one boot per
    row of NET_ROWS, and no in-kernel benchmark runs (select is empty)."""
    platform = PLATFORM.match(id).group(1)
    return dict(id=id, platform=platform, door=door or platform, smp=smp, host_cpus=host_cpus,
                icount=icount, image="nopv" if nopv else "pv", select=list(select),
                options=list(options), trials=list(trials), disk=disk, net=net)


def overcommit_configs(base, options, smp, queued=True, plain=True):
    """lock_contended on smp vCPUs over 2 physical CPUs, under icount, with
    trials: the pv ticket lock, unless queued is False (a boot that
    measures more has it) the pv queued lock, and unless plain is False
    plain spinning."""
    kinds = [("", [])] if queued else []
    kinds += [(TICKET, ["xen.lock=ticket"])]
    kinds += [("+spinlock=off", ["pv.spinlock=off"])] if plain else []
    return [config(base + tag + "+smp%d" % smp, ["lock_contended"], options + extra, smp=smp,
                   host_cpus=2, icount=True, trials=["lock_contended"]) for tag, extra in kinds]


CONFIGS = [
    config("native-nopv", ["all"], nopv=True),
    config("native-unpatched", ["all"], ["pv.patch=off"]),
    config("native-patched", ["all"]),
    config("native-patched+restore_fl=condsti", ["irq", "spin_lock_irqsave"],
           ["pv.restore_fl=condsti"]),
    config("native-nopv+spinlock=off", ["locks"], ["pv.spinlock=off"], nopv=True),
    config("native-unpatched+spinlock=off", ["locks"], ["pv.patch=off", "pv.spinlock=off"]),
    config("native-patched+spinlock=off", ["locks"], ["pv.spinlock=off"]),
    config("xen-pv-unpatched" + XEN, ["all"], ["pv.patch=off", "xen.mmu=batch"]),
    config("xen-pv-patched" + XEN, ["all"], ["xen.mmu=batch"]),
    config("xen-pv-patched+xen.mmu=trap", ["pte"], ["xen.mmu=trap"]),
    config("xen-pv-patched+xen.mmu=hypercall", ["pte"], ["xen.mmu=hypercall"]),
    config("xen-pv-patched+xen.mmu=swap", ["pte"], ["xen.mmu=swap"]),
    # Every hypercall a call into the hypercall page, as before each site
    # was rewritten to an inline syscall.
    config("xen-pv-patched" + XEN + "+xen.hypercall=page", ["xen", "pte", "sched"],
           ["xen.mmu=batch", "xen.hypercall=page"]),
    config("xen-pv-unpatched" + XEN + "+spinlock=off", ["locks"],
           ["pv.patch=off", "xen.mmu=batch", "pv.spinlock=off"]),
    config("xen-pv-patched" + XEN + "+spinlock=off", ["locks"], ["xen.mmu=batch", "pv.spinlock=off"]),
    config("xen-pv-patched" + XEN + DOMU, ["all"], ["xen.mmu=batch"], door="domu"),
    # Two CPUs: the lock and scheduler benchmarks with both CPUs online.
    # ctx_switch runs a yielding pair per CPU, so both switch at once through
    # the one run queue; the channel pairs go wherever that queue puts them
    # (bench/sched_bench.c). The page-table group shows what the TLB
    # shootdown adds to mprotect and to its flush alone (tlb_shootdown_*).
    # Natively also the live patch's syncs (smp_sync), beside PVH's IPIs:
    # they run first and leave every later figure as it was. Under PV they
    # would not (a few counts move by a fraction of a percent), so PV's
    # syncs are measured in the +smp4 boot only.
    config("native-patched" + SMP2, ["patching", "locks", "sched", "pte"], smp=2),
    # The pv lock's contended figure on two vCPUs is the one its overcommit
    # figures are set against, so it too is a distribution (trials).
    config("xen-pv-patched" + XEN + SMP2, ["locks", "sched", "pte"], ["xen.mmu=batch"], smp=2,
           trials=["lock_contended"]),
    # Contended locks on two CPUs: plain ticket spinning beside the pv
    # lock of the configurations above (bench/lock_contended.c).
    config("native-patched+spinlock=off" + SMP2, ["lock_contended"], ["pv.spinlock=off"], smp=2),
    config("xen-pv-patched" + XEN + "+spinlock=off" + SMP2, ["lock_contended"],
           ["xen.mmu=batch", "pv.spinlock=off"], smp=2),
    # Overcommit: 4 and 6 vCPUs on 2 physical CPUs, where Xen deschedules
    # a vCPU that holds or waits for a lock: the pv queued lock against the
    # pv ticket lock and plain spinning, as a PV dom0 here and as a PVH
    # dom0 below, each a distribution over --runs runs.
    # Always under icount: QEMU then runs its CPUs on one host thread.
    # Without it, on a 2-CPU host that also runs another boot, each of
    # QEMU's CPU threads is itself descheduled while Xen's vCPUs spin, and
    # a boot took from 3 s to over 300 s.
    config("xen-pv-patched" + XEN + SMP4, ["lock_contended", "pte", "patching"], ["xen.mmu=batch"],
           smp=4, host_cpus=2, icount=True, trials=["lock_contended"]),
    *overcommit_configs("xen-pv-patched" + XEN, ["xen.mmu=batch"], smp=4, queued=False),
    # At 3:1 the queued lock against the ticket lock only: plain spinning
    # there took over 1,000 s a boot under PV (PVH's never finished in
    # 1,800 s), and minutes even in make test's quick run.
    *overcommit_configs("xen-pv-patched" + XEN, ["xen.mmu=batch"], smp=6, plain=False),
    # A shootdown of three other CPUs: natively three IPIs and waits, under
    # Xen (the overcommit boot above) still one hypercall. Under icount
    # too: without it, 4 CPUs on 2 host CPUs spend about 750k ticks on one.
    # And a live patch, whose four syncs each interrupt every CPU.
    config("native-patched" + SMP4, ["pte", "patching"], smp=4, icount=True),
]


def smp_tag(cpus):
    return "+smp%d" % cpus if cpus > 1 else ""


def pvh_choice(key):
    """The PVH choice of that option: (Xen's way's configuration id, the
    other way's, the other way's option)."""
    _, _, hw, _, cpus = next(c for c in PVH_CHOICES if c[0] == key)
    return (PVH_PATCHED + smp_tag(cpus), PVH_PATCHED + "+%s=%s" % (key, hw) + smp_tag(cpus),
            "%s=%s" % (key, hw))


def pvh_choice_configs():
    """A boot per PVH choice, the emulated hardware's way: the groups it
    changes, on the CPUs they need."""
    return [config(pvh_choice(key)[1], groups, [pvh_choice(key)[2]], smp=cpus)
            for key, _, _, groups, cpus in PVH_CHOICES]


# The PVH dom0 beside them: every benchmark patched, and unpatched all but
# Xen's primitives and the clock, which go through no pv site under PVH
# (hypercalls stay calls into Xen's page; time is a table's function
# pointer): measured unpatched they came out as patched, and they are most
# of a PVH boot's time, each hypercall and clock read a VM exit. Then each
# per-op choice, plain spinlocks, two CPUs (with the live patch's syncs,
# which are IPIs), and the overcommit boots as under PV.
CONFIGS += [
    config(PVH_UNPATCHED, ["irq", "calls", "patching", "locks", "sched", "pte"], ["pv.patch=off"]),
    config(PVH_PATCHED, ["all"]),
    *pvh_choice_configs(),
    config(PVH_UNPATCHED + "+spinlock=off", ["locks"], ["pv.patch=off", "pv.spinlock=off"]),
    config(PVH_PATCHED + "+spinlock=off", ["locks"], ["pv.spinlock=off"]),
    config(PVH_PATCHED + SMP2, ["locks", "sched", "pte", "patching"], smp=2,
           trials=["lock_contended"]),
    config(PVH_PATCHED + "+spinlock=off" + SMP2, ["lock_contended"], ["pv.spinlock=off"], smp=2),
    config(PVH_PATCHED + SMP4, ["lock_contended", "pte", "patching"], smp=4, host_cpus=2,
           icount=True, trials=["lock_contended"]),
    *overcommit_configs(PVH_PATCHED, [], smp=4, queued=False),
    # No plain spinning with 6 vCPUs on 2: under PVH a boot of it did not
    # finish lock_contended in 1,800 s (PV's took about 1,000 s).
    *overcommit_configs(PVH_PATCHED, [], smp=6, plain=False),
    config(PVH_PATCHED + DOMU, ["all"], door="domu-pvh"),
]

# KVM's paravirtual features, each against the emulated hardware's way:
# (option, KVM's value, the hardware's, the benchmarks whose figures it
# changes, the vCPUs they need). The KVM guest's boots: every benchmark on
# one vCPU, the two-vCPU ones with every feature on, then each feature
# off alone. Each --kvm boot boots L1's Linux first (about 6 s of CPU).
# Two vCPUs share L1's one CPU: under icount an L1 with two CPUs never
# brings up its second CPU, QEMU's round robin starving it (docs/kvm.md,
# "Two CPUs of L1 under icount"), where with one it boots in seconds. The
# lock on one vCPU: with two spinning on L1's one CPU (kvm.lock=off) the
# boot had not finished its self-tests after 6 minutes under icount.
KVM_CHOICES = [
    ("kvm.clock", "kvmclock", "tsc", ["clock_read", "timer_arm"], 1),
    ("kvm.eoi", "on", "off", ["smp_sync"], 2),
    ("kvm.ipi", "pv", "lapic", ["smp_sync", "tlb_shootdown_1"], 2),
    ("kvm.tlb", "on", "off", ["tlb_shootdown_1", "mprotect_1"], 2),
    ("kvm.lock", "on", "off", ["spin_lock_unlock", "lock_contended"], 1),
    ("kvm.yield", "on", "off", ["tlb_shootdown_1"], 2),
]


def kvm_choice(key):
    """A KVM feature's two ways: (KVM's way's configuration id, the
    hardware's, the hardware's option)."""
    _, _, hw, _, cpus = next(c for c in KVM_CHOICES if c[0] == key)
    return (KVM_PATCHED + smp_tag(cpus), KVM_PATCHED + "+%s=%s" % (key, hw) + smp_tag(cpus),
            "%s=%s" % (key, hw))


def kvm_configs():
    """The KVM guest's boots: KVM's way on one vCPU (every benchmark) and
    on two (the two-vCPU features' benchmarks), and a boot per feature
    the hardware's way, with only its benchmarks."""
    two = list(dict.fromkeys(n for c in KVM_CHOICES if c[4] == 2 for n in c[3]))
    return [config(KVM_PATCHED, ["all"], door="kvm"),
            config(KVM_PATCHED + SMP2, two, door="kvm", smp=2, host_cpus=1)] + [
        config(kvm_choice(key)[1], names, [kvm_choice(key)[2]], door="kvm", smp=cpus,
               host_cpus=1) for key, _, _, names, cpus in KVM_CHOICES]


CONFIGS += kvm_configs()

# The report's PVH section sets each choice's two ways side by side:
# (what is chosen, Xen's way's configuration, the other way's).
PVH_SWITCHES = [("`%s=%s` / `%s`" % (key, pv, hw),) + pvh_choice(key)[:2]
                for key, pv, hw, _, _ in PVH_CHOICES] + [
    ("`pv.spinlock=on` / `off`" + (" (%d vCPUs)" % cpus if cpus > 1 else ""),
     PVH_PATCHED + smp_tag(cpus), PVH_PATCHED + "+spinlock=off" + smp_tag(cpus))
    for cpus in (1, 2, 4)]


def column_and_tags(config_id, columns):
    """The column a configuration belongs to and its extra tags:
    "native-patched+spinlock=off" -> ("native-patched", "spinlock=off");
    (None, None) if it extends no column."""
    best = None
    for col, _ in columns:
        if config_id == col or config_id.startswith(col + "+"):
            if best is None or len(col) > len(best):
                best = col
    if best is None:
        return None, None
    return best, config_id[len(best) + 1:]


# The disk benchmarks (group io) on each door's transport: virtio-blk
# natively, blkfront against Linux dom0's blkback in a PV and a PVH domU;
# each with its notification avoidance off, and blkfront without
# persistent grants. The kernel tags such a boot "+disk" (after "+domu"),
# and the transport's switches when they are off.
DISK = "+disk"
DISK_SIZE = "16M"  # the benchmarks cycle over the first MiB
DISK_VARIANTS = {"native": [("", []), ("+virtio.event_idx=off", ["virtio.event_idx=off"])],
                 "domu": [("", []), ("+blkfront.persistent=off", ["blkfront.persistent=off"]),
                          ("+blkfront.avoid_notify=off", ["blkfront.avoid_notify=off"])]}
CONFIGS += [config("native-patched" + tag + DISK, ["io"], opts, disk=True)
            for tag, opts in DISK_VARIANTS["native"]]
CONFIGS += [config("xen-pv-patched" + XEN + tag + DOMU + DISK, ["io"], ["xen.mmu=batch"] + opts,
                   door="domu", disk=True) for tag, opts in DISK_VARIANTS["domu"]]
CONFIGS += [config(PVH_PATCHED + tag + DOMU + DISK, ["io"], opts, door="domu-pvh", disk=True)
            for tag, opts in DISK_VARIANTS["domu"]]


# The network rows (tools/pbtools/bench/net.py) on each door's transport:
# virtio-net natively, netfront against Linux dom0's netback in a PV and a
# PVH domU, each with its notification avoidance off too. A row is the
# door's own client (tools/run --net) with a count and a window: one in
# flight measures the round trip, 64 a flood. These boots run no
# in-kernel benchmark, so the kernel derives no config string for them;
# the id is the door's and the variant's, tagged "+net" as the disk
# boots are "+disk".
NET = "+net"
NET_VARIANTS = {"native": [("", []), ("+virtio.event_idx=off", ["virtio.event_idx=off"])],
                "domu": [("", []), ("+netfront.avoid_notify=off", ["netfront.avoid_notify=off"])]}
# (row, datagrams, datagrams with --quick, window)
NET_ROWS = [("net_echo_w1", 500, 100, 1), ("net_echo_w64", 5000, 1000, 64)]
# dom0's busybox ping, which the Xen doors run before the client: filed
# from the window-1 boot. QEMU's user network carries no ICMP from the
# host to the guest, so natively there is no such row.
NET_PING = "net_ping"
NET_ROW_NAMES = [r[0] for r in NET_ROWS] + [NET_PING]
CONFIGS += [config("native-patched" + tag + NET, [], opts, net=True)
            for tag, opts in NET_VARIANTS["native"]]
CONFIGS += [config("xen-pv-patched" + XEN + tag + DOMU + NET, [], ["xen.mmu=batch"] + opts,
                   door="domu", net=True) for tag, opts in NET_VARIANTS["domu"]]
CONFIGS += [config(PVH_PATCHED + tag + DOMU + NET, [], opts, door="domu-pvh", net=True)
            for tag, opts in NET_VARIANTS["domu"]]


def net_rows(cfg):
    """The rows a network configuration files: ping too under Xen."""
    return [r[0] for r in NET_ROWS] + ([NET_PING] if cfg["door"].startswith("domu") else [])
