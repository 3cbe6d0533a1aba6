"""What `make bench` boots: the configurations that change what the
benchmarks measure, and the report's columns. Shared by tools/bench (which
boots them) and tools/bench_report.py (which lays the results out).

The benchmarks themselves are not listed here: the kernel registers each
one once (BENCH_DEFINE, bench/bench.h) and the tools read that list, with
groups, descriptions and the capabilities each needs, out of the image
(bench_report.catalog). A configuration's platform ("native", "xen-pv",
"xen-pvh") is matched against the platforms the image names for each
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

# The report's columns: (configuration, heading). "normal" is the kernel
# built without paravirt; under Xen there is no such kernel, so the Xen
# columns are compared with the native normal one too. A configuration
# whose id extends a column's with more tags is a row variant of it (the
# longest matching column wins, so the domU columns are not variants).
COLUMNS = [
    ("native-nopv", "normal"),
    ("native-unpatched", "paravirt"),
    ("native-patched", "paravirt-patch"),
    ("xen-pv-unpatched" + XEN, "xen"),
    ("xen-pv-patched" + XEN, "xen-patch"),
    ("xen-pv-patched" + XEN + DOMU, "domU-patch"),
]
PTE_COLUMNS = [("native-nopv", "normal"), ("native-patched", "paravirt-patch")] + [
    ("xen-pv-patched+xen.mmu=" + mode, "xen " + mode) for mode in XEN_MMU_MODES] + [
    ("xen-pv-patched" + XEN + DOMU, "domU batch")]


# How tools/run boots each door: a platform's own (native, xen-pv, xen-pvh:
# the two Xen ones as dom0) or a domU of a Linux dom0.
DOORS = {"native": [], "xen-pv": ["--xen"], "xen-pvh": ["--xen", "--pvh"], "domu": ["--domu"],
         "domu-pvh": ["--domu", "--pvh"]}

# A configuration id starts with the platform (pv_info.name), then the build.
PLATFORM = re.compile(r"^(native|xen-pvh|xen-pv)-(?:nopv|unpatched|patched)\b")


def config(id, select, options=(), nopv=False, door=None, smp=1, host_cpus=None, icount=False,
           trials=()):
    """A boot: id (= the kernel's config string), the bench= selection
    (a list of benchmark or group names), the other kernel options, the
    tools/run door (DOORS; default: the platform's own, as dom0 under Xen), the
    number of CPUs (tools/run --smp), under Xen of physical CPUs
    (--host-cpus; default as many), whether it always runs under
    --icount, and its trials: the benchmarks whose figure depends on where
    the hypervisor's time slices fall, which tools/bench runs again in
    further boots (--runs), each starting at another offset."""
    platform = PLATFORM.match(id).group(1)
    return dict(id=id, platform=platform, door=door or platform, smp=smp, host_cpus=host_cpus,
                icount=icount, image="nopv" if nopv else "pv", select=list(select),
                options=list(options), trials=list(trials))


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
    config("native-patched" + SMP2, ["locks", "sched", "pte"], smp=2),
    config("xen-pv-patched" + XEN + SMP2, ["locks", "sched", "pte"], ["xen.mmu=batch"], smp=2),
    # Contended locks on two CPUs: plain ticket spinning beside the pv
    # lock of the configurations above (bench/lock_contended.c).
    config("native-patched+spinlock=off" + SMP2, ["lock_contended"], ["pv.spinlock=off"], smp=2),
    config("xen-pv-patched" + XEN + "+spinlock=off" + SMP2, ["lock_contended"],
           ["xen.mmu=batch", "pv.spinlock=off"], smp=2),
    # Overcommit: 4 vCPUs on 2 physical CPUs, where Xen deschedules a vCPU
    # that holds or waits for a lock: the pv lock against plain spinning,
    # as a PV and as a PVH dom0, each a distribution over --runs runs.
    # Always under icount: QEMU then runs its CPUs on one host thread.
    # Without it, on a 2-CPU host that also runs another boot, each of
    # QEMU's CPU threads is itself descheduled while Xen's vCPUs spin, and
    # a boot took from 3 s to over 300 s.
    config("xen-pv-patched" + XEN + SMP4, ["lock_contended", "pte", "patching"], ["xen.mmu=batch"],
           smp=4, host_cpus=2, icount=True, trials=["lock_contended"]),
    config("xen-pv-patched" + XEN + "+spinlock=off" + SMP4, ["lock_contended"],
           ["xen.mmu=batch", "pv.spinlock=off"], smp=4, host_cpus=2, icount=True,
           trials=["lock_contended"]),
    config("xen-pvh-patched" + SMP4, ["lock_contended"], smp=4, host_cpus=2, icount=True,
           trials=["lock_contended"]),
    config("xen-pvh-patched+spinlock=off" + SMP4, ["lock_contended"], ["pv.spinlock=off"], smp=4,
           host_cpus=2, icount=True, trials=["lock_contended"]),
    # A shootdown of three other CPUs: natively three IPIs and waits, under
    # Xen (the overcommit boot above) still one hypercall. Under icount
    # too: without it, 4 CPUs on 2 host CPUs spend about 750k ticks on one.
    # And a live patch, whose four syncs each interrupt every CPU.
    config("native-patched" + SMP4, ["pte", "patching"], smp=4, icount=True),
]


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

