"""What `make bench` runs: the kernel's benchmarks and the configurations
booted to measure them. Shared by tools/bench (which boots them) and
tools/bench_report.py (which lays the results out).

A configuration's id is exactly the config= string the kernel derives at run
time (bench/config.c): tools/bench checks that each boot agrees, so a
result can never be filed under the wrong column.
"""

# name -> (group, platform or None, what one op is). The order is the
# report's row order within a group.
BENCHES = {
    "irq_disable_enable": ("irq", None, "irq_disable + irq_enable (cli; sti)"),
    "save_fl": ("irq", None, "save_fl (pushf; pop)"),
    "restore_fl": ("irq", None, "restore_fl to enabled (push; popf, or test; jz; sti)"),
    "irqsave_irqrestore": ("irq", None, "irq_save + irq_restore"),
    "call_direct": ("calls", None, "a direct call"),
    "call_indirect": ("calls", None, "an indirect call through an ops-table slot"),
    "call_static": ("calls", None, "a static call: direct call to a jmp trampoline"),
    "call_retpoline": ("calls", None, "the indirect call through a retpoline thunk"),
    "spin_lock_unlock": ("locks", None, "spin_lock + spin_unlock, uncontended"),
    "spin_lock_irqsave": ("locks", None, "spin_lock_irqsave + spin_unlock_irqrestore"),
    "ctx_switch": ("sched", None, "one switch between two yielding threads"),
    "channel_pingpong": ("sched", None, "a 1-byte round trip over two channels"),
    "channel_bandwidth": ("sched", None, "1 KiB streamed through a channel"),
    "pte_set": ("pte", None, "set_pte of one entry"),
    "pte_modify_prot": ("pte", None, "ptep_modify_prot_start + commit of one entry"),
    "mprotect_1": ("pte", None, "mprotect of 1 page"),
    "mprotect_16": ("pte", None, "mprotect of 16 pages"),
    "mprotect_512": ("pte", None, "mprotect of 512 pages"),
    "wl_cycle": ("pte", None, "one cycle of the write-barrier workload (wl.pages=2048)"),
    "xen_hypercall": ("xen", "xen", "a hypercall round trip (xen_version)"),
    "xen_multicall_1": ("xen", "xen", "a multicall of 1 xen_version"),
    "xen_multicall_16": ("xen", "xen", "a multicall of 16 xen_version"),
    "xen_evtchn_self": ("xen", "xen", "an event sent to ourselves, delivered by upcall"),
}

GROUPS = [
    ("irq", "Interrupt-flag ops"),
    ("calls", "Calls: the 2018 jump-functions comparison"),
    ("locks", "Spinlocks"),
    ("sched", "Scheduler and channels"),
    ("pte", "Page tables"),
    ("xen", "Xen primitives"),
]

# Under Xen every boot names its xen.mmu mode; batch is the one the
# general tables use, and the pte table sets the three side by side.
XEN_MMU_MODES = ["trap", "hypercall", "batch"]
XEN = "+xen.mmu=batch"

# The report's columns: (configuration, heading). "normal" is the kernel
# built without paravirt; under Xen there is no such kernel, so the Xen
# columns are compared with the native normal one too. A configuration
# whose id extends a column's with more tags is a row variant of it.
COLUMNS = [
    ("native-nopv", "normal"),
    ("native-unpatched", "paravirt"),
    ("native-patched", "paravirt-patch"),
    ("xen-unpatched" + XEN, "xen"),
    ("xen-patched" + XEN, "xen-patch"),
]
PTE_COLUMNS = [("native-nopv", "normal"), ("native-patched", "paravirt-patch")] + [
    ("xen-patched+xen.mmu=" + mode, "xen " + mode) for mode in XEN_MMU_MODES]


def config(id, select, options=(), nopv=False):
    """A boot: id (= the kernel's config string), the bench= selection
    (a list of benchmark or group names) and the other kernel options."""
    platform = id.split("-", 1)[0]
    return dict(id=id, platform=platform, image="nopv" if nopv else "pv",
                select=list(select), options=list(options))


CONFIGS = [
    config("native-nopv", ["all"], nopv=True),
    config("native-unpatched", ["all"], ["pv.patch=off"]),
    config("native-patched", ["all"]),
    config("native-patched+restore_fl=condsti", ["irq", "spin_lock_irqsave"],
           ["pv.restore_fl=condsti"]),
    config("native-nopv+spinlock=off", ["locks"], ["pv.spinlock=off"], nopv=True),
    config("native-unpatched+spinlock=off", ["locks"], ["pv.patch=off", "pv.spinlock=off"]),
    config("native-patched+spinlock=off", ["locks"], ["pv.spinlock=off"]),
    config("xen-unpatched" + XEN, ["all"], ["pv.patch=off", "xen.mmu=batch"]),
    config("xen-patched" + XEN, ["all"], ["xen.mmu=batch"]),
    config("xen-patched+xen.mmu=trap", ["pte"], ["xen.mmu=trap"]),
    config("xen-patched+xen.mmu=hypercall", ["pte"], ["xen.mmu=hypercall"]),
    config("xen-unpatched" + XEN + "+spinlock=off", ["locks"],
           ["pv.patch=off", "xen.mmu=batch", "pv.spinlock=off"]),
    config("xen-patched" + XEN + "+spinlock=off", ["locks"], ["xen.mmu=batch", "pv.spinlock=off"]),
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


def expected_names(cfg):
    """The benchmarks a configuration must report, in report order."""
    names = []
    for name, (group, platform, _) in BENCHES.items():
        wanted = "all" in cfg["select"] or group in cfg["select"] or name in cfg["select"]
        if wanted and platform in (None, cfg["platform"]):
            names.append(name)
    return names
