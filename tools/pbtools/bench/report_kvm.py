"""The report's KVM section (tools/pbtools/bench/report.py renders it into
report.md): what each of KVM's paravirtual features buys, op by op, its
two ways (KVM's and the emulated hardware's) beside the same ops under
Xen PV and PVH; Debian's Linux as KVM's guest beside native for the ops
both kernels run (linux.json, tools/pbtools/bench/linux.py); and what the
figures count under nested virtualization."""

from pbtools.bench import configs as bench_configs
from pbtools.bench import linux as bench_linux
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


def linux_rows(idx, runs):
    """A row per op of bench_linux.COMPARED: Linux natively and as KVM's
    guest, one against the other, and patchbay's figures the same two ways
    where it has the same op (its counterpart of a system call is Xen's
    hypercall, which KVM's guest does not make), else —."""
    out = []
    for lname, pname, _ in bench_linux.COMPARED:
        ln, lk = (bench_linux.figure(runs, c, lname) for c in ("linux-native", "linux-kvm"))
        pn, pk = ((figure(idx, c, pname) if pname == lname else None)
                  for c in (bench_linux.PATCHBAY[0][0], KVM))
        out.append([label(lname, ""), fmt(ln), fmt(lk), against(lk, ln), fmt(pn), fmt(pk),
                    against(pk, pn)])
    return out


def linux_lines(idx, linux, unit):
    """Debian's Linux as KVM's L2 guest, the same ops beside native; a line
    saying why not when linux.json has no such run or another unit."""
    runs = (linux or {}).get("linux", [])
    if not bench_linux.has(runs, "linux-kvm"):
        return []
    timing = linux["conditions"]["timing"]
    if (timing == "icount") != (unit == "instructions"):
        return ["", "Debian's Linux as KVM's guest was measured in %s (linux.json), this run "
                "in %s: `tools/bench --linux%s` measures it on this run's ground."
                % ("instructions" if timing == "icount" else "TSC ticks", unit,
                   " --icount" if unit == "instructions" else "")]
    rows = linux_rows(idx, runs)
    return ["", "Debian's Linux (`uname -r` %s) as KVM's guest (`tools/run --linux --kvm`, "
            "linux.json of %s) for the ops both kernels run, beside its native figure and "
            "patchbay's the same two ways, %s per op. Linux's figures hold a system call per op, "
            "patchbay's a function call (the \"Linux, same ground\" section):"
            % (linux["conditions"]["release"], linux["conditions"]["date"], unit), ""] + (
        markdown(["benchmark", "Linux native", "Linux, KVM's L2 guest", "KVM against native",
                  "patchbay native", "patchbay, KVM's L2 guest", "KVM against native"],
                 rows, drop_empty=False) + ["", bench_linux.L2_COUNTED[timing]])


def section(idx, linux=None):
    """The section's lines; empty without a KVM run. linux is linux.json's
    data, if there is one."""
    if KVM not in idx:
        return []
    unit = unit_of(idx)
    return ["", HEADING, "",
            "The same image as an L2 guest of KVM (`tools/run --kvm`): the kvm backend keeps "
            "the native irq, mmu and patch ops, which the CPU virtualizes, and each of KVM's "
            "paravirtual features can be switched back to the emulated hardware's way. Each "
            "feature's two ways, %s per op (minimum over the repetitions), beside Xen PV's and "
            "PVH's patched figures for the same op on as many vCPUs:" % unit, ""] + (
        table(idx) + [""] + notes(unit)) + linux_lines(idx, linux, unit)
