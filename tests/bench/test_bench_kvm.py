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
   line saying so instead of figures."""

import re

import pytest
from pbtools.bench import configs as bench_configs
from pbtools.bench import linux as bench_linux
from pbtools.bench import report as bench_report
from pbtools.bench import report_kvm as bench_report_kvm

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


@pytest.fixture(scope="module")
def section():
    """The report rendered from made-up results, with those results."""
    data, figures = made_up_results()
    return figures, bench_report.render(data, False)


@pytest.mark.parametrize("key,hw", FEATURES.items(), ids=list(FEATURES))
def test_boot_sets_the_hardware_way(key, hw):
    found = boots()
    off = [c for c in found.values() if "%s=%s" % (key, hw) in c["options"]]
    assert len(off) == 1, "%s=%s: a KVM boot sets it, not %d boots" % (key, hw, len(off))
    on = bench_configs.KVM_PATCHED + bench_configs.smp_tag(off[0]["smp"])
    assert on in found and set(named(off[0])) <= set(named(found[on])), \
        "%s: KVM's way measured on %d vCPUs too: no boot %s with %s" % (
            key, off[0]["smp"], on, off[0]["select"])


def test_report_has_the_section(section):
    assert bench_report_kvm.HEADING in section[1], "report.md has the KVM section"


@pytest.mark.parametrize("key,hw", FEATURES.items(), ids=list(FEATURES))
def test_row_holds_the_pair_beside_xen(section, key, hw):
    figures, report = section
    assert bench_report_kvm.HEADING in report, "report.md has the KVM section"
    lines = feature_rows(report, key)
    off = "%s+%s=%s" % (bench_configs.KVM_PATCHED, key, hw)
    off_id = next((c for c in figures if c.startswith(off)), None)
    assert lines and off_id, "%s: no row" % key
    problems = []
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.match(r"`(\w+)`", cells[1]).group(1)
        smp = off_id[len(off):]
        want = [figures[bench_configs.KVM_PATCHED + smp][name], figures[off_id][name],
                figures[PV + smp][name], figures[PVH + smp][name]]
        got = [cells[2], cells[3], cells[5], cells[6]]
        if got != [str(w) for w in want] or not re.fullmatch(r"[+-]\d+\.\d%|\d+(\.\d)?x",
                                                              cells[4]):
            problems.append("%s: %s, not %s with a ratio" % (name, got, want))
    assert not problems, "%s: a row with its pair beside Xen PV and PVH: %s" % (
        key, "; ".join(problems))


def test_no_kvm_run_no_section():
    data, _ = made_up_results()
    data["configs"] = [c for c in data["configs"] if not c["id"].startswith("kvm-")]
    assert bench_report_kvm.HEADING not in bench_report.render(data, False), \
        "no KVM run, no KVM section"


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


@pytest.fixture(scope="module")
def with_linux():
    """Made-up results with patchbay's figures for the ops Linux runs too,
    native and as KVM's guest: (results, patchbay's figures)."""
    data, _ = made_up_results()
    pb = {}
    for c in (bench_linux.PATCHBAY[0][0], bench_configs.KVM_PATCHED):
        for i, (_, pname, _) in enumerate(bench_linux.COMPARED):
            pb[(c, pname)] = 300.0 + i + (50 if c == bench_configs.KVM_PATCHED else 0)
    data["configs"].append(dict(id=bench_linux.PATCHBAY[0][0], problems=[], results=[]))
    for cfg in data["configs"]:
        cfg["results"] += [dict(name=n, config=c, min=v, median=v, iters=1, reps=3,
                                unit="instructions")
                           for (c, n), v in pb.items() if c == cfg["id"]]
    return data, pb


def test_linux_rows_beside_patchbay(with_linux):
    data, pb = with_linux
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
    assert not problems, "a row per op, beside native, patchbay's where it has the op: " + \
        "; ".join(problems)
    assert "L1's too" in report[report.index(bench_report_kvm.HEADING):], \
        "the section says what an L2 guest's icount counts"


def test_no_linux_kvm_boot_no_linux_rows(with_linux):
    data, _ = with_linux
    report = bench_report.render(data, False, linux=linux_data(["linux-native", "linux-xen"]))
    assert not linux_rows(report), linux_rows(report)


def test_linux_in_another_unit_said_not_shown(with_linux):
    data, _ = with_linux
    linux = linux_data(["linux-native", "linux-xen", "linux-kvm"], timing="tsc")
    report = bench_report.render(data, False, linux=linux)
    assert not linux_rows(report) and "was measured in TSC ticks" in report
