#!/usr/bin/env python3
"""The report's KVM section and the KVM guest's boots, without booting:

1. Each of KVM's paravirtual features (this test's own list, so a feature
   dropped from tools/pbtools/bench/configs.py fails it) has a boot that switches
   it to the hardware's way on the KVM door, beside the boot with KVM's
   way on as many vCPUs.
2. The section rendered from made-up results is in report.md and has a
   row per feature holding its pair (KVM's figure, the hardware's, one
   against the other) and Xen PV's and PVH's figures for the same op.
3. Without a KVM run there is no section.
4. With linux.json holding Debian's Linux as KVM's guest, the section has
   a row per op both kernels run: Linux native and as KVM's guest, and
   patchbay's figures the same two ways, and says what an L2 guest's
   figures count; without that boot, no such rows; in another unit, a
   line saying so instead of figures.
Ends with "N passed, N failed"."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from pbtools.bench import configs as bench_configs  # noqa: E402
from pbtools.bench import linux as bench_linux  # noqa: E402
from pbtools.bench import report as bench_report  # noqa: E402
from pbtools.bench import report_kvm as bench_report_kvm  # noqa: E402
from report import check, summary  # noqa: E402

# Every switch of kvm/install.c and kvm/lock.c that has a hardware's way
# the benchmarks can set against KVM's, and that way.
FEATURES = {"kvm.clock": "tsc", "kvm.eoi": "off", "kvm.ipi": "lapic", "kvm.tlb": "off",
            "kvm.lock": "off", "kvm.yield": "off"}
PV = "xen-pv-patched" + bench_configs.XEN
PVH = bench_configs.PVH_PATCHED


def boots():
    """{config id: config} of the KVM door."""
    return {c["id"]: c for c in bench_configs.CONFIGS if c["door"] == "kvm"}


def named(cfg):
    """The benchmarks a boot selects, "all" read as every one the KVM
    section names (the image's full list is not needed here)."""
    every = [n for c in bench_configs.KVM_CHOICES for n in c[3]]
    return list(dict.fromkeys(every if "all" in cfg["select"] else cfg["select"]))


def made_up_results():
    """results.json's data with a distinct figure for every benchmark of
    every KVM boot, and for the same benchmarks under Xen PV and PVH."""
    results, n = {}, 1000
    for cfg in boots().values():
        for name in named(cfg):
            results.setdefault(cfg["id"], {})[name] = n
            n += 7
    for cfg in list(boots().values()):
        smp = bench_configs.smp_tag(cfg["smp"])
        for base in (PV, PVH):
            for name in named(cfg):
                results.setdefault(base + smp, {})[name] = n
                n += 7
    configs = [dict(id=c, problems=[], results=[
        dict(name=name, config=c, min=float(v), median=float(v), iters=100, reps=3,
             unit="instructions") for name, v in figures.items()])
        for c, figures in results.items()]
    conditions = dict(date="today", git_revision="x", qemu="QEMU", accelerator="tcg",
                      cpu_model="max", cpu_brand="cpu", xen=None, timing="icount", quick=False,
                      host_cpus=2, parallel_boots=1, elapsed_s=1, kvm=True)
    return dict(conditions=conditions, configs=configs,
                catalog=dict(groups=[], benches=[])), results


def feature_rows(report, key):
    """The section's rows for one feature: its first (naming it) and those
    after it up to the next feature's."""
    lines = report[report.index(bench_report_kvm.HEADING):].splitlines()
    out = []
    for line in lines:
        if not line.startswith("| "):
            if out:
                break
            continue
        first = line.split("|")[1].strip()
        if first.startswith("`%s=" % key):
            out = [line]
        elif out and first == "":
            out.append(line)
        elif out:
            break
    return out


def check_boots():
    found = boots()
    for key, hw in FEATURES.items():
        off = [c for c in found.values() if "%s=%s" % (key, hw) in c["options"]]
        check("%s=%s: a KVM boot sets it" % (key, hw), len(off) == 1,
              "%d boots" % len(off))
        if len(off) != 1:
            continue
        on = bench_configs.KVM_PATCHED + bench_configs.smp_tag(off[0]["smp"])
        check("%s: KVM's way measured on %d vCPUs too" % (key, off[0]["smp"]),
              on in found and set(named(off[0])) <= set(named(found[on])),
              "no boot %s with %s" % (on, off[0]["select"]))


def check_section():
    data, figures = made_up_results()
    report = bench_report.render(data, False)
    check("report.md has the KVM section", bench_report_kvm.HEADING in report)
    if bench_report_kvm.HEADING not in report:
        return
    for key, hw in FEATURES.items():
        lines = feature_rows(report, key)
        off = "%s+%s=%s" % (bench_configs.KVM_PATCHED, key, hw)
        off_id = next((c for c in figures if c.startswith(off)), None)
        problems = [] if lines and off_id else ["no row"]
        for line in lines if off_id else []:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            name = re.match(r"`(\w+)`", cells[1]).group(1)
            smp = off_id[len(off):]
            want = [figures[bench_configs.KVM_PATCHED + smp][name], figures[off_id][name],
                    figures[PV + smp][name], figures[PVH + smp][name]]
            got = [cells[2], cells[3], cells[5], cells[6]]
            if got != [str(w) for w in want] or not re.fullmatch(r"[+-]\d+\.\d%|\d+(\.\d)?x",
                                                                  cells[4]):
                problems.append("%s: %s, not %s with a ratio" % (name, got, want))
        check("%s: a row with its pair beside Xen PV and PVH" % key, not problems,
              "; ".join(problems))
    data["configs"] = [c for c in data["configs"] if not c["id"].startswith("kvm-")]
    check("no KVM run, no KVM section",
          bench_report_kvm.HEADING not in bench_report.render(data, False))


def linux_data(boots, timing="icount"):
    """linux.json's data: Linux's boots with a distinct figure a compared op."""
    runs = [dict(id=c, counts=[], results=[dict(name=lname, config=c, min=float(5000 + 11 * i + j))
                                           for j, (lname, _, _) in enumerate(bench_linux.COMPARED)])
            for i, c in enumerate(boots)]
    return dict(conditions=dict(date="today", release="6.1.0-56-amd64", timing=timing),
                linux=runs)


def linux_rows(report):
    """The KVM section's rows of Linux's ops: {benchmark cell: cells}."""
    rows = {}
    for line in report[report.index(bench_report_kvm.HEADING):].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and "=" not in cells[0]:  # not a feature's row
            rows[cells[0]] = cells
    return rows


def check_linux():
    data, figures = made_up_results()
    pb = {}
    for c in (bench_linux.PATCHBAY[0][0], bench_configs.KVM_PATCHED):
        for i, (_, pname, _) in enumerate(bench_linux.COMPARED):
            pb[(c, pname)] = 300.0 + i + (50 if c == bench_configs.KVM_PATCHED else 0)
    data["configs"].append(dict(id=bench_linux.PATCHBAY[0][0], problems=[], results=[]))
    for cfg in data["configs"]:
        cfg["results"] += [dict(name=n, config=c, min=v, median=v, iters=1, reps=3,
                                unit="instructions")
                           for (c, n), v in pb.items() if c == cfg["id"]]
    linux = linux_data(["linux-native", "linux-xen", "linux-kvm"])
    report = bench_report.render(data, False, linux=linux)
    rows = linux_rows(report)
    problems = []
    for lname, pname, _ in bench_linux.COMPARED:
        key = "`%s`" % lname
        want = ["%d" % bench_linux.figure(linux["linux"], c, lname)
                for c in ("linux-native", "linux-kvm")]
        # patchbay's figures where it runs the same op: not Xen's hypercall.
        want_pb = ["%d" % pb[(c, pname)] if lname == pname else "—"
                   for c in (bench_linux.PATCHBAY[0][0], bench_configs.KVM_PATCHED)]
        got = rows.get(key)
        if not got or got[1:3] != want or [got[4], got[5]] != want_pb:
            problems.append("%s: %s, not %s and %s" % (key, got, want, want_pb))
    check("Linux as KVM's guest: a row per op, beside native, patchbay's where it has the op",
          not problems, "; ".join(problems))
    check("Linux as KVM's guest: the section says what an L2 guest's icount counts",
          "L1's too" in report[report.index(bench_report_kvm.HEADING):])
    report = bench_report.render(data, False, linux=linux_data(["linux-native", "linux-xen"]))
    check("Linux without a KVM boot: no Linux rows in the KVM section", not linux_rows(report),
          linux_rows(report))
    report = bench_report.render(data, False, linux=dict(linux, conditions=dict(
        linux["conditions"], timing="tsc")))
    check("Linux as KVM's guest in TSC ticks, this run in instructions: said, no rows",
          not linux_rows(report) and "was measured in TSC ticks" in report)


def main():
    check_boots()
    check_section()
    check_linux()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
