#!/usr/bin/env bash
# tests/bench/test_bench.sh: the benchmarks as a test, never their timings.
#  1. tools/bench --quick: every benchmark in every configuration with few
#     iterations; tools/bench fails a boot whose lines do not parse, whose
#     checks fail, whose config string is not the one expected, or that
#     leaves a benchmark out. All but the PVH domU: its door (a Linux dom0,
#     then a PVH guest) is the boot tests' (domu-pvh-*), and its backend
#     and benchmarks are the PVH dom0's, which run here. The network rows
#     natively only: the PV domU's net door is the boot tests'
#     (domu-net-pv), and its four boots would add minutes. Of the KVM
#     door's boots only kvm-patched (every benchmark, KVM's way): each
#     boots L1's Linux first, and the feature switches are the boot
#     tests' (kvm-*); tests/bench/test_bench_kvm.py checks, without
#     booting, that each has its boot and its row in the KVM section.
#  2. The benchmarks the image registers (BENCH_DEFINE, read from the image)
#     are exactly the ones each bench=all boot printed a line for, in the
#     same order, and every one of them is named in report.md.
#  3. The same small benchmark twice under --icount must count exactly the
#     same instructions (what `make bench ICOUNT=1` promises).
#  4. The same with two CPUs (configuration native-patched+smp2, with the
#     benchmarks tools/pbtools/bench/configs.py gives it): two --icount boots must
#     give the same median for every benchmark whose op runs on one CPU.
#  5. The disk benchmarks: run with their detail lines where the
#     configuration gives a disk, nowhere else; the report's section.
#     lock_contended's own lines: every boot of the quick run that ran it
#     filed one run with a line per repetition; and tests/bench/
#     test_contended.py, their parser, the report's distribution and the
#     boots --runs adds, without booting.
#  6. Debian's Linux beside patchbay (tools/bench --linux --quick), only
#     when its kernel is already cached (boot-test's domU cases fetch it):
#     the Linux program's own checks (each mprotect's rights read back by
#     writing to its pages), linux.json with every benchmark on the three
#     Linux boots (native, Xen's dom0, KVM's L2 guest), and the report's
#     section with both kernels' hypercall
#     counts (Linux's mprotect_512 commits 512 ptes), and its disk benchmarks
#     natively (virtio-blk) and in a PV and a PVH domU (blkfront), and its
#     network rows natively (virtio-net; a quick run leaves out the domUs').
#     Then the negative control: boots that fail (QEMU given too little
#     memory) leave no linux.json.
# Needs both images (make image, make PARAVIRT=n image). Ends with
# "N passed, N failed"; exits 1 if any check failed.
set -uo pipefail

# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
out=$build/tests/bench
bench=$root/tools/bench
rm -rf "$out"
mkdir -p "$out"


configs=$(PYTHONDONTWRITEBYTECODE=1 python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from pbtools.bench import configs as bench_configs
print(",".join(c["id"] for c in bench_configs.CONFIGS
               if c["door"] != "domu-pvh" and not (c["net"] and c["door"] != "native")
               and (c["door"] != "kvm" or c["id"] == bench_configs.KVM_PATCHED)))
' "$root/tools")
if "$bench" --quick -j 2 --configs "$configs" --out "$out/quick" 2>"$out/quick.err"; then
    pass "every benchmark, every configuration (quick)"
else
    fail "every benchmark, every configuration (quick)"
    tail -n 5 "$out/quick.err"
fi

# Every lock_contended result of the quick run has one run of as many
# repetition lines as its reps (tools/bench fails a boot whose lines do
# not parse; this checks they were read at all).
contended=$(python3 -c '
import json, sys
found = 0
for run in json.load(open(sys.argv[1]))["configs"]:
    for r in run["results"]:
        if r["name"] == "lock_contended" and "min" in r:
            runs = r.get("runs", [])
            if len(runs) != 1 or len(runs[0]["reps"]) != r["reps"]:
                sys.exit("%s: %d runs" % (r["config"], len(runs)))
            found += 1
print(found)
' "$out/quick/results.json" 2>&1)
if [ "${contended:-0}" -gt 0 ] 2>/dev/null; then
    pass "lock_contended: $contended boots filed their repetitions"
else
    fail "lock_contended: repetitions not filed: $contended"
fi
if grep -q "^## What KVM's paravirtual features buy$" "$out/quick/report.md" 2>/dev/null &&
    (cd "$root" && pytest-3 tests/bench/test_bench_kvm.py) >"$out/kvm.log" 2>&1; then
    pass "the KVM section: in the quick run's report, a pair per feature ($(tail -n 1 "$out/kvm.log"))"
else
    fail "the KVM section:"
    grep -E "^(FAILED|ERROR)|Error" "$out/kvm.log" | head -n 5
fi
if (cd "$root" && pytest-3 tests/bench/test_contended.py) >"$out/contended.log" 2>&1; then
    pass "lock_contended's lines, distribution and runs ($(tail -n 1 "$out/contended.log"))"
else
    fail "lock_contended's lines, distribution and runs:"
    grep -E "^(FAILED|ERROR)|Error" "$out/contended.log" | head -n 5
fi

# The disk benchmarks of the quick run: each disk configuration (a scratch
# disk on its door) filed the six with their detail lines, the boots
# without a disk measured none of them, and the report has its section.
disk=$(python3 -c '
import json, sys
names = ["disk_read64k_qd1", "disk_read64k_qd32", "disk_read_qd1", "disk_read_qd32",
         "disk_write_qd1", "disk_write_qd32"]
boots = 0
for run in json.load(open(sys.argv[1]))["configs"]:
    got = [r["name"] for r in run["results"] if r["name"] in names and "min" in r]
    filed = [r for r in run["results"] if r["name"] in names and "io" in r]
    if run["id"].endswith("+disk"):
        if got != names or len(filed) != len(names):
            sys.exit("%s: measured %s, %d with their detail" % (run["id"], got, len(filed)))
        boots += 1
    elif got:
        sys.exit("%s: measured %s without a disk" % (run["id"], got))
print(boots)
' "$out/quick/results.json" 2>&1)
if [ "${disk:-0}" -gt 0 ] 2>/dev/null && grep -q "^## Paravirtual I/O" "$out/quick/report.md"; then
    pass "disk benchmarks: $disk boots with a disk filed all six, the others none"
else
    fail "disk benchmarks: $disk"
fi

# The benchmarks an image registers, one name a line, in run order; with
# a second argument "one-cpu", only those whose op runs on one CPU (not
# .every_cpu).
registered() {
    PYTHONDONTWRITEBYTECODE=1 python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from pbtools.bench import catalog as bench_catalog
for b in bench_catalog.catalog(sys.argv[2])["benches"]:
    if sys.argv[3:] != ["one-cpu"] or not b["every_cpu"]:
        print(b["name"])
' "$root/tools" "$@"
}

# The benchmarks a boot's console printed a result line for (ran or
# skipped), read by tools/pbtools/result_lines.py.
printed() {
    PYTHONDONTWRITEBYTECODE=1 python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from pbtools import result_lines
for r in result_lines.results(open(sys.argv[2], errors="replace").read()):
    if r["name"] != "loop_overhead":
        print(r["name"])
' "$root/tools" "$1"
}

for pair in native-nopv:nopv/patchbay.elf native-patched:patchbay.elf \
    xen-pv-patched+xen.mmu=batch:patchbay.elf xen-pvh-patched:patchbay.elf \
    kvm-patched:patchbay.elf; do
    id=${pair%%:*}
    image=$build/${pair#*:}
    want=$(registered "$image")
    got=$(printed "$out/quick/logs/$id.log" 2>/dev/null)
    if [ -n "$want" ] && [ "$want" = "$got" ]; then
        pass "$id: the boot printed the $(wc -l <<<"$want") benchmarks the image registers"
    else
        fail "$id: the image registers (<) and the boot printed (>) different benchmarks:"
        diff <(echo "$want") <(echo "$got") | sed -n 's/^[<>]/  &/p' | head -n 10
    fi
done

want=$(registered "$build/patchbay.elf")
left_out=""
for name in $want; do
    grep -qF "\`$name\`" "$out/quick/report.md" 2>/dev/null || left_out="$left_out $name"
done
if [ -n "$want" ] && [ -z "$left_out" ]; then
    pass "report.md names every benchmark the image registers"
else
    fail "report.md leaves out:${left_out:- (no benchmarks registered)}"
fi

# The figures of one results.json as "config name min median" lines.
figures() {
    python3 -c '
import json, sys
for run in json.load(open(sys.argv[1]))["configs"]:
    for r in run["results"]:
        print(r["config"], r["name"], r.get("min"), r.get("median"))
' "$1"
}

# Steps 3 and 4 boot side by side (icount counts the same however busy
# the host is, which these pairs check too).
smp=native-patched+smp2
declare -A pid
for i in 1 2; do
    "$bench" --icount --only irq_disable_enable --configs native-patched \
        --out "$out/icount$i" 2>"$out/icount$i.err" &
    pid[icount$i]=$!
    "$bench" --icount --configs "$smp" --out "$out/icount-smp$i" 2>"$out/icount-smp$i.err" &
    pid[icount-smp$i]=$!
done
smp_ok=1
for run in icount1 icount2 icount-smp1 icount-smp2; do
    wait "${pid[$run]}" && continue
    tail -n 5 "$out/$run.err"
    [ "${run#icount-smp}" = "$run" ] || smp_ok=0
done
one=$(figures "$out/icount1/results.json" 2>/dev/null)
two=$(figures "$out/icount2/results.json" 2>/dev/null)
if grep -q "irq_disable_enable [0-9]" <<<"$one" && [ "$one" = "$two" ]; then
    pass "icount: two runs count the same ($(grep irq_disable_enable <<<"$one"))"
else
    fail "icount: two runs differ or did not report: '$one' vs '$two'"
fi

# With two CPUs QEMU's icount runs them in turn on one host thread,
# switching where the instruction count says, or where a host event (its
# RCU thread's grace period, a monitor command) cuts a CPU's turn short.
# Such a cut moves the interleaving, so what repeats is what does not
# depend on it: the median of every benchmark whose op runs on one CPU
# (the other only answering its shootdowns). The benchmarks whose threads
# run on every CPU at once (.every_cpu, read from the image) and the
# self-tests' per-CPU tallies count whatever interleaving QEMU gave them.
# tools/bench gives each boot tools/run's --timeout.
medians() {
    python3 -c '
import json, sys
keep = set(sys.argv[2].split())
for run in json.load(open(sys.argv[1]))["configs"]:
    for r in run["results"]:
        if r["name"] in keep:
            print(r["name"], r.get("median"))
' "$1" "$2"
}
keep=$(registered "$build/patchbay.elf" one-cpu)
one=$(medians "$out/icount-smp1/results.json" "$keep" 2>/dev/null)
two=$(medians "$out/icount-smp2/results.json" "$keep" 2>/dev/null)
if [ "$smp_ok" = 1 ] && grep -q "^smp: 2 CPUs running" "$out/icount-smp1/logs/$smp.log" &&
    grep -q "^mprotect_1 [0-9]" <<<"$one" && [ "$one" = "$two" ]; then
    pass "icount, two CPUs: two runs count the same ($(wc -l <<<"$one") one-CPU benchmarks; $(grep mprotect_1 <<<"$one"))"
else
    fail "icount, two CPUs: two runs differ or did not report: '$one' vs '$two'"
fi


linux_names() {
    python3 -c '
import json, sys
for run in json.load(open(sys.argv[1]))["linux"]:
    print(run["id"], " ".join(r["name"] for r in run["results"]))
' "$1"
}
if [ -f "$build/domu/vmlinux" ]; then
    if "$bench" --linux --icount --quick --out "$out/linux" 2>"$out/linux.err" &&
        [ "$(linux_names "$out/linux/linux.json")" = "$(printf '%s\n' \
            "linux-native loop_overhead mprotect_1 mprotect_16 mprotect_512 ctx_switch channel_pingpong null_syscall" \
            "linux-xen loop_overhead mprotect_1 mprotect_16 mprotect_512 ctx_switch channel_pingpong null_syscall" \
            "linux-kvm loop_overhead mprotect_1 mprotect_16 mprotect_512 ctx_switch channel_pingpong null_syscall" \
            "linux-native+disk disk_read64k_qd1 disk_read64k_qd32 disk_read_qd1 disk_read_qd32 disk_write_qd1 disk_write_qd32" \
            "linux-domu+disk disk_read64k_qd1 disk_read64k_qd32 disk_read_qd1 disk_read_qd32 disk_write_qd1 disk_write_qd32" \
            "linux-domu-pvh+disk disk_read64k_qd1 disk_read64k_qd32 disk_read_qd1 disk_read_qd32 disk_write_qd1 disk_write_qd32" \
            "linux-native+net net_echo_w1 net_echo_w64")" ] &&
        grep -q "^## Linux, same ground" "$out/linux/report.md" &&
        grep -Eq '^\| `mprotect_512` \| [0-9]+ \| [0-9]+ \| [0-9]+ \| 512 \| [0-9]+ \| [0-9]+ \|$' \
            "$out/linux/report.md"; then
        pass "Linux beside patchbay (quick): every boot, every benchmark, the report's section"
    else
        fail "Linux beside patchbay (quick)"
        tail -n 5 "$out/linux.err"
    fi
    if ! PATCHBAY_QEMU_EXTRA="-m 24" "$bench" --linux --icount --quick --out "$out/linux-bad" \
        2>"$out/linux-bad.err" && [ ! -e "$out/linux-bad/linux.json" ] &&
        grep -q "^bench: --linux failed; linux.json not written$" "$out/linux-bad.err"; then
        pass "Linux boots that fail leave no linux.json"
    else
        fail "Linux boots that fail leave no linux.json"
        tail -n 5 "$out/linux-bad.err"
    fi
else
    echo "SKIP Linux beside patchbay: no cached kernel ($build/domu/vmlinux); make bench-linux fetches it"
fi

summary
