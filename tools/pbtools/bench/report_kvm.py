"""The report's KVM section (tools/pbtools/bench/report.py renders it into
report.md): what each of KVM's paravirtual features buys, op by op, its
two ways (KVM's and the emulated hardware's) beside the same ops under
Xen PV and PVH, and what the figures count under nested virtualization."""

from pbtools.bench import configs as bench_configs
from pbtools.bench.runs import unit_of, value
from pbtools.bench.table import fmt, label, markdown

HEADING = "## What KVM's paravirtual features buy"
PV = "xen-pv-patched" + bench_configs.XEN
PVH = bench_configs.PVH_PATCHED
KVM = bench_configs.KVM_PATCHED


def against(v, base):
    """v against base, in percent, or a factor past twice."""
    if v is None or not base:
        return "—"
    r = v / base
    return "%+.1f%%" % ((r - 1) * 100) if r < 2 else "%.*fx" % (1 if r < 10 else 0, r)


def figure(idx, config_id, name):
    return value(idx, config_id, "", name)


def rows(idx):
    """A row per feature and benchmark it changes: KVM's way, the
    hardware's, the one against the other, and Xen PV's and PVH's figure
    on as many vCPUs (— where a run did not measure it)."""
    out = []
    for key, pv_way, hw_way, names, cpus in bench_configs.KVM_CHOICES:
        on, off, _ = bench_configs.kvm_choice(key)
        smp = bench_configs.smp_tag(cpus)
        for i, name in enumerate(names):
            a, b = figure(idx, on, name), figure(idx, off, name)
            out.append(["`%s=%s` / `%s`" % (key, pv_way, hw_way) if i == 0 else "",
                        label(name, smp[1:]), fmt(a), fmt(b), against(b, a),
                        fmt(figure(idx, PV + smp, name)), fmt(figure(idx, PVH + smp, name))])
    return out


def table(idx):
    return markdown(["feature (KVM's way / the hardware's)", "benchmark", "KVM's way (default)",
                     "the hardware's way", "the hardware's against KVM's", "Xen PV", "PVH"],
                    rows(idx), drop_empty=False)


def notes(unit):
    """What the figures count, and what they cannot show."""
    counted = ("Under icount QEMU counts every instruction it runs, L1's included: an exit of "
               "the L2 guest counts L1's KVM handling it (and Debian's QEMU in L1 where KVM "
               "hands it on), as under PVH Xen's handling is counted. "
               if unit == "instructions" else
               "These are TSC ticks under TCG, L1's time included: compare rows, not machines. ")
    return [counted + "Xen PV and PVH run here as dom0 directly under QEMU; KVM's guest runs "
            "one level deeper, and each of its exits goes through L1's kvm-amd on the SVM QEMU "
            "emulates. KVM's two vCPUs share L1's one CPU, so an op that waits for the other "
            "vCPU waits for L1 to switch to it too. PV TLB flush and PV sched yield act only on "
            "a target vCPU KVM has preempted; in these benchmarks the other vCPU is idle, "
            "halted rather than preempted, so their pairs show what the check costs, and "
            "docs/kvm.md's self-tests with a spinning target show what they save."]


def section(idx):
    """The section's lines; empty without a KVM run."""
    if KVM not in idx:
        return []
    unit = unit_of(idx)
    return ["", HEADING, "",
            "The same image as an L2 guest of KVM (`tools/run --kvm`): the kvm backend keeps "
            "the native irq, mmu and patch ops, which the CPU virtualizes, and each of KVM's "
            "paravirtual features can be switched back to the emulated hardware's way. Each "
            "feature's two ways, %s per op (minimum over the repetitions), beside Xen PV's and "
            "PVH's patched figures for the same op on as many vCPUs:" % unit, ""] + (
        table(idx) + [""] + notes(unit))
