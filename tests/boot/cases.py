"""Boot test cases, run by tests/boot/run_boot_tests.py.

Each case is a dict:
  name       unique name; the console log goes to build/test-logs/NAME.log
  args       tools/run options, e.g. ['--iso'] or ['--mem', '32']   (default [])
  cmdline    kernel command line                                    (default '')
  expect     regexes that must each match somewhere in the console  (default [])
  reject     regexes that must not match anywhere in the console    (default [])
  last_line  regex the last non-empty console line must match       (optional)
  status     tools/run's exit status: an int (0 = clean kernel exit), or
             'fail' = a kernel-reported failure (1..100, never a time-out
             or a crash without a kernel exit), or 'failed' = a failure
             with a verdict line, the kernel's or the one tools/run writes
             when Xen or the loader ended the run (1..100, never a
             time-out or 101)                                       (default 0)
  timeout    seconds before tools/run kills QEMU                    (default 60)
  check      a function given the console text that returns None, or a
             string saying what is wrong: for what a regex cannot say,
             such as a ratio of two numbers in a line          (default None)
  verdicts   how many verdict lines (^patchbay: PASS|FAIL) the console
             holds: 0 when tools/run refuses to start               (default 1)
  stderr     regexes that must each match in tools/run's stderr    (default [])
  image      'pv', the image run_boot_tests is given, 'nopv', the
             PARAVIRT=n build beside it (its nopv/ sibling), or 'debug',
             the DEBUG=1 build (its debug/ sibling)               (default 'pv')

Regexes are searched with re.MULTILINE in the console text after carriage
returns and terminal escape sequences are removed.
"""

import os
import re
import sys

from write_barrier_model import summary_regex

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from pbtools.bench import contended as bench_contended  # noqa: E402
from pbtools.run import lifecycle as run_lifecycle  # noqa: E402
from pbtools import result_lines  # noqa: E402

PASS = r"^patchbay: PASS$"
FAIL = r"^patchbay: FAIL "
# A clean run shows no fault and no failure anywhere.
CLEAN = [r"trap: #", r"patchbay: FAIL", r"panic: ",
         # Under Xen, an event whose handler is another vCPU's (xen/events.c).
         r"^xen: event on port \d+, bound to vCPU \d+, reached vCPU \d+: refused$"]
# An option the kernel cannot honour ends the run before anything else
# runs: the verdict is the one problem's line, up to its parenthesis, or
# the count of problems.
CMDLINE_FAIL = r"^patchbay: FAIL cmdline: "
NOT_RUN = [r"trap: #", r"panic: ", r"^fault: committing", PASS]
MEM = r"^mem: \d+ MiB usable in \d+ ranges, \d+ frames free"

# The time self-test (kernel/selftest_time.c) runs on every platform; it
# panics on a failure, so these only check that it ran to the end, and
# which reference clock each platform's rate was checked against (the
# ratio's bounds are the kernel's to enforce).
RATE_CHECKED = r": clock/reference = \d+\.\d{3}( \(after a retry\))?$"
TIME_SELFTEST = [
    # 100000 reads, fewer where a read traps (the clock moves 20 ms first).
    r"^time: monotonic over (100000|[1-9]\d{3,4}) reads$",
    r"^timer: 10 ticks in \d+\.\d ms \(interval min \d+\.\d / mean \d+\.\d / max \d+\.\d ms\)$",
    r"^timer: rate checked against the clock: no early delivery( \(after a retry\))?$",
    r"^irq: pending timer delivered on irq_enable",
    r"^irq: pending timer delivered on irq_restore",
]
# Natively the rates are measured at boot; their values are not checked.
# Passes a busy host disturbed are left out, and said (arch/x86/native/time.c).
DISTURBED = r"( \(\d+ disturbed pass(es)? left out\))?"
NATIVE_TIME = (r"^time: TSC \d+\.\d MHz, APIC timer \d+\.\d MHz bus, calibrated against the PIT"
               + DISTURBED + "$")
# QEMU's pc machine has a PM timer, which both native doors find in the FADT.
NATIVE_RATE = (r"^time: rate checked against the ACPI PM timer \(port 0x[0-9a-f]+, (24|32) bits\)"
               + RATE_CHECKED)
# Under Xen, the TSC at the rate Xen states: the host's for a PV dom0, the
# guest's for a domU, whose rdtsc Xen emulates under TCG.
XEN_RATE = (r"^time: rate checked against the TSC at the \d+\.\d{3} MHz Xen states"
            r"( for the host| \(rdtsc emulated by Xen\))" + RATE_CHECKED)

# Under Xen, the event self-test (xen/events_test.c): an event sent to a
# masked port reaches its handler once the port is unmasked, on each vCPU
# by itself and, with several, for each other vCPU by vCPU 0. It panics on
# a failure; evtchn_unmasked(cpus) says that it ran on all of them.
EVTCHN_UNMASKED = r"^xen: events sent to masked ports delivered on unmask: by their own vCPU "


def evtchn_unmasked(cpus=None):
    if cpus is None:
        return EVTCHN_UNMASKED + r"\(0x[0-9a-f]+\)"
    return EVTCHN_UNMASKED + r"\(0x%x\)%s$" % ((1 << cpus) - 1,
                                              ", by vCPU 0 for the others" if cpus > 1 else "")


NATIVE_TIMEOUT = 60
ISO_TIMEOUT = 120
XEN_TIMEOUT = 120


# Every site patched, none kept or rejected; and the page-table walk's verdict.
ALL_PATCHED = r"^pv: (native|xen) ops, patched (\d+)/\2 sites \((?!.*(kept|rejected))"
NO_WX = r"^mm: W\^X check: 0 pages writable and executable$"


def clean_boot(name, args=(), method="native/pvh", expect=(), timeout=NATIVE_TIMEOUT):
    """A boot that must reach a clean end, past the time self-test."""
    platform = ([NATIVE_TIME, NATIVE_RATE] if method.startswith(("native/", "kvm/"))
                else [XEN_RATE, evtchn_unmasked()])
    return dict(name=name, args=list(args), cmdline="",
                expect=[r"^patchbay: booting via " + method + "$", MEM, ALL_PATCHED, NO_WX]
                + TIME_SELFTEST + platform + list(expect),
                reject=CLEAN, last_line=PASS, status=0, timeout=timeout)


# Backtrace frames are named from the kernel's own symbol table (tools/ksyms).
NAMED_FRAME = r"^  #1  [0-9a-f]{16} [A-Za-z_][\w.]*\+0x[0-9a-f]+$"


def fault(kind, trap, extra=()):
    """fault=KIND must give a register dump for TRAP and a failure status."""
    return dict(name="fault-" + kind, cmdline="fault=" + kind,
                expect=[r"^trap: " + trap, r"\brip\b", r"\brsp\b", r"^backtrace:",
                        NAMED_FRAME] + list(extra),
                reject=[PASS, r"did not trap"],
                last_line=r"^patchbay: FAIL trap " + trap + "$",
                status="fail", timeout=NATIVE_TIMEOUT)


def xen_fault(kind, trap, extra=()):
    """fault=KIND as dom0 under Xen: the same dump through Xen's trap table."""
    case = fault(kind, trap, extra)
    case.update(name="xen-fault-" + kind, args=["--xen"], timeout=XEN_TIMEOUT)
    case["expect"] = [r"^patchbay: booting via xen-pv$"] + case["expect"]
    return case


CASES = [
    clean_boot("pvh-boot"),
    clean_boot("iso-boot", ["--iso"], method="native/multiboot2", timeout=ISO_TIMEOUT),
    # The memory map is read: the usable total follows QEMU's -m.
    clean_boot("mem-32", ["--mem", "32"], expect=[r"^mem: (1\d|2\d|3[0-2]) MiB usable"]),
    clean_boot("mem-512", ["--mem", "512"], expect=[r"^mem: (49\d|50\d|51[0-2]) MiB usable"]),
    clean_boot("mem-4096", ["--mem", "4096"], expect=[r"^mem: (39\d\d|40\d\d) MiB usable"]),
    clean_boot("cpu-qemu64", ["--cpu", "qemu64"]),
    clean_boot("cpu-max", ["--cpu", "max"]),
    # -icount: the TSC and the APIC timer advance with instructions, and an
    # idle guest's clock jumps to its next timer.
    clean_boot("time-icount", ["--icount"]),
    clean_boot("time-icount-qemu64", ["--icount", "--cpu", "qemu64"]),
    clean_boot("time-icount-iso", ["--icount", "--iso"], method="native/multiboot2",
               timeout=ISO_TIMEOUT),
    # The rate check's control (arch/x86/native/time.c): a clock 4 times
    # too fast whose ticks still come on time by its own count. Only the
    # second clock can tell, and the run must fail.
    dict(name="time-miscalibrated", cmdline="time.miscalibrate=on",
         expect=[r"^time: TSC \d+\.\d MHz, APIC timer \d+\.\d MHz bus, calibrated against the PIT as "
                 r"if its 10 ms were 40 \(time.miscalibrate=on\)" + DISTURBED + "$",
                 r"^time: rate wrong against the ACPI PM timer \(port 0x[0-9a-f]+, (24|32) bits\): "
                 r"clock/reference = \d+\.\d{3} \(the clock counted ",
                 r"^panic: time: the clock runs at \d+\.\d{3} times the rate of the ACPI PM timer"],
         reject=[PASS, r"^time: rate checked", r"^timer: "],
         last_line=r"^patchbay: FAIL panic$", status="fail", timeout=NATIVE_TIMEOUT),

    fault("pf", "#PF", extra=[r"\bcr2\b"]),
    fault("ud", "#UD"),
    fault("gp", "#GP"),
    fault("de", "#DE"),
    # fault=stack: see the fault matrix below.
    # An unpatched cli is legal in ring 0: the run says so and fails, its
    # verdict saying that was expected.
    dict(name="fault-cli", cmdline="fault=cli",
         expect=[r"^fault: cli ran in ring 0 without a trap$"],
         reject=[PASS, r"^trap: "],
         last_line=r"^patchbay: FAIL the deliberate fault did not trap, as expected: cli is legal "
                   r"in ring 0; only a Xen PV kernel, in ring 3, traps$",
         status="fail", timeout=NATIVE_TIMEOUT),

    dict(name="bad-cmdline", cmdline="bogus=1 fault=banana",
         expect=[r"^cmdline: unknown option 'bogus' \(known: ",
                 r"^cmdline: bad value 'banana' for fault \(accepted: .*\)$"],
         reject=NOT_RUN, last_line=CMDLINE_FAIL + r"2 problems, each above$", status="cmdline"),
    dict(name="bad-value", cmdline="fault=banana",
         expect=[r"^cmdline: bad value 'banana' for fault \(accepted: .*\)$"],
         reject=NOT_RUN, last_line=CMDLINE_FAIL + r"bad value 'banana' for fault$",
         status="cmdline"),
    # The multiboot2 command line (GRUB) is read too.
    dict(name="iso-cmdline", args=["--iso"], cmdline="bogus=2",
         expect=[r"^patchbay: booting via native/multiboot2$",
                 r"^cmdline: unknown option 'bogus' \(known: "],
         reject=NOT_RUN, last_line=CMDLINE_FAIL + r"unknown option 'bogus'$", status="cmdline",
         timeout=ISO_TIMEOUT),

    # The same image as a 64-bit PV dom0 of Xen 4.17 (64 MiB unless told).
    clean_boot("xen-boot", ["--xen"], method="xen-pv", timeout=XEN_TIMEOUT,
               expect=[r"^xen: Xen 4\.17\b.*start_info magic \"xen-3\.0-x86_64",
                       r"^xen: hypercalls inline: [1-9]\d* sites rewritten to mov \$nr, %eax; "
                       r"syscall$",
                       r"^mem: 6[0-4] MiB usable in 1 ranges",
                       r"^mm: W\^X check: 0 pages writable and executable$",
                       r"^timer: \d+ ticks in"]),
    # More RAM than Xen's bootstrap tables map, across a 1 GiB boundary:
    # the kernel map builds the rest.
    clean_boot("xen-dom0-mem-1200", ["--xen", "--mem", "2048", "--dom0-mem", "1200"],
               method="xen-pv", timeout=XEN_TIMEOUT,
               expect=[r"^mem: 1200 MiB usable in 1 ranges",
                       r"^mm: W\^X check: 0 pages writable and executable$"]),
    # Page 0 is unmapped under Xen too; the #PF address comes from vcpu_info.
    xen_fault("pf", "#PF", extra=[r"^  cr2 0000000000000008 \(write, not present, data\)$"]),
    xen_fault("ud", "#UD"),
    xen_fault("gp", "#GP"),
    # A PV kernel runs in ring 3, where cli is privileged. The cli is in
    # commit(), which the compiler may inline into fault_inject_run().
    xen_fault("cli", "#GP", extra=[r"^  #0  [0-9a-f]{16} (commit|fault_inject_run)\+0x"]),
    # A PV guest calibrates nothing (Xen's clock, Xen's timer): the time
    # self-test's control does not apply, and the run says so.
    dict(name="xen-time-miscalibrate", args=["--xen"], cmdline="time.miscalibrate=on",
         expect=[r"^cmdline: option time.miscalibrate does not apply to this platform$"],
         reject=NOT_RUN,
         last_line=CMDLINE_FAIL + r"option time.miscalibrate does not apply to this platform$",
         status="cmdline", timeout=XEN_TIMEOUT),
    dict(name="xen-bad-cmdline", args=["--xen"],
         cmdline="bogus=3 fault=banana xen.hypercall=sysenter xen.pin=maybe",
         expect=[r"^patchbay: booting via xen-pv$",
                 r"^cmdline: \"bogus=3 fault=banana xen.hypercall=sysenter xen.pin=maybe\"$",
                 r"^cmdline: unknown option 'bogus' \(known: ",
                 r"^cmdline: bad value 'banana' for fault \(accepted: .*\)",
                 r"^cmdline: bad value 'sysenter' for xen.hypercall \(accepted: inline\|page\)$",
                 r"^cmdline: bad value 'maybe' for xen.pin \(accepted: .*\)$"],
         reject=NOT_RUN + [r"^xen: hypercalls "],
         last_line=CMDLINE_FAIL + r"4 problems, each above$", status="cmdline",
         timeout=XEN_TIMEOUT),
    # Every hypercall site rewritten, as pv.trace=1 shows it: the NOP and
    # the call into the page's stub become mov $nr, %eax; syscall. Or,
    # with xen.hypercall=page, left calling the stubs.
    dict(name="xen-hypercall-trace", args=["--xen"], cmdline="pv.trace=1",
         expect=[r"^xen: hypercall site [0-9a-f]+ xen_version: 66 90 e8( [0-9a-f]{2}){4} -> "
                 r"b8 11 00 00 00 0f 05$",
                 r"^xen: hypercall site [0-9a-f]+ mmu_update: 66 90 e8( [0-9a-f]{2}){4} -> "
                 r"b8 01 00 00 00 0f 05$"],
         reject=CLEAN, last_line=PASS, status=0, timeout=XEN_TIMEOUT),
    dict(name="xen-hypercall-page", args=["--xen"], cmdline="xen.hypercall=page pv.trace=1",
         expect=[r"^xen: hypercalls through the hypercall page: [1-9]\d* sites call its stubs$"],
         reject=CLEAN + [r"^xen: hypercall site"], last_line=PASS, status=0,
         timeout=XEN_TIMEOUT),
]

# The scheduler's self-test (kernel/selftest_sched.c) runs in every clean boot
# above; these cases check its lines, under the variants that change the
# paths it takes: unpatched pv call sites, inline locks and short slices,
# another CPU model, instruction-counted time, little memory, and Xen.
SCHED_SELFTEST = [
    r"^sched: round robin, \d+ ms slices, [a-z ]+ spinlocks$",
    r"^sched: 24 thread stacks of 16 KiB, each above an unmapped guard page$",
    r"^sched: \d spinning threads all ran \(a=[1-9]\d* b=[1-9]\d*, [1-9]\d* preemptions\)$",
    r"^sched: work per CPU: cpu0=[1-9]\d*( cpu\d=[1-9]\d*)*$",
    r"^sched: contended [a-z ]+ lock kept 16 increments exact",
    # The checksum of messages 0..999999 in order, worked out independently.
    r"^sched: channel moved 1000000 messages, checksum 0x9ba02fd4e6cbb640 ",
    r"^sched: sleep woke \d+\.\d\d ms after its deadline",
]
OPTION_PROBLEM = r"^cmdline: (unknown option|bad value)"
UNPATCHED = r"^pv: .*patching off"


# The live-patching test's lines (kernel/live_patch_test.c): with several CPUs,
# its first rewrite step by step, then its summary.
REPATCH_TRACE = [r"^pv: live patch 0x[0-9a-f]+ %s(?: [0-9a-f]{2}){9}$" % step
                 for step in ("before", "int3  ", "tail  ", "head  ")]

# With a second CPU, the W^X walks a thread pinned there made meanwhile.
REPATCH_WX = (r"^pv: repatch test: [1-9]\d* W\^X walks on cpu 1 while it rewrote: 0 pages "
              r"writable and executable$")


def repatch_expect(cpus, rewrites, forms):
    runners = max(cpus - 1, 1)
    done = (r"^pv: repatch test: %d rewrites of restore_fl \(\d+ site writes, %d forms\) and %d "
            r"static call retargets while %d threads on %d CPUs ran them [1-9]\d* times; \d+ met "
            r"an int3$" % (rewrites + 1, forms, rewrites + 1, runners, cpus))
    return (REPATCH_TRACE + [REPATCH_WX] if cpus > 1 else []) + [done]


def sched_boot(name, args=(), cmdline="", method="native/pvh", expect=(),
               timeout=NATIVE_TIMEOUT):
    """A clean boot whose scheduler self-test printed all its lines."""
    return dict(name=name, args=list(args), cmdline=cmdline,
                expect=[r"^patchbay: booting via " + method + "$"] + SCHED_SELFTEST
                + list(expect),
                reject=CLEAN + [OPTION_PROBLEM], last_line=PASS, status=0, timeout=timeout)


CASES += [
    sched_boot("sched"),
    sched_boot("sched-unpatched", cmdline="pv.patch=off", expect=[UNPATCHED]),
    sched_boot("sched-inline-locks", cmdline="pv.spinlock=off sched.slice_ms=3",
               expect=[r"^sched: round robin, 3 ms slices, inline ticket spinlocks$"]),
    sched_boot("sched-qemu64", ["--cpu", "qemu64"]),
    # With one CPU the live patcher writes each site in one copy, between
    # the runner's turns (the SMP boots below run it on several).
    sched_boot("sched-icount", ["--icount"], "pv.repatch_test=20",
               expect=repatch_expect(1, 20, 3)),
    sched_boot("sched-mem-32", ["--mem", "32"]),
    # Xen's pv spinlock is the queued lock; the self-test's lock, the one
    # whose holder may be preempted, never queues, so never blocks.
    sched_boot("sched-xen", ["--xen"], method="xen-pv", timeout=XEN_TIMEOUT,
               expect=[r"^sched: round robin, 10 ms slices, xen pv qspinlock spinlocks$",
                       r"^sched: contended xen pv qspinlock lock kept 16 increments exact "
                       r"\(waiters blocked 0 times\)$"]),
    # xen.lock=ticket: the ticket lock, whose waiter blocks in SCHEDOP_poll.
    sched_boot("sched-xen-ticket-lock", ["--xen"], cmdline="xen.lock=ticket", method="xen-pv",
               timeout=XEN_TIMEOUT,
               expect=[r"^sched: round robin, 10 ms slices, xen blocking ticket spinlocks$",
                       r"^sched: contended xen blocking ticket lock kept 16 increments exact "
                       r"\(waiters blocked [1-9]\d* times\)$"]),
    # The choice of Xen's lock means nothing natively.
    dict(name="xen-lock-native", cmdline="xen.lock=ticket",
         expect=[r"^cmdline: option xen\.lock does not apply to this platform$"], reject=NOT_RUN,
         last_line=CMDLINE_FAIL + r"option xen\.lock does not apply to this platform$",
         status="cmdline"),
    sched_boot("sched-xen-unpatched", ["--xen"], cmdline="pv.patch=off", method="xen-pv",
               expect=[UNPATCHED], timeout=XEN_TIMEOUT),
]

# bench=: the benchmarks it names run, and one that needs another platform
# says it was skipped. tools/bench runs every benchmark in every
# configuration (tests/bench/test_bench.sh).
BENCH_QUICK = "bench.iters=10 bench.reps=3"
CASES += [
    dict(name="bench-skips-elsewhere", cmdline="bench=save_fl,xen_hypercall " + BENCH_QUICK,
         expect=[r"^bench: name=save_fl config=native-patched iters=10 reps=3 "
                 r"min=\d+\.\d\d median=\d+\.\d\d unit=tsc_ticks$",
                 r"^bench: name=xen_hypercall config=native-patched skipped=\"runs on xen only\"$"],
         reject=CLEAN + [r"^bench: name=\S+ .*failed="], last_line=PASS, status=0),
]


# A command line the kernel cannot honour ends the run before anything
# runs, with every problem on a line of its own and EXIT_CMDLINE (status
# "cmdline"): a bad value of each kind of option (enum: bad-value above;
# an unknown key: bad-cmdline; one for another platform:
# pvh-option-natively; a line cut short: pvh-cmdline-4127), a benchmark
# list naming nothing or only another platform's benchmarks, options at
# odds with each other or with the platform.
BENCH_KNOWN = r"\(known: all, irq, [a-z0-9_, ]*\bsave_fl\b[a-z0-9_, ]*\)$"


def refused_option(name, cmdline, problems, verdict):
    """cmdline's problems, each a line, and the verdict's reason."""
    return dict(name=name, cmdline=cmdline, expect=list(problems), reject=NOT_RUN,
                last_line=CMDLINE_FAIL + verdict + "$", status="cmdline")


BAD_BOOL = r"^cmdline: bad value 'maybe' for pv.trace \(accepted: on\|off\)$"
BAD_UINT = r"^cmdline: bad value '0' for wl.pages \(accepted: 1\.\.\d+\)$"
BAD_NAME = r"^cmdline: unknown name 'nonexistent' in bench " + BENCH_KNOWN
FAULT_CPU_ALONE = r"^cmdline: fault.cpu= places the fault fault= names, and it names none$"
MUTANT_ALONE = (r"^cmdline: lifecycle.mutant= breaks the resumes lifecycle= asks for, and it "
                r"asks for none$")
CASES += [
    refused_option("option-bool", "pv.trace=maybe", [BAD_BOOL], r"bad value 'maybe' for pv.trace"),
    refused_option("option-uint-out-of-range", "wl=on wl.pages=0", [BAD_UINT],
                   r"bad value '0' for wl.pages"),
    # K, M and G belong to sizes (wl.pages): a time given as 1k is not 1024 s.
    refused_option("option-suffix-not-a-size", "lifecycle.timeout=1k",
                   [r"^cmdline: bad value '1k' for lifecycle.timeout \(accepted: 1\.\.86400\)$"],
                   r"bad value '1k' for lifecycle.timeout"),
    refused_option("bench-bad-name", "bench=nonexistent,save_fl " + BENCH_QUICK, [BAD_NAME],
                   r"unknown name 'nonexistent' in bench"),
    refused_option("bench-only-elsewhere", "bench=xen_hypercall,xen " + BENCH_QUICK,
                   [r"^cmdline: bench=xen_hypercall,xen selects no benchmark that runs on "
                    r"native$"],
                   r"bench=xen_hypercall,xen selects no benchmark that runs on native"),
    refused_option("fault-in-workload-without-it", "fault=wl-handler",
                   [r"^cmdline: fault=wl-handler is a fault inside the workload: it needs wl=on$"],
                   r"fault=wl-handler is a fault inside the workload: it needs wl=on"),
    refused_option("fault-cpu-cannot-place", "fault=canary fault.cpu=0",
                   [r"^cmdline: fault.cpu= cannot place a canary fault, only "
                    r"pf\|ud\|gp\|de\|stack\|guard\|cli$"],
                   r"fault.cpu= cannot place a canary fault, only pf\|ud\|gp\|de\|stack\|guard\|cli"),
    refused_option("lifecycle-stale-frame-natively", "lifecycle=1 lifecycle.mutant=stale-frame",
                   [r"^cmdline: lifecycle.mutant=stale-frame needs a PV guest: no other keeps a "
                    r"machine frame$"],
                   r"lifecycle.mutant=stale-frame needs a PV guest: no other keeps a machine "
                   r"frame"),
    # Every kind at once: each problem on a line of its own, the checks
    # between options last; the verdict counts them.
    refused_option("option-every-kind",
                   "pv.trace=maybe wl.pages=0 bench=nonexistent wl.threads xen.mmu=trap "
                   "fault=banana bogus fault.cpu=0 lifecycle.mutant=deaf",
                   [BAD_BOOL, BAD_UINT, BAD_NAME,
                    r"^cmdline: option wl.threads needs a value \(accepted: 1\.\.\d+\)$",
                    r"^cmdline: option xen.mmu does not apply to this platform$",
                    r"^cmdline: bad value 'banana' for fault \(accepted: none\|pf\|",
                    r"^cmdline: unknown option 'bogus' \(known: ", FAULT_CPU_ALONE, MUTANT_ALONE],
                   r"9 problems, each above"),
]

# The pte story (docs/mm.md): the write-barrier workload (wl=on) and the
# dirty-bit test (mm.dirtytest=1), natively and in each xen.mmu mode. The
# workload's summary must match the Python model of it exactly, on every
# platform and in every mode.
MMSTATS = (r"^mmstats: ptes=(\d+) hypercalls=(\d+) multicalls=\d+ mc_entries_mean=\d+\.\d\d "
           r"mc_entries_max=\d+ traps_emulated=(\d+) faults=(\d+) tlb_flushes=\d+ shootdowns=0 "
           r"shootdown_ipis=0 flush_hypercalls=0$")
DIRTY_KEPT = r"^mm: dirty bit kept across mprotect$"
# The whole-table swap's window (mm/table_swap.h), forced on every platform.
SWAP_MERGED = r"^mm: a write between a table's copy and its swap stayed dirty$"
TABLE_BY_ENTRY = r"^mm: dirty bit kept across mprotect of a whole table \(entry by entry\)$"
TABLE_SWAPPED = r"^mm: dirty bit kept across mprotect of a whole table \(swapped\)$"
START_CLEARED = r"^mm: start cleared the pte; nothing could dirty it before the commit$"
START_LIVE = r"^mm: start left the pte live; a write before the commit stayed dirty$"


def batched_reprotect(text):
    """Under xen.mmu=batch, fewer than 1 hypercall per 16 ptes in the
    whole-heap mprotect. The mmstats line counts the cycles: each fault
    unprotects one page with exactly one hypercall, which no batching can
    avoid (the faulting write retries at once), so the rest of the ptes and
    hypercalls are the re-protects'."""
    m = re.search(MMSTATS, text, re.MULTILINE)
    if not m:
        return "no mmstats line"
    ptes, hypercalls, _, faults = (int(g) for g in m.groups())
    if hypercalls < faults or ptes <= faults:
        return "mmstats: %d hypercalls, %d ptes for %d faults" % (hypercalls, ptes, faults)
    ratio = (hypercalls - faults) / (ptes - faults)
    if ratio >= 1 / 16:
        return "re-protect took %.4f hypercalls per pte, not below 1/16" % ratio
    return None


def mm_boot(name, args=(), cmdline="", method="native/pvh", expect=(), check=None,
            timeout=NATIVE_TIMEOUT):
    """wl=on mm.dirtytest=1 must pass its own checks and match the model."""
    return dict(name=name, args=list(args), cmdline=("wl=on mm.dirtytest=1 " + cmdline).strip(),
                expect=[r"^patchbay: booting via " + method + "$", DIRTY_KEPT, SWAP_MERGED,
                        MMSTATS, summary_regex()] + list(expect),
                reject=CLEAN + [OPTION_PROBLEM], last_line=PASS, status=0, check=check,
                timeout=timeout)


def xen_mm_boot(mode, suffix="", cmdline="", expect=(), check=None):
    return mm_boot("mm-xen-" + mode + suffix, ["--xen"], "xen.mmu=" + mode + " " + cmdline,
                   "xen-pv", [r"^xen: pte updates by %s: " % mode] + list(expect), check,
                   XEN_TIMEOUT)


NO_HYPERCALLS = r"^mmstats: .* hypercalls=0 multicalls=0 .* traps_emulated=0 "
CASES += [
    mm_boot("mm-native", expect=[START_CLEARED, TABLE_BY_ENTRY, NO_HYPERCALLS]),
    mm_boot("mm-native-unpatched", cmdline="pv.patch=off",
            expect=[UNPATCHED, START_CLEARED, NO_HYPERCALLS]),
    # Another partition of the heap: 3 mutators, odd sizes, another seed.
    dict(name="mm-native-3-mutators", cmdline="wl=on wl.pages=500 wl.threads=3 wl.cycles=3 "
         "wl.seed=7", expect=[summary_regex(500, 3, 3, 7)], reject=CLEAN + [OPTION_PROBLEM],
         last_line=PASS, status=0),
    # Every pte write is a trap Xen emulates: start's xchg and the commit.
    xen_mm_boot("trap", expect=[START_CLEARED, r"A/D bits: start clears the pte$",
                                r"^mmstats: .* traps_emulated=[1-9]\d* "]),
    xen_mm_boot("hypercall", expect=[START_LIVE, r"MMU_PT_UPDATE_PRESERVE_AD$",
                                     r"^mmstats: .* multicalls=0 .* traps_emulated=0 "]),
    xen_mm_boot("batch", expect=[START_LIVE, r"MMU_PT_UPDATE_PRESERVE_AD$",
                                 r"^mmstats: .* multicalls=[1-9]\d* .* traps_emulated=0 "],
                check=batched_reprotect),
    # Each new table pinned as it is made: the same workload and results.
    xen_mm_boot("batch", "-pin", "xen.pin=on",
                expect=[r"^xen: new page tables pinned as they are made \(MMUEXT_PIN_L\*_TABLE\)$"],
                check=batched_reprotect),
    # Whole tables swapped, each new one pinned and each old one unpinned:
    # the heap's re-protect is 4 swaps. Unpinned, smp-xen-4 swaps them.
    xen_mm_boot("swap", "-pin", "xen.pin=on",
                expect=[START_LIVE, TABLE_SWAPPED, r"^xen: pte updates by swap: whole L1 tables "
                        r"swapped for a new copy, the rest queued in lazy MMU sections"],
                check=batched_reprotect),
    # Without MMU_PT_UPDATE_PRESERVE_AD start clears the pte (a trapped
    # xchg) and the commits still batch.
    xen_mm_boot("batch", "-no-preserve-ad", "xen.preserve_ad=off",
                expect=[START_CLEARED, r"start clears the pte \(xen\.preserve_ad=off\)$"],
                check=batched_reprotect),
]

# A pte update Xen must refuse (the top page table mapped writable) ends the
# run with one line naming the pte; with trapped writes it is a #PF dump.
REFUSED = r"^xen: asking Xen to map the top page table writable at "
CASES += [
    dict(name="xen-refused-update-batch", args=["--xen"],
         cmdline="xen.refused_update xen.mmu=batch",
         expect=[REFUSED, r"^panic: xen: mmu_update failed with error -\d+ for the pte at 0x"
                 r"[0-9a-f]+ \(machine address 0x[0-9a-f]+\), new value 0x[0-9a-f]+$"],
         reject=[PASS, r"Xen accepted"], last_line=r"^patchbay: FAIL panic$", status="fail",
         timeout=XEN_TIMEOUT),
    dict(name="xen-refused-update-trap", args=["--xen"],
         cmdline="xen.refused_update xen.mmu=trap",
         expect=[REFUSED, r"^trap: #PF", r"\bcr2\b"],
         reject=[PASS, r"Xen accepted"], last_line=r"^patchbay: FAIL trap #PF$", status="fail",
         timeout=XEN_TIMEOUT),
]

# Every fault point through every door ends with a dump naming the vector
# or the stack, exactly one verdict line and a failure status (never a
# time-out or 101). Under Xen a fault the kernel cannot take kills the
# domain: then Xen's register dump is the dump and tools/run the verdict.
FAULT_POINTS = [("pf", ""), ("ud", ""), ("gp", ""), ("de", ""), ("stack", ""),
                ("wl-mutator", "wl=on"), ("wl-handler", "wl=on"), ("thread-stack", ""),
                ("canary", "")]
DUMP = r"^(trap: #[A-Z]{2}\b|panic: stack overflow in \S)"
XEN_CRASH_DUMP = r"^\(XEN\) Domain \d+ \(vcpu#\d+\) crashed on cpu#\d+:$"
DOORS = [("pvh", [], NATIVE_TIMEOUT, "native/pvh", DUMP),
         ("iso", ["--iso"], ISO_TIMEOUT, "native/multiboot2", DUMP),
         ("xen", ["--xen"], XEN_TIMEOUT, "xen-pv", "(" + DUMP + "|" + XEN_CRASH_DUMP + ")"),
         ("xen-pvh", ["--xen", "--pvh"], XEN_TIMEOUT, "xen-pvh", DUMP)]
NO_LONG_MODE = r"^patchbay: FAIL this CPU has no long mode; patchbay needs x86-64$"
# How a run ends when the kernel cannot say it itself (tools/run --help).
CASES += [
    # A fault Xen cannot deliver (the guard page under the stack, with no
    # IST to switch to) kills the domain; tools/run names Xen's reason and
    # the guest RIP from the image's symbols.
    dict(name="xen-crash-verdict", args=["--xen"], cmdline="fault=guard",
         expect=[XEN_CRASH_DUMP,
                 r"^patchbay: FAIL xen: domain_crash\S* called from \S+ at "
                 r"[A-Za-z_][\w.]*\+0x[0-9a-f]+$"],
         last_line=r"^patchbay: FAIL xen: ", status=99, timeout=XEN_TIMEOUT),
    # Xen's early boot refuses a 32-bit CPU and halts: said at once.
    dict(name="xen-cpu-qemu32", args=["--xen", "--cpu", "qemu32"],
         expect=[r"^ERR: Not a 64-bit CPU!$"],
         last_line=r"^patchbay: FAIL xen: Not a 64-bit CPU$", status=98, timeout=30),
    # Xen cannot fit the image into dom0's memory and panics before dom0 runs.
    dict(name="xen-dom0-mem-1", args=["--xen", "--dom0-mem", "1"],
         expect=[r"^\(XEN\) Panic on CPU 0:$"],
         last_line=r"^patchbay: FAIL xen panic: \S", status=98, timeout=XEN_TIMEOUT),
    # GRUB cannot load the image into 4 MiB and waits for a key.
    dict(name="iso-mem-4", args=["--iso", "--mem", "4"],
         expect=[r"^error: out of memory"],
         last_line=r"^patchbay: FAIL grub: out of memory", status=98, timeout=60),
    # The 32-bit stub finds no long mode and says so in a verdict, on a
    # line of its own after whatever the loader left (GRUB ends its lines
    # "\n\r").
    dict(name="cpu-qemu32", args=["--cpu", "qemu32"], reject=[r"^patchbay: booting via "],
         last_line=NO_LONG_MODE, status="fail"),
    dict(name="iso-cpu-qemu32", args=["--iso", "--cpu", "qemu32"],
         expect=[r"^\s*Booting `patchbay'$"], reject=[r"^patchbay: booting via "],
         last_line=NO_LONG_MODE, status="fail", timeout=ISO_TIMEOUT),
]

# The command line each door delivers whole (tools/run --help): a longer
# one, or a byte GRUB would change, is refused before QEMU starts.
def refused(name, args, cmdline, message):
    return dict(name=name, args=args, cmdline=cmdline, verdicts=0, status=2,
                stderr=[r"^run: " + message + "$"], timeout=30)


def long_line(n):
    return "bogus=" + "a" * (n - 6)


# Bytes a shell or GRUB would treat specially: runs of spaces, leading and
# trailing ones, GRUB's and the shell's metacharacters, a tab, 0x1c..0x1f
# (which Python's str.split takes for spaces), a newline, UTF-8. The kernel
# echoes control bytes and non-ASCII as \xHH.
ODD_PRINTABLE = "  a  b=$x;{c}#d`e`|&<>()[]~!?*%^ "
ODD_LINE = ODD_PRINTABLE + "\u00e9\t\x1c\x1f\nz  "


def odd_echo(printable=ODD_PRINTABLE):
    return (r'^cmdline: "' + re.escape(printable)
            + r"\\xc3\\xa9\\x09\\x1c\\x1f\\x0az  " + r'"$')


ODD_ECHO = odd_echo()
# A line longer than the kernel reads is a problem of its own: what it
# asked for past the cut is lost.
CUT_SHORT = r"^cmdline: the line fills the 1023 bytes read: anything past them is lost$"
CASES += [
    dict(name="pvh-cmdline-4127", cmdline=long_line(4127),
         expect=[r'^cmdline: "bogus=a{1017}" \(truncated\)$', CUT_SHORT],
         last_line=CMDLINE_FAIL + r"2 problems, each above$", status="cmdline"),
    refused("pvh-cmdline-4128", [], long_line(4128),
            r"the kernel command line is 4128 bytes; the PVH door delivers at most 4127"),
    refused("iso-cmdline-4128", ["--iso"], long_line(4128),
            r"the kernel command line is 4128 bytes; the ISO door delivers at most 4127"),
    # Xen keeps 1023 bytes of dom0's line; the kernel says it was cut, and
    # refuses it.
    dict(name="xen-cmdline-4128", args=["--xen"], cmdline=long_line(4128),
         expect=[r'^cmdline: "bogus=a{1017}" \(truncated\)$', CUT_SHORT],
         last_line=CMDLINE_FAIL + r"2 problems, each above$", status="cmdline",
         timeout=XEN_TIMEOUT),
    refused("xen-cmdline-65537", ["--xen"], long_line(65537),
            r"the kernel command line is 65537 bytes; the Xen door delivers at most 65536"),
    dict(name="pvh-cmdline-verbatim", cmdline=ODD_LINE, expect=[ODD_ECHO],
         last_line=CMDLINE_FAIL, status="cmdline"),
    dict(name="iso-cmdline-verbatim", args=["--iso"], cmdline=ODD_LINE, expect=[ODD_ECHO],
         last_line=CMDLINE_FAIL, status="cmdline", timeout=ISO_TIMEOUT),
    refused("iso-cmdline-quote", ["--iso"], "a'b",
            r"""the ISO door \(GRUB\) cannot deliver "'" in the kernel command line"""),
    # Xen drops the spaces between the image name and dom0's line.
    dict(name="xen-cmdline-verbatim", args=["--xen"], cmdline=ODD_LINE.lstrip(" "),
         expect=[odd_echo(ODD_PRINTABLE.lstrip(" "))], last_line=CMDLINE_FAIL, status="cmdline",
         timeout=XEN_TIMEOUT),
    refused("xen-cmdline-leading-space", ["--xen"], " a",
            r"the Xen door drops the leading spaces of the kernel command line"),
]

# What the kernel says about a line: control bytes escaped, not sent to the
# terminal; an unknown key cut short, never the list of known options; a
# '/' word an option like any other (only GRUB's file name is dropped, by
# the multiboot2 entry).
CASES += [
    dict(name="cmdline-escapes-control-bytes", cmdline="\x1b[2Jfoo=1 q'u\"o",
         expect=[r'^cmdline: "\\x1b\[2Jfoo=1 q\\\'u\\"o"$',
                 r"^cmdline: unknown option '\\x1b\[2Jfoo' \(known: "],
         last_line=CMDLINE_FAIL + r"2 problems, each above$", status="cmdline"),
    dict(name="cmdline-long-key-keeps-known-list", cmdline="x" * 100 + "=1",
         expect=[r"^cmdline: unknown option 'x{61}\.\.\.' \(known: [a-z., _]*\bfault\b"
                 r"[a-z., _]*\)$"],
         last_line=CMDLINE_FAIL + r"unknown option 'x{61}\.\.\.'$", status="cmdline"),
    dict(name="cmdline-path-word-is-an-option", cmdline="/bogus fault=banana",
         expect=[r"^cmdline: unknown option '/bogus' \(known: ",
                 r"^cmdline: bad value 'banana' for fault"],
         last_line=CMDLINE_FAIL + r"2 problems, each above$", status="cmdline"),
]

# Dumps that explain: a #DF from an overflowed stack shows CR2, the guard
# page the #PF was for; a caller's frame is named by its call, not by the
# function after a noreturn call (xen_start.cold+0x0 was shown before).
CASES += [
    dict(name="guard-df-shows-cr2", cmdline="fault=guard",
         expect=[r"^trap: #DF double fault",
                 r"^  cr2 [0-9a-f]{16} \(the last page fault's address: a stack's guard page\)$"],
         reject=[PASS], last_line=r"^patchbay: FAIL trap #DF$", status="fail"),
    dict(name="xen-backtrace-names-callers", args=["--xen"], cmdline="fault=de",
         expect=[r"^  #\d+ +[0-9a-f]{16} kernel_main\+0x", r"^  #\d+ +[0-9a-f]{16} xen_start\+0x"],
         reject=[PASS, r"\.cold\+"], last_line=r"^patchbay: FAIL trap #DE$", status="fail",
         timeout=XEN_TIMEOUT),
]

# The same image as a PV domU (tools/run --domu): Xen, a Linux dom0 with
# the toolstack (tools/fetch-domu), `xl create` of the image. The domU's
# status travels through its xenstore node data/patchbay-status (a status
# from the verdict-line fallback would say so on stderr), and only the
# domU's console is shown, so the verdict is the last line.
DOMU_TIMEOUT = 120
DOMU = [r"^patchbay: booting via xen-pv$",
        r"^xen: Xen 4\.17\b.*start_info magic \"xen-3\.0-x86_64\", \d+ pages, flags 0x0$"]
CASES += [
    # A clean PV domU boot: domu-lifecycle-pv below, which also lives
    # through a save, a restore and a move.
    # Under -icount a fresh domU always reaches its time self-test before
    # Xen's next 1 s calibration, so its tsc_timestamp is below zero: the
    # clock must still move (xen/system_time.c).
    clean_boot("domu-icount", ["--domu", "--icount"], method="xen-pv", timeout=DOMU_TIMEOUT,
               expect=DOMU[1:] + [r"^timer: 10 ticks in "]),
    # The status is the native run's (EXIT_FAILURE), read from xenstore.
    dict(fault("pf", "#PF", extra=DOMU + [r"^  cr2 0000000000000008 \(write, not present, data\)$"]),
         name="domu-fault-pf", args=["--domu"], status=1,
         stderr=[r"^run: kernel failed with status 1$"], timeout=DOMU_TIMEOUT),
    # Batched pte updates in a domU (the default xen.mmu=batch): checked by
    # domu-lifecycle-pv below, whose workload runs batched.
    # Without MMU_PT_UPDATE_PRESERVE_AD start's xchg, and table_swap's
    # merge, store to a read-only L1: Xen emulates that for a domU only
    # with the writable page-table assist (dom0 gets it regardless).
    mm_boot("domu-mm-swap-no-preserve-ad", ["--domu"], "xen.mmu=swap xen.preserve_ad=off",
            "xen-pv", [START_CLEARED, TABLE_SWAPPED,
                       r"start clears the pte \(xen\.preserve_ad=off\)$"],
            batched_reprotect, DOMU_TIMEOUT),
    # xl's extra= carries every byte, leading spaces too.
    dict(name="domu-cmdline-verbatim", args=["--domu"], cmdline=ODD_LINE, expect=[ODD_ECHO],
         last_line=CMDLINE_FAIL, status="cmdline", timeout=DOMU_TIMEOUT),
    refused("domu-cmdline-65537", ["--domu"], long_line(65537),
            r"the kernel command line is 65537 bytes; the domU door delivers at most 65536"),
    # An image the domain builder refuses: the toolstack's failure, named.
    dict(name="domu-toolstack-fails", args=["--domu", "--image", "/bin/true"],
         expect=[r"^patchbay: FAIL dom0: xl create exited with status \d+: .*no loader found"],
         last_line=FAIL, status=103,
         stderr=[r"^run: dom0: xl create exited with status \d+: "], timeout=DOMU_TIMEOUT),
]

# The same image as an L2 guest of KVM (tools/run --kvm): Debian's QEMU
# with -accel kvm inside Debian's Linux, itself under QEMU TCG, whose SVM
# kvm-amd runs on. Alone, a case takes about 17 s (two CPUs: 40 s).
KVM_TIMEOUT = 240
KVM_LEAVES = r"^kvm: CPUID leaves at 0x40000000, features 0x[0-9a-f]+$"
# Each CPU's steal time, in ms; under overcommit none may be 0.
KVM_STEAL_1 = r"^kvm: steal time: cpu0 \d+\.\d{3} ms$"
KVM_STEAL_NONZERO = r"^kvm: steal time: cpu0 (?!0\.000)\d+\.\d{3} ms cpu1 (?!0\.000)\d+\.\d{3} ms$"
KVM_PV_IPI = r"^kvm: IPIs KVM_HC_SEND_IPI \(kvm.ipi=pv\)$"
KVM_RATES = (r"^time: TSC \d+\.\d MHz, APIC timer \d+\.\d MHz bus, the TSC's as kvm-clock "
             r"states it, the APIC timer's against kvm-clock$")
# The TLB self-test's shootdowns of vCPU 1, flagged and by IPI.
KVM_TLB = r"^kvm: TLB shootdowns: (%s) vCPUs flagged \(PV TLB flush\), (%s) sent an IPI$"
KVM_TLB_SHOOTDOWNS = 200
KVM_TLB_SELFTEST = r"^kvm: TLB self-test: 200 shootdowns of a spinning CPU 1, \d+\.\d{3} us each$"
# PV sched yield: how a shootdown waits for a preempted target, and the
# yields the boot made.
KVM_YIELD = r"^kvm: waits for a preempted vCPU %s$"
KVM_YIELDS = r"^kvm: sched yields: (%s) to preempted vCPUs \(PV sched yield\)$"


def kvm_tlb_all_counted(console):
    """Each of the self-test's shootdowns reached vCPU 1 one way or the other."""
    m = re.search(KVM_TLB % (r"\d+", r"\d+"), console, re.MULTILINE)
    if not m:
        return "no TLB shootdown counts"
    if int(m.group(1)) + int(m.group(2)) != KVM_TLB_SHOOTDOWNS:
        return "%s flagged + %s by IPI is not the self-test's %d shootdowns" % (
            m.group(1), m.group(2), KVM_TLB_SHOOTDOWNS)
    return None


CASES += [
    # KVM's leaves found, the boot named kvm, kvm-clock the clock (its
    # rate checked against the PM timer), and every self-test passes.
    clean_boot("kvm", ["--kvm"], method="kvm/pvh", timeout=KVM_TIMEOUT,
               expect=[KVM_LEAVES, KVM_RATES,
                       r"^kvm: clock kvm-clock \(kvm.clock=kvmclock\), (stable across vCPUs|per vCPU)$",
                       KVM_PV_IPI, KVM_STEAL_1]),
    dict(name="kvm-steal-off", args=["--kvm"], cmdline="kvm.steal=off",
         expect=[r"^patchbay: booting via kvm/pvh$", r"^kvm: steal time off$"],
         reject=CLEAN, last_line=PASS, timeout=KVM_TIMEOUT),
    # Two vCPUs on one CPU of L1: each waits while the other runs, and
    # KVM accounts it as the waiter's steal (one vCPU alone on L1's CPU
    # saw about 0.1 s; two, over 30 s each). KVM's pv features on:
    # interrupts KVM ended itself skip the EOI write; the TLB self-test's
    # 200 shootdowns of a spinning vCPU 1, which CPU 0 finds preempted
    # whenever it runs itself, flag it instead of sending IPIs; the
    # contended lock's waiter halts and is kicked.
    dict(name="kvm-steal-overcommit", args=["--kvm", "--smp", "2", "--host-cpus", "1"],
         expect=[r"^smp: 2 CPUs running$", KVM_STEAL_NONZERO,
                 r"^kvm: EOIs by PV EOI \(kvm.eoi=on\)$",
                 r"^kvm: spinlocks kvm halting ticket$",
                 r"^kvm: shootdowns flag preempted vCPUs \(kvm.tlb=on\)$",
                 r"^kvm: EOIs: [1-9]\d* skipped \(PV EOI\), \d+ written$",
                 KVM_TLB_SELFTEST, KVM_TLB % (r"[1-9]\d*", r"\d+"),
                 r"^kvm: spinlock waiters halted [1-9]\d* times, kicked [1-9]\d* times$"],
         check=kvm_tlb_all_counted, reject=CLEAN, last_line=PASS, timeout=KVM_TIMEOUT),
    # IPIs through the LAPIC KVM emulates, one ICR write each: no hypercall.
    dict(name="kvm-ipi-lapic", args=["--kvm", "--smp", "2"], cmdline="kvm.ipi=lapic",
         expect=[r"^patchbay: booting via kvm/pvh$", r"^smp: 2 CPUs running$",
                 r"^kvm: IPIs through the LAPIC \(kvm.ipi=lapic\)$",
                 r"^kvm: 0 KVM_HC_SEND_IPI hypercalls$"],
         reject=CLEAN, last_line=PASS, timeout=KVM_TIMEOUT),
    # kvm-clock off: the raw TSC at the rate kvm-clock states.
    dict(clean_boot("kvm-clock-tsc", ["--kvm"], method="kvm/pvh", timeout=KVM_TIMEOUT,
                    expect=[KVM_RATES, r"^kvm: clock the TSC \(kvm.clock=tsc\)$"]),
         cmdline="kvm.clock=tsc"),
    # A fault's dump and status as natively, KVM's the backend.
    dict(fault("pf", "#PF", extra=[r"^patchbay: booting via kvm/pvh$",
                                   r"^  cr2 0000000000000008 \(write, not present, data\)$"]),
         name="kvm-fault-pf", args=["--kvm"], status=1,
         stderr=[r"^run: kernel failed with status 1$"], timeout=KVM_TIMEOUT),
    # KVM's options are KVM's: natively, one does not apply.
    dict(name="kvm-option-native", cmdline="kvm.clock=tsc",
         expect=[r"^cmdline: option kvm\.clock does not apply to this platform$"], reject=NOT_RUN,
         last_line=CMDLINE_FAIL + r"option kvm\.clock does not apply to this platform$",
         status="cmdline"),
    # PV EOI, PV TLB flush and pv spinlocks off, on two CPUs of L1:
    # every EOI written, every shootdown an IPI, the lock the native
    # ticket lock, spinning.
    dict(name="kvm-pv-off", args=["--kvm", "--smp", "2"],
         cmdline="kvm.eoi=off kvm.tlb=off kvm.lock=off",
         expect=[r"^smp: 2 CPUs running$", r"^kvm: EOIs written \(kvm.eoi=off\)$",
                 r"^kvm: spinlocks native ticket$", r"^kvm: shootdowns by IPI \(kvm.tlb=off\)$",
                 r"^kvm: EOIs: 0 skipped \(PV EOI\), [1-9]\d* written$",
                 KVM_TLB_SELFTEST, KVM_TLB % ("0", "200"),
                 r"^kvm: spinlock waiters halted 0 times, kicked 0 times$"],
         reject=CLEAN, last_line=PASS, timeout=KVM_TIMEOUT),
    # PV sched yield: four vCPUs on L1's one CPU, the self-test's 200
    # shootdowns of a spinning vCPU 1 sent as IPIs (kvm.tlb=off), which
    # CPU 0 finds preempted as it waits: it yields to it (KVM_HC_SCHED_YIELD),
    # or with kvm.yield=off spins until L1 preempts CPU 0 itself.
    dict(name="kvm-yield-overcommit", args=["--kvm", "--smp", "4", "--host-cpus", "1"],
         cmdline="kvm.tlb=off",
         expect=[r"^smp: 4 CPUs running$", KVM_YIELD % r"yield to it \(kvm.yield=on\)",
                 KVM_TLB_SELFTEST, KVM_TLB % ("0", r"[1-9]\d*"), KVM_YIELDS % r"[1-9]\d*"],
         reject=CLEAN, last_line=PASS, timeout=KVM_TIMEOUT),
    dict(name="kvm-yield-off", args=["--kvm", "--smp", "4", "--host-cpus", "1"],
         cmdline="kvm.tlb=off kvm.yield=off",
         expect=[r"^smp: 4 CPUs running$", KVM_YIELD % r"spin \(kvm.yield=off\)",
                 KVM_TLB_SELFTEST, KVM_TLB % ("0", r"[1-9]\d*"), KVM_YIELDS % "0"],
         reject=CLEAN, last_line=PASS, timeout=KVM_TIMEOUT),
    # Without SVM in L1's CPU there is no KVM: the door says so at once.
    dict(name="kvm-no-svm", args=["--kvm", "--cpu", "max,-svm"],
         expect=[r"^patchbay: FAIL kvm: L1's CPU has no SVM, so KVM cannot run"],
         reject=[r"booting via"], last_line=FAIL, status=98,
         stderr=[r"^run: kvm: L1's CPU has no SVM"], timeout=KVM_TIMEOUT),
    # Debian's Linux as the L2 guest (tools/run --linux --kvm), the
    # benchmark program its /init: it knows KVM by its CPUID leaves, and
    # its verdict's byte reaches isa-debug-exit through /dev/port (a
    # user-mode outl faults here). About 13 s alone.
    dict(name="linux-kvm", args=["--linux", "--kvm", "--image", "build/linux/linux-bench"],
         cmdline="bench.quick",
         expect=[r"^linux-bench: release=\S+ .* config=linux-kvm ",
                 r"^bench: name=null_syscall config=linux-kvm "],
         reject=[FAIL, r"cannot reach QEMU's exit port"], last_line=PASS, timeout=KVM_TIMEOUT),
    # The guest's panic is the guest's: a text file as Linux's /init, which
    # Linux cannot run, panics the L2 kernel, whose QEMU then ends without
    # a kernel exit; L1 is well, so not 103.
    dict(name="kvm-linux-guest-panics", args=["--linux", "--kvm", "--image", "README.md"],
         expect=[r"Kernel panic - not syncing: No working init found"],
         last_line=FAIL + r"kvm: the L2 QEMU ended with status 0 without a kernel exit$",
         status=101, stderr=[r"^run: kvm: the L2 QEMU ended with status 0 without a kernel exit$"],
         timeout=KVM_TIMEOUT),
]

# The domU door's disk (tools/run --domu --disk FILE): QEMU's virtio disk is
# dom0's /dev/vda, xl's hotplug script hands it to blkback as the guest's
# xvda, and dom0's /init checks the backend waits for a frontend before it
# unpauses the guest. The line comes before the guest's first.
DISK_READY = r"^domu-door: disk xvda backend ready \(blkback, InitWait\)$"
CASES += [
    dict(name="domu-disk-backend",
         args=["--domu", "--disk", "build/test-disks/domu-disk-backend.img", "--disk-new", "8M"],
         expect=[DISK_READY + r"\n(.*\n)*patchbay: booting via xen-pv$"],
         reject=CLEAN, last_line=PASS, timeout=DOMU_TIMEOUT),
    refused("domu-disk-missing", ["--domu", "--disk", "/nonexistent/patchbay.disk"], "",
            r"disk file /nonexistent/patchbay\.disk not found \(--disk FILE hands an "
            r"existing file to the guest\)"),
    # Debian's Linux as the domU (tools/run --linux --domu), with the
    # benchmark program for Linux as its /init: the door for Linux's
    # figures beside patchbay's. Told bench.domu, the program powers the
    # domain off (it has no exit port), and dom0 takes its verdict. Given a
    # disk, it loads Linux's own blkfront and reads xvda through blkback: a
    # reference frontend for the backend patchbay's blkfront meets.
    dict(name="linux-domu", args=["--linux", "--domu", "--verbose",
                                  "--image", "build/linux/linux-bench",
                                  "--disk", "build/test-disks/linux-domu.img", "--disk-new", "4M"],
         cmdline="bench.quick",
         expect=[DISK_READY, r"^linux-bench: release=\S+ .* config=linux-domu ",
                 r"^linux-bench: disk xvda \(xen-blkfront\): 8192 sectors of 512 bytes, first "
                 r"4 KiB read with O_DIRECT$",
                 r"^bench: name=null_syscall config=linux-domu ", PASS,
                 r"^dom0: domain \d+ stopped: poweroff$"],
         reject=[FAIL], timeout=DOMU_TIMEOUT),
    # The same kernel and program as a PVH domU (--pvh): the domain builder
    # unpacks the vmlinuz and finds the PVH entry note, Linux says it was
    # started as PVH (the program's config), and its blkfront reads xvda.
    # RDTSCP, which Xen traps and cannot emulate here, is hidden from it.
    # Twice the door's allowance: 26 s alone, 60 to 103 s beside other
    # boots, and once over 120 s with the host's load at 8 on 2 CPUs (the
    # guest had passed, at 42 s of its own clock).
    dict(name="linux-domu-pvh", args=["--linux", "--domu", "--pvh", "--verbose",
                                      "--image", "build/linux/linux-bench",
                                      "--disk", "build/test-disks/linux-domu-pvh.img",
                                      "--disk-new", "4M"],
         cmdline="bench.quick",
         expect=[r"^dom0: xl: xc: detail: ELF: Found PVH image$", DISK_READY,
                 r"^linux-bench: release=\S+ .* config=linux-domu-pvh ",
                 r"^linux-bench: disk xvda \(xen-blkfront\): 8192 sectors of 512 bytes, first "
                 r"4 KiB read with O_DIRECT$",
                 r"^bench: name=null_syscall config=linux-domu-pvh ", PASS,
                 r"^dom0: domain \d+ stopped: poweroff$"],
         reject=[FAIL, r"SVM Insn len emulation failed"], timeout=2 * DOMU_TIMEOUT),
]


# The same image as a PVH guest (tools/run --xen --pvh, --domu --pvh): what
# tools/run refuses, and a CPU model without what a PVH guest needs, HVM
# (SVM or VMX) with nested paging (Debian's Xen has no shadow paging). Xen
# then fails to create the PVH dom0 ("Error creating d0: -22", -95 without
# nested paging) and xl the PVH domU ("neither hap nor shadow paging
# available"), without saying why; the verdict says it from Xen's boot log.
def usage_error(name, args, message):
    return dict(name=name, args=args, verdicts=0, status=2,
                stderr=[r"^tools/run: error: " + message + "$"], timeout=30)


PVH_NOT_NATIVE = r"--pvh applies to --xen and --domu only: it makes the kernel a PVH guest of Xen"
NO_HVM = r"xen has no HVM support \(the CPU shows it no SVM or VMX\), which a PVH "
NO_HAP = (r"xen has no paging for HVM guests: no hardware-assisted paging \(the CPU shows it "
          r"no nested paging\), no shadow paging \(not built in\), which a PVH ")
CASES += [
    usage_error("pvh-option-native", ["--pvh"], PVH_NOT_NATIVE),
    usage_error("pvh-option-iso", ["--iso", "--pvh"], PVH_NOT_NATIVE),
    usage_error("pvh-option-linux", ["--linux", "--xen", "--pvh"],
                r"--linux boots natively, with --xen as a PV dom0, with --domu as a PV "
                r"or \(--pvh\) PVH domU, or with --kvm as KVM's guest, on one CPU"),
    dict(name="xen-pvh-no-hvm", args=["--xen", "--pvh", "--cpu", "max,-svm"],
         expect=[r"^\(XEN\) Error creating d0: -22$"], reject=[r"^\(XEN\) HVM: \S+ enabled$"],
         last_line=r"^patchbay: FAIL " + NO_HVM + r"dom0 needs \(xen panic: Error creating d0: "
         r"-22\)$", status=98, timeout=30),
    dict(name="xen-pvh-no-hap", args=["--xen", "--pvh", "--cpu", "qemu64"],
         expect=[r"^\(XEN\) HVM: SVM enabled$", r"^\(XEN\) Error creating d0: -95$"],
         last_line=r"^patchbay: FAIL " + NO_HAP + r"dom0 needs \(xen panic: Error creating d0: "
         r"-95\)$", status=98, timeout=30),
    dict(name="domu-pvh-no-hvm", args=["--domu", "--pvh", "--cpu", "max,-svm"],
         last_line=r"^patchbay: FAIL " + NO_HVM + r"domU needs \(dom0: xl create exited with "
         r"status \d+: libxl: error: .*: neither hap nor shadow paging available\)$",
         status=103, stderr=[r"^run: " + NO_HVM], timeout=DOMU_TIMEOUT),
]

# Several CPUs (tools/run --smp): every CPU reports in and does some of the
# spinning threads' work, and the lock and channel self-tests stay exact.
# Each also runs the stale-TLB test (mm/tlb_test.c), one the live-patching
# stress test (kernel/live_patch_test.c: restore_fl's sites and a static call
# rewritten while a thread per other CPU runs them, a torn instruction
# trapping or getting a result wrong), and the write-barrier
# workload with a mutator per CPU: a TLB shootdown missing anywhere shows
# up as a stale write or a page "written without a fault". Under --icount
# QEMU runs the CPUs in turn, deterministically, and every mutator lands
# on a CPU of its own; one case runs them on parallel host threads.
TLBTEST_PASSED = (r"^mm: tlbtest: 16 writes through a revoked translation, each on another "
                  r"CPU, all faulted \(\d+ attempts\)$")
TLBTEST_STALE = (r"^panic: cpu \d: mm: tlbtest: cpu \d wrote page 0x[0-9a-f]+ after cpu \d "
                 r"made it read-only: its TLB entry was stale$")
SHOT_BY_IPI = r"^mmstats: .* shootdowns=[1-9]\d* shootdown_ipis=[1-9]\d* flush_hypercalls=0$"
SHOT_BY_XEN = r"^mmstats: .* shootdowns=[1-9]\d* shootdown_ipis=0 flush_hypercalls=[1-9]\d*$"


def shot_by(method, cmdline):
    """How other CPUs' TLBs are shot down: by Xen under PV, and under PVH
    unless xen.shootdown=ipi; else by an IPI to each."""
    if method.startswith("xen-") and "xen.shootdown=ipi" not in cmdline:
        return SHOT_BY_XEN
    return SHOT_BY_IPI


def smp_boot(name, args, cpus, how, method="native/pvh", cmdline="", timeout=NATIVE_TIMEOUT,
             mutator_cpus=None, repatch=None, expect=()):
    work = " ".join(r"cpu%d=[1-9]\d*" % c for c in range(cpus))
    ups = [r"^smp: cpu %d up \(%s\)$" % (c, how % c) for c in range(1, cpus)]
    mask = mutator_cpus or "%x" % ((1 << cpus) - 1)
    if repatch:  # (rewrites, forms): the live-patching test too
        cmdline = ("pv.repatch_test=%d %s" % (repatch[0], cmdline)).strip()
    more = repatch_expect(cpus, *repatch) if repatch else []
    if method.startswith("xen"):
        more.append(evtchn_unmasked(cpus))
    return sched_boot(name, args, ("mm.tlbtest=on wl=on wl.threads=%d %s" % (cpus, cmdline)).strip(),
                      method, timeout=timeout,
                      expect=ups + [r"^smp: %d CPUs running$" % cpus,
                                    r"^sched: work per CPU: %s$" % work,
                                    r"^mm: W\^X check: 0 pages writable and executable$",
                                    TLBTEST_PASSED, summary_regex(threads=cpus),
                                    r"^wl: mutators ran on CPUs 0x%s of %d$" % (mask, cpus),
                                    shot_by(method, cmdline)] + more +
                      list(expect))


def tlbtest_control(name, args, method="native/pvh", timeout=NATIVE_TIMEOUT):
    """Without the shootdown the stale-TLB test must catch the stale write."""
    return dict(name=name, args=list(args), cmdline="mm.tlbtest=skip-shootdown",
                expect=[r"^patchbay: booting via " + method + "$", TLBTEST_STALE],
                reject=[PASS, TLBTEST_PASSED], last_line=r"^patchbay: FAIL panic$", status="fail",
                timeout=timeout)


NATIVE_UP = r"APIC id %d, INIT-SIPI-SIPI"
XEN_UP = r"vCPU %d, VCPUOP_initialise \+ VCPUOP_up"
CASES += [
    smp_boot("smp-pvh-2", ["--smp", "2", "--icount"], 2, NATIVE_UP),
    smp_boot("smp-pvh-4", ["--smp", "4", "--icount"], 4, NATIVE_UP),
    smp_boot("smp-iso-4", ["--iso", "--smp", "4", "--icount"], 4, NATIVE_UP,
             method="native/multiboot2"),
    # Two vCPUs of KVM, started by INIT-SIPI-SIPI through the LAPIC KVM
    # emulates, on two L1 CPUs.
    # Their wake-ups and shootdowns are KVM_HC_SEND_IPI hypercalls.
    smp_boot("kvm-smp-2-wl", ["--kvm", "--smp", "2"], 2, NATIVE_UP, "kvm/pvh",
             timeout=KVM_TIMEOUT,
             expect=[KVM_PV_IPI, r"^kvm: [1-9]\d* KVM_HC_SEND_IPI hypercalls$"]),
    smp_boot("smp-pvh-2-parallel", ["--smp", "2"], 2, NATIVE_UP, timeout=240,
             mutator_cpus="[1-3]", repatch=(1000, 3)),
    smp_boot("smp-xen-2", ["--xen", "--smp", "2", "--icount"], 2, XEN_UP, "xen-pv",
             timeout=XEN_TIMEOUT),
    # The event self-test on two vCPUs, PV and PVH, on two host threads:
    # each vCPU's own unmask and vCPU 0's for vCPU 1 deliver an event sent
    # while masked, and no event reaches a vCPU its port is not bound to.
    clean_boot("xen-events-2", ["--xen", "--smp", "2"], method="xen-pv", timeout=XEN_TIMEOUT,
               expect=[evtchn_unmasked(2)]),
    clean_boot("xen-pvh-events-2", ["--xen", "--pvh", "--smp", "2"], method="xen-pvh",
               timeout=XEN_TIMEOUT, expect=[evtchn_unmasked(2)]),
    # With whole tables swapped while other vCPUs run the mutators.
    smp_boot("smp-xen-4", ["--xen", "--smp", "4", "--icount"], 4, XEN_UP, "xen-pv",
             cmdline="xen.mmu=swap mm.dirtytest=1", timeout=XEN_TIMEOUT,
             expect=[SWAP_MERGED, TABLE_SWAPPED]),
    # More vCPUs than QEMU has CPUs: Xen time-shares them, so which vCPUs
    # a mutator lands on follows Xen's scheduling (seen: 0xf, and 0xe,
    # vCPU 0 busy elsewhere); two or more of them is what must hold.
    smp_boot("smp-xen-overcommit", ["--xen", "--smp", "4", "--host-cpus", "2", "--icount"], 4,
             XEN_UP, "xen-pv", timeout=XEN_TIMEOUT, mutator_cpus="[35679a-f]"),
    tlbtest_control("tlbtest-skip-pvh-2", ["--smp", "2", "--icount"]),
    tlbtest_control("tlbtest-skip-iso-4", ["--iso", "--smp", "4", "--icount"],
                    method="native/multiboot2"),
    tlbtest_control("tlbtest-skip-xen-2", ["--xen", "--smp", "2", "--icount"], method="xen-pv",
                    timeout=XEN_TIMEOUT),
    # With one CPU there is no other TLB to test: a clear failure.
    dict(name="tlbtest-one-cpu", args=["--icount"], cmdline="mm.tlbtest=on",
         expect=[r"^mm: tlbtest needs at least 2 CPUs running \(tools/run --smp 2\)$"],
         last_line=CMDLINE_FAIL + r"mm.tlbtest= needs a second CPU$", status="cmdline"),
    # smp.cpus= caps what starts.
    # Not under icount: its round robin keeps visiting the three CPUs that
    # never start, and the boot took 41 s instead of 1.7 s.
    sched_boot("smp-cpus-1", ["--smp", "4"], "smp.cpus=1", timeout=120,
               expect=[r"^smp: 1 CPU running$"]),
]

# lock_contended's lines, read as tools/bench reads them (tools/pbtools/result_lines.py,
# tools/pbtools/bench/contended.py): a detail line per repetition and one of their
# mean, then its result line, from two threads on two CPUs.
def contended_lines(text):
    try:
        results = [r for r in result_lines.results(text) if r["name"] == "lock_contended"]
        mean = [d for d in result_lines.details(text, "lock_contended") if "mean" in d]
    except result_lines.ResultLineError as e:
        return str(e)
    if len(results) != 1 or "min" not in results[0]:
        return "no lock_contended result line: %s" % results
    r = results[0]
    if (r["config"], r["reps"], r["unit"]) != ("native-patched+smp2", 3, "tsc_ticks"):
        return "lock_contended's result line: %s" % r
    why = bench_contended.attach(results, text)
    if why:
        return why
    if [(m["threads"], m["cpus"], m["lock"]) for m in mean] != [(2, 2, "native ticket")]:
        return "lock_contended's mean line: %s" % mean
    return None


# Every spin_lock() holder is unpreemptible (kernel/spinlock.h): with a tick
# each millisecond, ticks land while wl_cycle's mutators hold vm_lock, and
# each such preemption waits for the unlock. Were the holder preemptible,
# every waiter on its CPU would spin a whole slice per hand-over, a convoy
# that does not end (this case's time-out); channel_pingpong first, as in
# make bench ICOUNT=1's native-nopv boot, where the convoy was found.
# The DEBUG=1 build checks every this_cpu_elem() (kernel/percpu.h): the
# caller may not move to another CPU while it uses its CPU's slot. Each
# case runs many threads on several CPUs through the per-CPU state of the
# scheduler, the timer, the events and PV's mmu batches; a check that
# bit would end the boot in `panic: ... percpu: FN used this CPU's slot
# in thread T, which may move to another CPU`.
CASES += [
    dict(name="debug-percpu-" + name, image="debug", args=args,
         cmdline="wl=on wl.threads=4 sched.slice_ms=1",
         expect=[r"^wl: mutators ran on CPUs 0x3 of 2$"], reject=CLEAN, last_line=PASS,
         status=0, timeout=timeout)
    for name, args, timeout in [("native-2", ["--smp", "2"], NATIVE_TIMEOUT),
                                ("xen-pv-2", ["--xen", "--smp", "2"], XEN_TIMEOUT),
                                ("xen-pvh-2", ["--xen", "--pvh", "--smp", "2"], XEN_TIMEOUT)]
]

CASES += [
    dict(name="lock-convoy", image="nopv", args=["--icount"],
         cmdline="bench=channel_pingpong,wl_cycle sched.slice_ms=1",
         expect=[r"^bench: detail=wl_cycle faults=[1-9]\d* preemptions_deferred=[1-9]\d*$",
                 r"^bench: name=wl_cycle config=native-nopv iters=\d+ reps=\d+ "],
         reject=CLEAN, last_line=PASS, status=0, timeout=90),
]

CASES += [
    dict(name="bench-contended", args=["--smp", "2"],
         cmdline="bench=lock_contended bench.iters=500 bench.reps=3", check=contended_lines,
         reject=CLEAN, last_line=PASS, status=0),
]

# Xen's pv queued lock under 3:1 overcommit (6 vCPUs on 2 physical CPUs):
# every acquisition made, the lock named, and its waiters both blocked in
# SCHEDOP_poll and were kicked out of it by an unlock.
def qspinlock_lines(text):
    try:
        mean = [d for d in result_lines.details(text, "lock_contended") if "mean" in d]
        reps = [d for d in result_lines.details(text, "lock_contended") if "rep" in d]
    except result_lines.ResultLineError as e:
        return str(e)
    if len(mean) != 1 or len(reps) != 5:
        return "lock_contended's lines: %d mean, %d repetitions" % (len(mean), len(reps))
    m = mean[0]
    if (m["threads"], m["cpus"], m["lock"]) != (6, 6, "xen pv qspinlock"):
        return "lock_contended's mean line: %s" % m
    if any(r["acquisitions"] != 6 * 2000 for r in reps):
        return "a repetition fell short of 6 x 2000 acquisitions: %s" % reps
    if not (m["blocked"] > 0 and m["kicked"] > 0):
        return "no waiter both blocked and was kicked: blocked=%s kicked=%s" % (m["blocked"],
                                                                              m["kicked"])
    return None


CASES += [
    dict(name="xen-qspinlock-overcommit", args=["--xen", "--smp", "6", "--host-cpus", "2",
                                                "--icount"],
         cmdline="bench=lock_contended bench.iters=2000 bench.reps=5", check=qspinlock_lines,
         expect=[r"^patchbay: booting via xen-pv$"] + SCHED_SELFTEST + [
             r"^sched: round robin, 10 ms slices, xen pv qspinlock spinlocks$",
             r"^bench: name=lock_contended config=xen-pv-patched\+xen\.mmu=batch\+smp6 "],
         reject=CLEAN, last_line=PASS, status=0, timeout=240),
]

# fault.cpu=1: a thread on the second CPU commits the fault, and the run
# still ends with a dump naming that CPU, one verdict and a failure status,
# through each door. A CPU that is not online is said so in one line.
def smp_fault(name, args, method, timeout):
    case = fault("pf", "#PF", extra=[
        r"^patchbay: booting via " + method + "$", r"^smp: 2 CPUs running$",
        r"^fault: committing a deliberate pf fault on cpu 1$",
        r"^trap: #PF page fault, vector 14, cpu 1, ", r"^  #[01]  [0-9a-f]{16} seek_cpu_and_commit\+"])
    case.update(name=name, args=args, cmdline="fault=pf fault.cpu=1", timeout=timeout)
    case["reject"] = case["reject"] + [OPTION_PROBLEM]
    return case


CASES += [
    smp_fault("smp-fault-cpu1-pvh", ["--smp", "2", "--icount"], "native/pvh", NATIVE_TIMEOUT),
    smp_fault("smp-fault-cpu1-xen", ["--xen", "--smp", "2", "--icount"], "xen-pv", XEN_TIMEOUT),
    dict(name="smp-fault-cpu-offline", cmdline="fault=pf fault.cpu=1",
         expect=[r"^smp: 1 CPU running$", r"^fault: fault.cpu=1, but only 1 CPU is online$"],
         reject=[PASS, r"^trap: ", r"^fault: committing", OPTION_PROBLEM],
         last_line=CMDLINE_FAIL + r"fault.cpu= names no CPU online$", status="cmdline"),
]

# Live patching (kernel/live_patch.c) beyond smp-pvh-2-parallel above, in
# boots of their own: after the stress test the write-barrier workload's
# mutators need not land one per CPU (a Xen overcommit boot once put none
# on vCPU 0). Then the control, which rewrites without the int3 and must
# be caught, and the refusal of sites still as assembled.
def repatch_boot(name, args, cpus, rewrites, forms, timeout):
    return dict(name=name, args=list(args), cmdline="pv.repatch_test=%d" % rewrites,
                expect=repatch_expect(cpus, rewrites, forms), reject=CLEAN + [OPTION_PROBLEM],
                last_line=PASS, status=0, timeout=timeout)


CASES += [
    repatch_boot("repatch-pvh-4", ["--smp", "4", "--icount"], 4, 1000, 3, NATIVE_TIMEOUT),
    # Four vCPUs on two: Xen runs another while the writer's blocks.
    repatch_boot("repatch-xen-4", ["--xen", "--smp", "4", "--host-cpus", "2", "--icount"], 4,
                 200, 2, XEN_TIMEOUT),
    # Two vCPUs on two CPUs, no icount: the W^X walks on vCPU 1 run while
    # vCPU 0 writes the text, so a page made writable and executable for a
    # write would be seen (xen/pv/text_poke.c writes through an alias).
    repatch_boot("repatch-xen-2-wx", ["--xen", "--smp", "2", "--host-cpus", "2"], 2, 200, 2,
                 XEN_TIMEOUT),
    # The control: tail first, a millisecond torn, no int3. The other CPU
    # runs the torn site: `f7 1f` (neg (%rdi)) or `0f c7 00` traps.
    dict(name="repatch-unsafe-pvh-2", args=["--smp", "2"],
         cmdline="pv.repatch_test=100 pv.repatch_unsafe=on",
         expect=[r"^trap: #(UD|PF|GP) "], reject=[PASS, r"^pv: repatch test: "],
         last_line=r"^patchbay: FAIL trap #(UD|PF|GP)$", status="fail", timeout=NATIVE_TIMEOUT),
    # Unpatched sites have their call first, where a thread returns into
    # the middle of the site: refused in one line.
    dict(name="repatch-unpatched", cmdline="pv.patch=off pv.repatch_test=1",
         expect=[r"^panic: pv: site at 0x[0-9a-f]+ \(restore_fl\) still has its call first, as "
                 r"assembled: live patching needs the sites patched at boot$"],
         last_line=r"^patchbay: FAIL panic$", status="fail"),
]


# The same image as a Xen PVH guest: its own backend, composed of the
# native irq, mmu and patch ops and Xen's time, events, console, locks,
# IPIs and shootdowns (docs/pvh.md). As dom0 (tools/run --xen --pvh: no
# Linux, a few seconds a boot) it runs what PV dom0 runs; each per-op
# choice at least once, the emulated LAPIC's way in one SMP boot with the
# stale-TLB test; as a domU (--domu --pvh) a clean boot and a fault, its
# status read from xenstore. The stale-TLB test has no control under PVH:
# with mm.tlbtest=skip-shootdown it still passes, as QEMU's TCG flushes a
# CPU's TLB at each VM entry and exit of the SVM it emulates, and the
# spinning vCPU leaves the guest (pause-loop exits) before it writes. A bad value of a PVH option, or a PV option
# under PVH, ends the run before it does anything.
PVH_DOM0 = ["--xen", "--pvh"]
PVH_DOMU = ["--domu", "--pvh"]
PVH_DEFAULTS = (r"^xen: pvh: timer VCPUOP_set_singleshot_timer \(xen.timer=pv\), IPIs "
                r"EVTCHNOP_send \(xen.ipi=evtchn\), shootdowns HVMOP_flush_tlbs "
                r"\(xen.shootdown=hypercall\)$")
PVH_LAPIC = (r"^xen: pvh: timer emulated LAPIC \(xen.timer=lapic\), IPIs emulated LAPIC ICR "
             r"\(xen.ipi=lapic\), shootdowns IPI to each vCPU \(xen.shootdown=ipi\)$")
PVH_DOM0_BANNER = r"^xen: Xen 4\.17\.\d+, PVH start info version 0, flags 0x3, CPUID leaves at 0x4"
CASES += [
    clean_boot("xen-pvh-boot", PVH_DOM0, method="xen-pvh", timeout=XEN_TIMEOUT,
               expect=[PVH_DOM0_BANNER, r"^xen: running as dom0$", PVH_DEFAULTS,
                       r"^pv: native ops, patched"]),
    dict(fault("pf", "#PF", extra=[r"^patchbay: booting via xen-pvh$",
                                   r"^  cr2 0000000000000008 \(write, not present, data\)$"]),
         name="xen-pvh-fault-pf", args=PVH_DOM0, timeout=XEN_TIMEOUT,
         stderr=[r"^run: kernel failed with status 1$"]),
    # Under icount the interleaving repeats for one image, but where the
    # two mutators land is the global run queue's choice, not a promise:
    # one more indirect call on the EOI path (kvm's PV EOI) put both on
    # vCPU 0. The sched self-test's work per CPU shows both vCPUs ran.
    smp_boot("smp-xen-pvh-2", PVH_DOM0 + ["--smp", "2", "--icount"], 2, XEN_UP, "xen-pvh",
             timeout=XEN_TIMEOUT, repatch=(200, 3), mutator_cpus="[1-3]",
             expect=[r"^sched: work per CPU: cpu0=[1-9]\d* cpu1=[1-9]\d*$"]),
    # On two host threads, not under icount, where Xen's own SMP boot takes
    # half a minute: the mutators need not land one per vCPU.
    smp_boot("smp-xen-pvh-2-lapic", PVH_DOM0 + ["--smp", "2"], 2, XEN_UP, "xen-pvh",
             cmdline="xen.timer=lapic xen.ipi=lapic xen.shootdown=ipi", timeout=XEN_TIMEOUT,
             mutator_cpus="[1-3]",
             expect=[PVH_LAPIC, r"^time: APIC timer \d+\.\d MHz, calibrated against Xen's "
                                r"clock$"]),
    sched_boot("sched-xen-pvh-inline-locks", PVH_DOM0, "pv.spinlock=off", method="xen-pvh",
               timeout=XEN_TIMEOUT,
               expect=[r"^sched: round robin, 10 ms slices, inline ticket spinlocks$"]),
    dict(name="xen-pvh-bad-value", args=PVH_DOM0, cmdline="xen.timer=hpet",
         expect=[r"^cmdline: bad value 'hpet' for xen.timer \(accepted: pv\|lapic\)$"],
         reject=NOT_RUN, last_line=CMDLINE_FAIL + r"bad value 'hpet' for xen.timer$",
         status="cmdline", timeout=XEN_TIMEOUT),
    # time.miscalibrate under PVH: refused with Xen's one-shot timer, which
    # the guest does not calibrate; with the emulated LAPIC's, calibrated
    # against Xen's clock, a timer 4 times too slow that fires early by
    # Xen's clock, which the self-test's timer rate check must catch.
    dict(name="xen-pvh-miscalibrate-pv-timer", args=PVH_DOM0, cmdline="time.miscalibrate=on",
         expect=[r"^cmdline: time.miscalibrate=on needs xen.timer=lapic under PVH: "],
         reject=NOT_RUN,
         last_line=CMDLINE_FAIL + r"time.miscalibrate=on needs xen.timer=lapic under PVH: ",
         status="cmdline", timeout=XEN_TIMEOUT),
    # Under icount: with the host busy, a vCPU descheduled across the early
    # delivery takes it late, and a run of the miscalibrated timer passed.
    dict(name="xen-pvh-lapic-miscalibrated", args=PVH_DOM0 + ["--icount"],
         cmdline="xen.timer=lapic time.miscalibrate=on",
         expect=[r"^time: APIC timer \d+\.\d MHz, calibrated against Xen's clock as if its 10 ms "
                 r"were 40 \(time.miscalibrate=on\)$",
                 r"^time: rate checked against the TSC",
                 r"^timer: rate wrong against the clock: asked for 60 ms, it first fired after "
                 r"0\.\d{3} of that",
                 r"^panic: timer: the one-shot fires at 0\.\d{3} of the time asked"],
         reject=[PASS, r"^timer: rate checked"],
         last_line=r"^patchbay: FAIL panic$", status="fail", timeout=XEN_TIMEOUT),
    dict(name="xen-pvh-pv-option", args=PVH_DOM0, cmdline="xen.mmu=trap",
         expect=[r"^cmdline: option xen.mmu does not apply to this platform$"], reject=NOT_RUN,
         last_line=CMDLINE_FAIL + r"option xen.mmu does not apply to this platform$",
         status="cmdline", timeout=XEN_TIMEOUT),
    dict(name="pvh-option-natively", cmdline="xen.ipi=lapic",
         expect=[r"^cmdline: option xen.ipi does not apply to this platform$"], reject=NOT_RUN,
         last_line=CMDLINE_FAIL + r"option xen.ipi does not apply to this platform$",
         status="cmdline"),
    # A clean PVH domU boot: domu-lifecycle-pvh, which also migrates.
    dict(fault("pf", "#PF", extra=[r"^patchbay: booting via xen-pvh$",
                                   r"^xen: running as domU [1-9]\d*$"]),
         name="domu-pvh-fault-pf", args=PVH_DOMU, status=1,
         stderr=[r"^run: kernel failed with status 1$"], timeout=DOMU_TIMEOUT),
]

# The lifecycle door (tools/run --domu --lifecycle PLAN): Xen's toolstack
# saves, restores, moves and migrates the running domU; dom0's /init says
# each step (old and new domain, wall time, what xl moved), the guest each
# resume (its domains and the gap in its clock) and, after the last, the
# domains it ran in, then its own verdict. A PV domain cannot migrate live
# (Debian's Xen has no shadow paging for its log-dirty tracking): refused
# before anything boots. A guest deaf to the suspend request ends the run
# on the door's 10 s watchdog (libxl's own gives up after 60 s), with
# status 104 and the door's line as the verdict.
LIFECYCLE_TIMEOUT = 150
LIFECYCLE_READY = r"^lifecycle: watching control/shutdown for %d resumes in domain 1$"
LIFECYCLE_SUSPEND = r"^lifecycle: suspend %d: domain %d asked to suspend$"
LIFECYCLE_STEP = r"^lifecycle-door: step %d/%d %s: domain %d -> %d in \d+\.\d s \(%s\)$"
LIFECYCLE_RESUME = r"^lifecycle: resume %d/%d: domain %d -> %d, clock gap \d+(\.\d+)? ms(,|$)"
LIFECYCLE_MOVED = {"save-restore": r"checkpoint \d+\.\d MB",
                   "move": r"libxc: \d+ frames",
                   "migrate": r"live copy \d+\.\d s, then suspended \d+\.\d s"}
# Each other vCPU resumes from its parking thread, not inside an upcall,
# and the IPI vCPU 0 sent it while its ports were still masked raises its
# upcall when it unmasks them (xen/lifecycle.c, xen_cpu_resume).
LIFECYCLE_AP_RESUMED = (r"^xen: vCPU %d resumed in thread context; the IPI sent while its port "
                        r"was masked raised its upcall on unmask$")
LIFECYCLE_DEAF = (r"lifecycle-door: step 1/1 save-restore: the guest did not acknowledge the "
                  r"suspend request within 10 s$")


def lifecycle_boot(name, args, steps, method, cpus, expect=()):
    """A plan of steps carried out on a domU of `cpus` vCPUs that runs the
    workload meanwhile, booted cleanly (clean_boot's checks: these are the
    door's clean boots too): each step, the guest's last line before each
    suspend (drained from its console ring), each resume with every vCPU
    counting again, domains 1, 2, ... in turn (Xen numbers new domains in
    order), the workload's checksums, and the guest's PASS after the last."""
    k = len(steps)
    # Twice the door's own allowance for the plan: one live migration of
    # domu-lifecycle-pvh took 26 s alone, 174 s under make test's load, and
    # over 270 s with a benchmark beside make test (the workload keeps
    # dirtying pages while the live copy shares its one physical CPU).
    case = clean_boot(name, args + ["--smp", str(cpus), "--lifecycle", ",".join(steps)],
                      method=method, timeout=2 * run_lifecycle.lifecycle_timeout(steps),
                      expect=expect)
    case["cmdline"] = "wl=on"
    # The door's line for the last step may come after the guest's verdict.
    case["last_line"] = None
    case["expect"].append(PASS)
    case["expect"] += [evtchn_unmasked(cpus), LIFECYCLE_READY % k,
                       r"^wl: \d+ cycles x 2048 pages, 2 mutators, seed 1: \d+ faults, checksums ok",
                       r"^lifecycle: resumed %d times, domains %s$"
                       % (k, " ".join(str(d) for d in range(1, k + 2)))]
    case["expect"] += [LIFECYCLE_AP_RESUMED % cpu for cpu in range(1, cpus)]
    for i, step in enumerate(steps, 1):
        case["expect"] += [LIFECYCLE_SUSPEND % (i, i),
                           LIFECYCLE_STEP % (i, k, step, i, i + 1, LIFECYCLE_MOVED[step]),
                           LIFECYCLE_RESUME % (i, k, i, i + 1) + r" CPUs 0x%x counting, W\^X and "
                           r"\d+ sites unchanged$" % ((1 << cpus) - 1)]
    return case


def lifecycle_mutant(mutant, caught):
    """A control: a guest whose resume is broken must end in one verdict,
    caught by the guest itself after one save and restore."""
    return dict(name="domu-lifecycle-" + mutant, args=["--domu", "--lifecycle", "save-restore"],
                cmdline="lifecycle.mutant=" + mutant,
                expect=[LIFECYCLE_SUSPEND % (1, 1), caught, r"^patchbay: FAIL panic$"],
                reject=[PASS, r"^lifecycle: resumed "],
                status="fail", timeout=LIFECYCLE_TIMEOUT)


CASES += [
    lifecycle_boot("domu-lifecycle-pv", ["--domu"], ["save-restore", "move"], "xen-pv", 2,
                   expect=DOMU[1:] + [r"^mem: 6[0-4] MiB usable in 1 ranges",
                                      r"^xen: pte updates by batch: ",
                                      r"^mmstats: .* multicalls=[1-9]\d* .* traps_emulated=0 "]),
    # Two vCPUs under PVH: vCPU 1 unmasks its own ports after the resume,
    # which only Xen can turn into an upcall.
    lifecycle_boot("domu-lifecycle-pvh-2", PVH_DOMU, ["save-restore"], "xen-pvh", 2),
    lifecycle_boot("domu-lifecycle-pvh", PVH_DOMU, ["migrate"], "xen-pvh", 1,
                   expect=[r"^xen: Xen 4\.17\.\d+, PVH start info version 1, flags 0x0, ",
                           r"^xen: running as domU 1$", PVH_DEFAULTS,
                           r"^mem: 6[0-4] MiB usable in 1 ranges"]),
    # The event channels not bound again: no timer fires; a machine frame
    # of the old domain kept (the copy of CR3): the next fault walks
    # tables the guest no longer owns.
    lifecycle_mutant("no-rebind", r"^panic: lifecycle: after resume 1, CPUs 0x1 did not count "
                                  r"5 steps within 2 s"),
    # Nothing saves a bare machine: lifecycle= ends the run before it waits.
    dict(name="lifecycle-natively", cmdline="lifecycle=1",
         expect=[r"^lifecycle: no toolstack saves a bare machine: lifecycle= needs a Xen domU$"],
         reject=[PASS, r"^lifecycle: watching"],
         last_line=CMDLINE_FAIL + r"lifecycle= needs a toolstack that can save this domain, a "
                                  r"Xen domU's$", status="cmdline"),
    lifecycle_mutant("stale-frame", r"^panic: xen: read_cr3's copy 0x[0-9a-f]+ is not the table "
                                    r"Xen runs, 0x[0-9a-f]+: a machine frame of the old domain$"),
    usage_error("domu-lifecycle-pv-migrate-refused", ["--domu", "--lifecycle", "migrate"],
                re.escape("--lifecycle migrate needs --pvh: live migration of a PV guest needs "
                          "log-dirty tracking, which for a PV domain needs Xen's shadow paging, "
                          "and Debian's Xen is built without it (# CONFIG_SHADOW_PAGING is not "
                          "set; xl fails with 'Failed to enable logdirty: 95'); use --pvh, or "
                          "the steps save-restore and move")),
    dict(name="domu-lifecycle-deaf", args=["--domu", "--lifecycle", "save-restore"],
         cmdline="lifecycle.mutant=deaf", reject=[PASS, r"^lifecycle-door: step 1/1 .* -> "],
         last_line=r"^patchbay: FAIL " + LIFECYCLE_DEAF, status=104,
         stderr=[r"^run: " + LIFECYCLE_DEAF], timeout=90),
]

# The domU door's network (tools/run --domu --net): dom0's netback on the
# bridge xenbr0, xl's vif-bridge hotplug script, netfront in the guest.
# Once the guest is up dom0 pings it five times and runs the UDP client
# (200 datagrams), whose end datagram ends the guest's run; the guest's
# verdict counts what the client saw. The client's lines may come after
# the guest's verdict. Under a lifecycle plan the client sends all
# through it: each resume reconnects to the new backend and grants the
# receive buffers again; datagrams sent while the guest is away are lost,
# none may come back wrong. Without --net there is no vif: one FAIL line.
NET_CONNECTED = (r"^netfront: device/vif/0 connected to /local/domain/0/backend/vif/1/0 \(domain "
                 r"0\): port \d+, mac 00:16:3e:0a:00:02, 256 receive buffers posted$")
NET_UP = r"^net: eth0 up at 10\.0\.0\.2: "
NET_PINGED = r"^net-door: ping: 5 packets transmitted, 5 packets received, 0% packet loss$"
NET_CLIENT = r"^net-door: udpclient: sent (\d+), received (\d+), wrong 0, lost (\d+), rtt "
NET_REPORT = r"^net: client sent (\d+), received (\d+), wrong 0, lost (\d+)$"
NET_OUTAGE = (r"^net-door: udpclient: outage: [1-9]\d* lost in a row \(datagrams \d+-\d+, the "
              r"first sent at uptime \d+\.\d\d s\), ")
# dom0's join of the outages to the plan's steps: each step moves the
# guest, so each loses datagrams, for a time.
NET_STEP_LOST = (r"^lifecycle-door: step %d/%d %s: [1-9]\d* datagrams? lost \(\d+(-\d+)?(, "
                 r"\d+(-\d+)?)*\), unreachable for \d+\.\d\d s$")
NET_RECONNECTED = (r"^netfront: device/vif/0 reconnected to /local/domain/0/backend/vif/%d/0: "
                   r"port \d+, %s, frames in flight at the suspend lost: \d+$")


def net_counts_agree(text):
    """The guest's report of the client's end says what the client printed,
    and every datagram sent is either received or lost."""
    client = re.search(NET_CLIENT, text, re.MULTILINE)
    report = re.search(NET_REPORT, text, re.MULTILINE)
    if not client or not report:
        return "no client line or no report of it"
    if client.groups() != report.groups():
        return "the client printed %s, the guest reported %s" % (client.groups(), report.groups())
    sent, received, lost = (int(n) for n in client.groups())
    if sent != received + lost:
        return "sent %d is not received %d plus lost %d" % (sent, received, lost)
    return None


# net.trace under Xen (docs/io.md's ping walk): dom0's first ping arrives
# in a page granted writable to dom0, which is posted again at once; the
# reply leaves from a page of the transmit pool granted read-only, and
# netback answers it.
NETFRONT_TRACED = [
    r"^netfront: trace: event on port \d+: rx rsp_prod \d+, rsp_cons \d+$",
    r"^netfront: trace:   = id \d+, offset 0, flags 0x[0-9a-f]+, status 98 \(the frame's "
    r"bytes\)$",
    r"^netfront: trace:   = flags 0x0001 \(permit_access, writable\), domid 0, frame 0x",
    r"^netfront: trace:   = id \d+, gref \d+ \(the same page\)$",
    r"^netfront: trace: rx push: req_prod \d+ -> \d+, req_event \d+: ",
    r"^net: trace: icmp in: type 8 \(echo request\), code 0, .* sequence 0, 56 bytes of data, "
    r"checksum 0x[0-9a-f]{4} verified$",
    r"^net: trace: ipv4 out: 10\.0\.0\.2 -> 10\.0\.0\.1, total length 84, ",
    r"^netfront: trace:   = gref \d+, offset 0, flags 0x0, id \d+, size 98$",
    r"^netfront: trace:   = flags 0x0005 \(permit_access, readonly\), domid 0, frame 0x",
    r"^netfront: trace: tx push: req_prod \d+ -> \d+, req_event \d+: ",
    r"^netfront: trace:   = id \d+, status 0 \(NETIF_RSP_OKAY\)$"]


def net_boot(name, args, method, steps=(), expect=(), cmdline=""):
    """A domU answering dom0's ping and UDP client, through a plan of steps
    if any, and passing with no datagram wrong and none lost after the
    last outage."""
    plan = ["--lifecycle", ",".join(steps)] if steps else []
    timeout = 2 * run_lifecycle.lifecycle_timeout(steps, net=True) if steps else DOMU_TIMEOUT
    return dict(name=name, args=args + ["--net"] + plan, cmdline=cmdline,
                expect=[r"^patchbay: booting via " + method + "$", NET_CONNECTED, NET_UP,
                        NET_PINGED, NET_CLIENT, NET_REPORT, PASS] + list(expect),
                reject=CLEAN + [r"^net-door: udpclient: outage: .*, to the end$"],
                check=net_counts_agree, timeout=timeout)


CASES += [
    # With a ping flood beside the stream (dom0's busybox ping, one a
    # millisecond: --net-flood), which the stream then ends with, and a
    # thread counting in the guest meanwhile (net.busy=on): every ping
    # answered, and the flood starved neither that thread nor the tick.
    # It also traces its first ping (docs/io.md's walk): one domU boot
    # for both.
    net_boot("domu-net-pv", ["--domu", "--net-flood", "1000"], "xen-pv",
             cmdline="net.busy=on net.trace=1",
             expect=[r"^net-door: flood: ping -q -i 0\.001 -c 1000 10\.0\.0\.2$",
                     r"^net-door: flood: 1000 packets transmitted, 1000 packets received, 0% "
                     r"packet loss$",
                     r"^net-door: udpclient: sent [1-9]\d*, received [1-9]\d*, wrong 0, lost 0, ",
                     r"^net: while serving, the busy thread counted [1-9]\d* rounds; the tick "
                     r"preempted [1-9]\d* times, \d+ context switches$",
                     r"^net: rx \d+ frames, tx \d+, dropped: (none|eth-not-ours \d+)$"]
             + NETFRONT_TRACED),
    net_boot("domu-net-pvh", PVH_DOMU, "xen-pvh",
             expect=[r"^net-door: udpclient: sent 200, received 200, wrong 0, lost 0, "]),
    dict(name="domu-net-no-backend", args=["--domu"], cmdline="net=on",
         expect=[r"^netfront: no network: no vif in xenstore$"],
         reject=[PASS, r"^netfront: device/"],
         last_line=r"^patchbay: FAIL net=on but no network device: start with --net$",
         status="fail", timeout=DOMU_TIMEOUT),
    net_boot("domu-net-lifecycle-pv", ["--domu"], "xen-pv", ["save-restore", "move"],
             expect=[LIFECYCLE_STEP % (1, 2, "save-restore", 1, 2, LIFECYCLE_MOVED["save-restore"]),
                     LIFECYCLE_STEP % (2, 2, "move", 2, 3, LIFECYCLE_MOVED["move"]),
                     NET_RECONNECTED % (2, "receive buffers granted again"),
                     NET_RECONNECTED % (3, "receive buffers granted again"),
                     NET_OUTAGE + r"unanswered for \d+ ms$",
                     NET_STEP_LOST % (1, 2, "save-restore"), NET_STEP_LOST % (2, 2, "move"),
                     r"^lifecycle: resumed 2 times, domains 1 2 3$"]),
    # The control: after the resume the new backend has no receive
    # buffers, so nothing reaches the guest again, the client's end
    # included; the stream's echoes stop and the guest's wait for the end
    # runs out. dom0's line for the step comes after the guest's last.
    dict(name="domu-net-lifecycle-no-regrant",
         args=["--domu", "--net", "--lifecycle", "save-restore"],
         # The client ends about 17 s after the guest's interface is up (a
         # 7.7 s save-restore); the guest's wait for its end is cut short
         # as far as is safe, since its last seconds hold a CPU idle.
         cmdline="netfront.mutant=no-regrant net.timeout=45",
         expect=[NET_UP, NET_RECONNECTED % (2, r"no receive buffers granted "
                                              r"\(netfront.mutant=no-regrant\)"),
                 r"^net-door: udpclient: sent \d+, received \d+, wrong 0, lost [1-9]\d*, ",
                 NET_OUTAGE + r"to the end$",
                 r"^net-door: udpclient: the guest did not answer the end$",
                 r"^patchbay: FAIL net: no client's end within 45 s$"],
         reject=[PASS, r"^net: client sent "],
         last_line=r"^lifecycle-door: step 1/1 save-restore: [1-9]\d* datagrams lost "
                   r"\(\d+-\d+\), unreachable until the stream ended$", status="fail",
         timeout=2 * run_lifecycle.lifecycle_timeout(["save-restore"], net=True)),
    # The real detach (tools/run --net-detach): xl network-detach in dom0
    # while the client's stream runs; libxl sets the backend Closing and
    # waits for us. netback answers nothing more, so only netfront's
    # watchdog, asking xenstore once a second, sees it go: it closes our
    # end (xl then returns 0) and the guest ends with one verdict naming
    # the backend, not at its time-out.
    dict(name="domu-net-detach", args=["--domu", "--net", "--net-detach"],
         expect=[NET_UP, NET_PINGED,
                 r"^netfront: backend /local/domain/0/backend/vif/1/0 went Closing: eth0 closed, "
                 r"nothing sent or received from now on$",
                 r"^patchbay: FAIL net: eth0 is gone before the client's end: its backend went "
                 r"Closing$",
                 r"^domu-door: xl network-detach patchbay 0: status 0$",
                 r"^net-door: udpclient: sent \d+, received [1-9]\d*, wrong 0, lost [1-9]\d*, "],
         reject=[PASS, r"^net: client sent ", r"trap: #", r"panic: "],
         status="fail", timeout=DOMU_TIMEOUT),
]

# The fault-KIND, xen-fault-KIND and xen-pvh-fault-KIND cases above (the fault
# points and doors are defined further up) already check these points
# in more detail (and, like every case, one verdict line): not booted twice.
_detailed = {c["name"] for c in CASES}
for _door, _args, _timeout, _method, _dump in DOORS:
    for _point, _needs in FAULT_POINTS:
        if {"pvh": "fault-", "xen": "xen-fault-",
                "xen-pvh": "xen-pvh-fault-"}.get(_door, "?") + _point in _detailed:
            continue
        CASES.append(dict(
            name="fault-matrix-%s-%s" % (_door, _point), args=_args,
            cmdline=(_needs + " fault=" + _point).strip(),
            expect=[r"^patchbay: booting via " + _method + "$",
                    r"^fault: committing ", _dump],
            reject=[r"did not trap", OPTION_PROBLEM], last_line=r"^patchbay: FAIL ",
            status="failed", timeout=_timeout))

# The disk workload on virtio-blk (kernel/disk_workload.c, drivers/): each
# case makes its own file (tools/run --disk-new) under build/test-disks/.
# The host's check (tools/pbtools/run/disk.py) is the last line of a run whose
# guest named flushed blocks.
DISK_CHECK_OK = (r"^disk-check: 256 blocks verified on the host, 0 wrong; 1 flush by the device "
                 r"for 1 claimed$")
VIRTIO_BLK = (r"^virtio-blk: [0-9a-f]{2}:[0-9a-f]{2}\.[0-7], features event_idx indirect flush, "
              r"\d+ entries, \d+ segments per request, MSI-X vector 0x[0-9a-f]+$")
DISK_RAN = [VIRTIO_BLK,
            r"^block: vda \(virtio-blk\): 8192 sectors of 512 bytes, write cache, queue depth \d+$",
            r"^disk: flushed blocks 0-255 generation 1 seed 0x1$",
            r"^disk: vda \(virtio-blk\): 256 blocks x 1 passes at depth \d+, seed 0x1: written, "
            r"read back and checked, flushed$",
            r"^disk: 513 requests: \d+ notifications, \d+ interrupts "]


def disk_args(name, size="4M", suffix=""):
    return ["--disk", "build/test-disks/%s.img%s" % (name, suffix), "--disk-new", size]


def disk_refused(name, cmdline, verdict, args=None):
    """disk=on against a disk it cannot use: one FAIL line, nothing written."""
    return dict(name=name, args=disk_args(name) if args is None else args, cmdline=cmdline,
                reject=[PASS, r"^disk: flushed", r"^disk-check: "],
                last_line=r"^patchbay: FAIL " + verdict + "$", status="fail",
                timeout=NATIVE_TIMEOUT)


_disk_iso = clean_boot("disk-virtio-iso", ["--iso"] + disk_args("disk-virtio-iso"),
                       method="native/multiboot2", expect=DISK_RAN + [PASS, DISK_CHECK_OK],
                       timeout=ISO_TIMEOUT)
_disk_pvh = clean_boot("disk-virtio", disk_args("disk-virtio"), expect=DISK_RAN + [PASS, DISK_CHECK_OK])
for _case in (_disk_pvh, _disk_iso):
    _case.update(cmdline="disk=on disk.depth=32", last_line=DISK_CHECK_OK)
# Without EVENT_IDX and indirect descriptors: notifications by the rings'
# flags, and each request a chain in the ring itself, so the device holds
# fewer at once and the layer queues the rest.
_disk_flags = clean_boot("disk-virtio-flags", disk_args("disk-virtio-flags"),
                         expect=[VIRTIO_BLK.replace("event_idx indirect flush", "flush"),
                                 r"^block: vda \(virtio-blk\): 8192 sectors of 512 bytes, write "
                                 r"cache, queue depth 6$"] + DISK_RAN[2:] + [PASS, DISK_CHECK_OK])
# virtio.trace (docs/io.md's walk-through) shows the chain in the ring
# itself, header, page and status, and the device's answer for all three.
_disk_flags["expect"] += [
    r"^virtio-blk: trace:   = addr 0x[0-9a-f]+, len 16, flags 0x1 NEXT, next \d+$",
    r"^virtio-blk: trace:   = addr 0x[0-9a-f]+, len 4096, flags 0x3 NEXT WRITE, next \d+$",
    r"^virtio-blk: trace:   = addr 0x[0-9a-f]+, len 1, flags 0x2 WRITE, next 0$",
    r"^virtio-blk: trace: avail->idx \d+ -> \d+, used->flags 0x[01]: (no )?notify$",
    r"^virtio-blk: trace:   = id \d+, len 4097 \(used index \d+\); status byte 0 "
    r"\(VIRTIO_BLK_S_OK\)$"]
_disk_flags.update(cmdline="disk=on disk.depth=32 virtio.event_idx=off virtio.indirect=off "
                   "virtio.trace=8", last_line=DISK_CHECK_OK)
# Two CPUs: completions interrupt the CPU that probed the device, the
# workload may run on the other; two passes, each flushed and claimed.
_disk_smp = clean_boot("disk-virtio-smp2", ["--smp", "2"] + disk_args("disk-virtio-smp2"),
                       expect=[r"^smp: 2 CPUs running$", VIRTIO_BLK,
                               r"^disk: flushed blocks 0-255 generation 1 seed 0x1$",
                               r"^disk: flushed blocks 0-255 generation 2 seed 0x1$", PASS])
_disk_smp.update(cmdline="disk=on disk.depth=32 disk.passes=2",
                 last_line=r"^disk-check: 256 blocks verified on the host, 0 wrong; 2 flushes by "
                           r"the device for 2 claimed$")
CASES += [
    _disk_pvh,
    _disk_iso,
    _disk_flags,
    _disk_smp,
    disk_refused("disk-none", "disk=on", r"disk=on but no block device: start with --disk FILE",
                 args=[]),
    # The disk benchmarks alone, without a disk: they would all be skipped.
    disk_refused("bench-disk-none", "bench=io",
                 r"bench: the benchmarks chosen need a disk: start with --disk FILE", args=[]),
    disk_refused("disk-read-only", "disk=on",
                 r"disk: vda is read-only, and disk=on writes: attach it writable",
                 args=disk_args("disk-read-only", suffix=":ro")),
    disk_refused("disk-request-not-blocks", "disk=on disk.request=6K",
                 r"disk: disk.request=6144 is not a whole number of 4 KiB blocks"),
    disk_refused("disk-too-small", "disk=on",
                 r"disk: vda holds 16 blocks of 4 KiB, fewer than disk.blocks=256",
                 args=disk_args("disk-too-small", size="64K")),
    refused("disk-missing-file", ["--disk", "build/test-disks/no-such-file.img"], "disk=on",
            re.escape("disk file build/test-disks/no-such-file.img not found (--disk FILE "
                      "hands an existing file to the guest)")),
    # The negative control of the host's check: the guest skips its flush
    # but prints the flushed-blocks line all the same. The bytes are in the
    # file (the host's page cache took them); the device's trace shows no
    # flush after any block's write, and the run fails after the guest's
    # own PASS.
    dict(name="disk-mutant-no-flush", args=disk_args("disk-mutant-no-flush"),
         cmdline="disk=on disk.mutant=no-flush",
         expect=[r"^disk: flushed blocks 0-255 generation 1 seed 0x1$", PASS,
                 r"^disk-check: block 0: the device completed no flush after its last write "
                 r"\(expected generation 1\)$",
                 r"^disk-check: 256 blocks verified on the host, 256 wrong; 0 flushes by the "
                 r"device for 1 claimed$"],
         last_line=r"^patchbay: FAIL disk-check: the host found what the guest flushed wrong or "
                   r"unflushed$", status=105, verdicts=2, timeout=NATIVE_TIMEOUT,
         stderr=[r"^run: disk-check: the host found what the guest flushed wrong or unflushed$"]),
]

# virtio-net natively (drivers/virtio_net.c) through tools/run --net: the
# host's own client (tools/udpclient) sends 200 datagrams through QEMU's
# forwarded port and checks every echo; the guest's verdict carries its
# counts. Without EVENT_IDX the rings' flags say when to notify, and the
# echo still comes back whole. net=on without --net has no card: one line.
VIRTIO_NET = (r"^virtio-net: [0-9a-f]{2}:[0-9a-f]{2}\.[0-7], mac 52:54:00:12:34:56, features mac "
              r"event_idx, \d+ receive and \d+ transmit entries, MSI-X vector 0x[0-9a-f]+$")
NET_ECHOED = [r"^net: eth0 \(virtio-net\): MAC 52:54:00:12:34:56$",
              r"^net: eth0 up at 10\.0\.2\.15: ",
              r"^udpclient: sent 200, received 200, wrong 0, lost 0, rtt ",
              r"^net: client sent 200, received 200, wrong 0, lost 0$"]
_net = clean_boot("net-virtio", ["--net"], expect=[VIRTIO_NET] + NET_ECHOED)
_net_flags = clean_boot("net-virtio-no-event-idx", ["--net"],
                        expect=[VIRTIO_NET.replace(" event_idx", "")] + NET_ECHOED)
_net_flags.update(cmdline="virtio.event_idx=off")
# Full frames, 32 in flight: every echo fills a receive buffer, header
# and 1514 bytes, and the receive ring is refilled under load.
_net_full = clean_boot("net-virtio-full-frames",
                       ["--net", "--net-size", "1472", "--net-window", "32", "--net-count", "1000"],
                       expect=[VIRTIO_NET] + NET_ECHOED[:2] + [
                           r"^udpclient: sent 1000, received 1000, wrong 0, lost 0, rtt ",
                           r"^net: client sent 1000, received 1000, wrong 0, lost 0$"])
# Two CPUs: receive interrupts the CPU that probed the card, the stack's
# thread and its transmits may run on the other.
_net_smp = clean_boot("net-virtio-smp2",
                      ["--smp", "2", "--net", "--net-window", "32", "--net-count", "1000"],
                      expect=[r"^smp: 2 CPUs running$", VIRTIO_NET] + NET_ECHOED[:2] + [
                          r"^udpclient: sent 1000, received 1000, wrong 0, lost 0, rtt ",
                          r"^net: client sent 1000, received 1000, wrong 0, lost 0$"])
# Under icount the idle guest's clock runs ahead of the host's: one
# datagram at a time, 3000 of them, outlast 50 of its seconds, so the door
# lets the guest wait as long as it may.
_net_icount = clean_boot("net-virtio-icount",
                         ["--icount", "--net", "--net-window", "1", "--net-count", "3000"],
                         expect=[VIRTIO_NET, r"^net: eth0 up at 10\.0\.2\.15: .* waiting 86400 s ",
                                 r"^udpclient: sent 3000, received 3000, wrong 0, lost 0, rtt ",
                                 r"^net: client sent 3000, received 3000, wrong 0, lost 0$"])
# A flood: 1024 full frames in flight, far more than the receive ring
# and the layer's queue hold. What does not fit is dropped (QEMU's, the
# layer's, counted), never a wrong byte, and the stack's thread still
# gets the client's end through it.
_net_flood = clean_boot("net-virtio-flood",
                        ["--net", "--net-size", "1472", "--net-window", "1024",
                         "--net-count", "10000"],
                        expect=[VIRTIO_NET] + NET_ECHOED[:2] + [
                            r"^udpclient: sent 10000, received [1-9]\d*, wrong 0, lost \d+, rtt ",
                            r"^net: client sent 10000, received [1-9]\d*, wrong 0, lost \d+$",
                            r"^net: eth0 \(virtio-net\): \d+ frames received, \d+ sent, \d+ "
                            r"dropped with the receive queue full, 0 refused by the transport; "
                            r"\d+ notifications, \d+ interrupts$"])
# The bench row's line (kernel/net_workload.c): the frames and echoes of
# the run since the interface came up, and the CPUs' busy time, which is
# their wall time less what the idle threads spent halted: a guest that
# waits on its client is idle for some of it, on two CPUs more so.
NET_STATS = (r"^net-stats: echoed=(\d+) rx_frames=(\d+) tx_frames=(\d+) notifications=(\d+) "
             r"interrupts=(\d+) grant_ops=0 busy_ns=(\d+) cpus=(\d+)$")
NET_SINCE_UP = r"^net: since up: (\d+) ns on each of (\d+) CPUs, (\d+) ns of it idle$"


def net_stats_honest(text):
    """net-stats: echoed what the client got back (its end's datagram
    aside), and busy_ns is wall times CPUs less idle, with idle above 0."""
    stats = re.search(NET_STATS, text, re.MULTILINE)
    since = re.search(NET_SINCE_UP, text, re.MULTILINE)
    report = re.search(r"^net: client sent \d+, received (\d+), ", text, re.MULTILINE)
    if not stats or not since or not report:
        return "no net-stats: line, no since-up line or no client's report"
    echoed, busy, cpus = int(stats.group(1)), int(stats.group(6)), int(stats.group(7))
    wall, since_cpus, idle = (int(n) for n in since.groups())
    if echoed != int(report.group(1)):
        return "echoed=%d, but the client received %s" % (echoed, report.group(1))
    if cpus != since_cpus or busy != wall * cpus - idle:
        return "busy_ns=%d is not %d ns x %d CPUs less %d idle" % (busy, wall, cpus, idle)
    if not 0 < busy < wall * cpus:
        return "busy_ns=%d is not between 0 and wall x CPUs %d: no idle time" % (busy, wall * cpus)
    return None


for _c, _cpus in ((_net_smp, 2), (_net_icount, 1)):
    _c["expect"] += [NET_STATS.replace(r"cpus=(\d+)", "cpus=(%d)" % _cpus), NET_SINCE_UP]
    _c["check"] = net_stats_honest

# The client asks the guest for its counters at the end; that reply can
# reach the console after the guest's verdict (tools/run gives the client
# 2 s after QEMU ends), so it may be the last line.
NET_LAST = r"^(patchbay: PASS|udpclient: the guest's counters: net: rx .*)$"
for _c in (_net, _net_flags, _net_full, _net_smp, _net_icount, _net_flood):
    _c["last_line"] = NET_LAST
CASES += [
    _net,
    _net_flags,
    _net_full,
    _net_smp,
    _net_icount,
    _net_flood,
    dict(name="net-no-device", cmdline="net=on",
         reject=[PASS, r"^virtio-net: ", r"^net: eth0 up"],
         last_line=r"^patchbay: FAIL net=on but no network device: start with --net$",
         status="fail", timeout=NATIVE_TIMEOUT),
]

# The stack (kernel/net/) against a peer at the Ethernet layer
# (tools/netpeer.py on QEMU's -netdev dgram socket, tools/run --net-peer):
# one of each malformed frame is sent after the echoes, none may be
# answered and each must be counted under its own reason; a flood of
# echoes back to back is survived (what the queue or the card dropped is
# counted, not answered wrong, and the guest still answers after it); and
# the negative control, every reply's IP checksum wrong, which the peer
# counts wrong and the guest's verdict says so. Without the client's end
# the guest gives up at net.timeout with one line.
NET_BAD = ["eth-short", "eth-not-ours", "eth-type", "arp-malformed", "arp-not-ours", "ip-header",
           "ip-truncated", "ip-checksum", "ip-options", "ip-fragment", "ip-not-ours",
           "ip-protocol", "icmp-checksum", "icmp-type", "udp-length", "udp-checksum", "udp-port",
           "udp-request"]
_net_frames = clean_boot("net-bad-frames", ["--net", "--net-peer", "frames", "--net-count", "20"],
                         expect=[r"^netpeer: ARP: the guest answered for 10\.0\.2\.15 with "
                                 r"52:54:00:12:34:56$",
                                 r"^netpeer: echo: 20 pings and 20 UDP datagrams: 40 came back "
                                 r"right, 0 wrong, 0 lost$",
                                 r"^netpeer: bad frames: %d sent, 0 answered$" % len(NET_BAD),
                                 r"^netpeer: bad frames: each of the %d counted once under its "
                                 r"own reason$" % len(NET_BAD),
                                 r"^net: client sent 40, received 40, wrong 0, lost 0$",
                                 r"^net: rx \d+ frames, tx \d+, dropped: "
                                 + ", ".join(r + " 1" for r in NET_BAD) + "$"])
_net_flood = clean_boot("net-flood", ["--net", "--net-peer", "flood", "--net-count", "5000"],
                        expect=[r"^netpeer: flood: 5000 UDP datagrams of 1028 bytes sent back to "
                                r"back$",
                                r"^netpeer: echo: 1 pings and 1 UDP datagrams: 2 came back right",
                                r"^netpeer: after the flood, stats: net: rx \d+ frames",
                                r"^net: client sent 5002, received \d+, wrong 0, lost \d+$"])
_net_flood.update(timeout=90)
# ARP's question: QEMU's user network answers for its gateway.
_net_gw = clean_boot("net-gateway-arp", ["--net", "--net-count", "20"],
                     expect=[r"^net: gateway 10\.0\.2\.2 is at 52:55:0a:00:02:02$",
                             r"^net: client sent 20, received 20, wrong 0, lost 0$"])
_net_gw.update(cmdline="net.gw=10.0.2.2")


def traced_once(text):
    """net.trace=1 follows one echo request of the many that arrive."""
    n = len(re.findall(r"^net: trace: eth in: ", text, re.MULTILINE))
    return None if n == 1 else "%d frames traced, not 1" % n


# net.trace (docs/io.md's ping walk): the first ping, of two and the bad
# frames' pings after them, through the receive queue (its used entry, a
# WRITE buffer of header and frame, posted again), each layer of the
# stack with its checksums, and the reply on the transmit queue.
_net_trace = clean_boot("net-trace-ping",
                        ["--net", "--net-peer", "frames", "--net-count", "2"],
                        expect=[
    r"^virtio-net: trace:   = id \d+, len 110 \(the 12-byte header and a 98-byte frame\)$",
    r"^virtio-net: trace:   = addr 0x[0-9a-f]+, len 1526, flags 0x2 WRITE, next 0$",
    r"^virtio-net: trace: rx avail->idx (\d+) -> \d+, avail_event \d+: (no )?notify$",
    r"^virtio-net: trace: rx re-armed: used_event \d+$",
    r"^net: trace: ipv4 in: 10\.0\.2\.2 -> 10\.0\.2\.15, total length 84, .* header checksum "
    r"0x[0-9a-f]{4} verified",
    r"^net: trace: icmp in: type 8 \(echo request\), code 0, id 0xbeef, sequence 0, 56 bytes "
    r"of data, checksum 0x[0-9a-f]{4} verified$",
    r"^net: trace: icmp out: type 0 \(echo reply\), code 0, id 0xbeef, sequence 0, ",
    r"^net: trace: eth out: dst 52:55:0a:00:02:02, src 52:54:00:12:34:56, type 0x0800 "
    r"\(IPv4\), 98 bytes$",
    r"^virtio-net: trace:   = addr 0x[0-9a-f]+, len 110, flags 0x0 \(the device reads\), "
    r"next \d+$",
    r"^virtio-net: trace: tx avail->idx \d+ -> \d+, avail_event \d+: (no )?notify$",
    r"^virtio-net: trace: tx reclaimed: used->ring\[\d+\] = id \d+, len 0 ",
    r"^net: client sent 4, received 4, wrong 0, lost 0$"])
_net_trace.update(cmdline="net.trace=1", check=traced_once)
# Off by default: nothing traced.
_net["reject"] = _net["reject"] + [r": trace: "]
CASES += [
    _net_trace,
    _net_frames,
    _net_flood,
    _net_gw,
    dict(name="net-mutant-ip-checksum", args=["--net", "--net-peer", "frames", "--net-count", "5"],
         cmdline="net.mutant=ip-checksum",
         expect=[r"^net: eth0 up at 10\.0\.2\.15: .*\(net\.mutant=ip-checksum: ",
                 r"^netpeer: echo: 5 pings and 5 UDP datagrams: 0 came back right, 10 wrong, 0 "
                 r"lost$",
                 r"^net: client sent 10, received 0, wrong 10, lost 0$"],
         reject=[PASS, r"panic: ", r"trap: #"],
         last_line=r"^patchbay: FAIL net: the client got 10 datagrams back wrong$",
         status="fail", timeout=NATIVE_TIMEOUT),
    dict(name="net-no-end", args=["--net", "--net-count", "100000000"], cmdline="net.timeout=3",
         expect=[r"^net: eth0 up at 10\.0\.2\.15: .*waiting 3 s for the client's end$",
                 r"^net: rx \d+ frames, tx \d+, dropped: ",
                 r"^patchbay: FAIL net: no client's end within 3 s$"],
         reject=[PASS, r"panic: ", r"trap: #", r"^net: client sent"],
         # The client, still sending, is stopped after the verdict and says so.
         last_line=r"^udpclient: still running when the run ended, stopped$",
         status="fail", timeout=NATIVE_TIMEOUT),
]

# blkfront (xen/blkfront.c) against Linux dom0's blkback, through the domU
# door: the disk workload PV (persistent grants) and PVH (grants per
# request), each with the host's check of the file; and what ends a run
# early, each in one line: no vbd, a read-only disk asked to write, a
# backend that never connects (the frontend keeps its ring to itself:
# blkfront.fault=silent), a malformed response (blkfront.fault=badstatus),
# and a backend taken away mid-run (xl block-detach; below).
BLKFRONT_UP = (r"^blkfront: device/vbd/51712 connected to /local/domain/0/backend/vbd/\d+/51712 "
               r"\(domain 0\): port \d+, persistent grants %s, flush yes$")


def blkfront_ran(persistent):
    return [DISK_READY, BLKFRONT_UP % persistent,
            r"^block: xvda \(blkfront\): 8192 sectors of 512 bytes, write cache, queue depth 32$",
            r"^disk: flushed blocks 0-255 generation 1 seed 0x1$",
            r"^disk: xvda \(blkfront\): 256 blocks x 1 passes at depth 32, seed 0x1: written, "
            r"read back and checked, flushed$",
            r"^disk: 513 requests: \d+ notifications, \d+ interrupts ", PASS, DISK_CHECK_OK]


# Grant operations: with persistent grants the pool's, one per ring slot
# used; without, a grant and an end per request but the flush.
BLKFRONT_GRANTS = r"^disk: %d grant operations \(%s per request\)$"
# blkfront.trace (docs/io.md's walk-through): the read of sector 40 names
# its granted page, and the backend has let go of it once it answers.
BLKFRONT_TRACED = [
    r"^blkfront: trace:   = operation 0 \(BLKIF_OP_READ\), nr_segments 1, handle 0, id \d+, "
    r"sector_number 40, seg\[0\] gref \d+, sectors 0-7$",
    r"^blkfront: trace: grant entry before gnttab_end: 01 00 00 00 ",
    r"^blkfront: trace: grant entry after gnttab_end: 00 00 00 00 ",
    r"^blkfront: trace:   = id \d+, operation 0, status 0 \(BLKIF_RSP_OKAY\)$"]


def blkfront_refused(name, args, cmdline, verdict, expect=()):
    case = disk_refused(name, cmdline, verdict, args=args)
    case.update(expect=list(expect), timeout=DOMU_TIMEOUT)
    return case


CASES += [
    dict(name="disk-blkfront-pv", args=["--domu"] + disk_args("disk-blkfront-pv"),
         cmdline="disk=on disk.depth=32",
         expect=blkfront_ran("on") + [BLKFRONT_GRANTS % (32, "0.06")], last_line=DISK_CHECK_OK,
         timeout=DOMU_TIMEOUT),
    dict(name="disk-blkfront-pvh", args=["--domu", "--pvh"] + disk_args("disk-blkfront-pvh"),
         cmdline="disk=on disk.depth=32 blkfront.persistent=off blkfront.trace=40",
         expect=blkfront_ran("off") + [BLKFRONT_GRANTS % (1024, "1.99")] + BLKFRONT_TRACED,
         last_line=DISK_CHECK_OK, timeout=DOMU_TIMEOUT),
    blkfront_refused("disk-blkfront-none", ["--domu"], "disk=on",
                     r"disk=on but no block device: start with --disk FILE",
                     expect=[r"^blkfront: no disk: no vbd in xenstore$"]),
    blkfront_refused("disk-blkfront-read-only",
                     ["--domu"] + disk_args("disk-blkfront-read-only", suffix=":ro"), "disk=on",
                     r"disk: xvda is read-only, and disk=on writes: attach it writable"),
    blkfront_refused("disk-blkfront-never-connects", ["--domu"] + disk_args(
        "disk-blkfront-never-connects"), "disk=on blkfront.fault=silent blkfront.timeout=2",
        r"blkfront: device/vbd/51712: backend /local/domain/0/backend/vbd/\d+/51712 stayed "
        r"InitWait for 2 s \(we are Initialised\)",
        expect=[r"^blkfront: blkfront.fault=silent: the ring is not published$"]),
    blkfront_refused("disk-blkfront-bad-response", ["--domu"] + disk_args(
        "disk-blkfront-bad-response"), "disk=on blkfront.fault=badstatus",
        r"disk: the write of block 0 failed: malformed request",
        expect=[r"^blkfront: malformed response from the backend: response with a status that "
                r"is not a BLKIF_RSP_ value \(id \d+, operation 1, status 42\); counted, and it "
                r"fails its request if it names one$"]),
    # The real detach (tools/run --disk-detach): xl block-detach in dom0
    # once the guest's disk is up; libxl sets the backend Closing, which
    # still answers, and the watchdog's look once a second finds it. The
    # disk's 4096 blocks are written at depth 8 before any flush, so it
    # comes mid-pass; xl returns 0 once the frontend has closed.
    dict(name="disk-blkfront-backend-closes",
         args=["--domu", "--disk-detach"] + disk_args("disk-blkfront-backend-closes", size="16M"),
         cmdline="disk=on disk.blocks=4096 disk.depth=8",
         expect=[DISK_READY,
                 r"^blkfront: backend /local/domain/0/backend/vbd/\d+/51712 went Closing with "
                 r"\d+ requests in flight: they fail, as every request from now on$",
                 r"^patchbay: FAIL disk: (the (write|read) of block \d+ failed|a request for "
                 r"block \d+ was refused): device gone$",
                 r"^domu-door: xl block-detach \d+ xvda: status 0$"],
         reject=[PASS, r"^disk: flushed", r"^disk-check: ", r"trap: #", r"panic: "],
         status="fail", timeout=DOMU_TIMEOUT),
]

# Requests larger than the ring slot's 11 segments (disk.request=128K, 32
# pages): blkfront sends them as BLKIF_OP_INDIRECT, their segments in a
# granted page of their own, and the host checks every block as before.
# blkfront.indirect=off is the same run without: the workload is told
# xvda takes 44 KiB at most and sends requests of that size, none
# indirect. Natively, 64 KiB requests through virtio-blk's indirect
# descriptors (the flush's header and status too: 33 of 33).
def blkfront_request(name, cmdline, expect):
    return dict(name=name, args=["--domu"] + disk_args(name),
                cmdline=("disk=on disk.depth=8 disk.request=128K " + cmdline).strip(),
                expect=[DISK_READY, r"^disk: flushed blocks 0-255 generation 1 seed 0x1$",
                        r"^disk: xvda \(blkfront\): 256 blocks x 1 passes at depth 8, seed 0x1: "
                        r"written, read back and checked, flushed$", PASS] + expect,
                reject=CLEAN, last_line=DISK_CHECK_OK, timeout=DOMU_TIMEOUT)


CASES += [
    blkfront_request("disk-blkfront-indirect", "", [
        r"^blkfront: requests of up to 256 KiB: 64 segments, indirect beyond 11$",
        r"^disk: 17 requests: \d+ notifications, \d+ interrupts ",
        r"^disk: requests of 128 KiB: 16 indirect \(their segment list outside the ring\)$"]),
    blkfront_request("disk-blkfront-indirect-off", "blkfront.indirect=off", [
        r"^blkfront: requests of up to 44 KiB: 11 segments \(blkfront.indirect=off\)$",
        r"^disk: xvda takes at most 44 KiB a request: requests of 44 KiB, not "
        r"disk.request=128 KiB$",
        r"^disk: 49 requests: \d+ notifications, \d+ interrupts ",
        r"^disk: requests of 44 KiB: 0 indirect \(their segment list outside the ring\)$"]),
    dict(clean_boot("disk-virtio-request", disk_args("disk-virtio-request"), expect=[
        r"^disk: vda \(virtio-blk\): 256 blocks x 1 passes at depth 8, seed 0x1: written, "
        r"read back and checked, flushed$",
        r"^disk: 33 requests: \d+ notifications, \d+ interrupts ",
        r"^disk: requests of 64 KiB: 33 indirect \(their segment list outside the ring\)$",
        PASS, DISK_CHECK_OK]), cmdline="disk=on disk.request=64K", last_line=DISK_CHECK_OK),
]

# blkfront across a plan (kernel/lifecycle.c's hooks): after each resume it
# connects to the new domain's backend and sends the requests it held
# again; disk=on runs passes until the last resume, and the host checks
# the file after. The control forgets the held requests, neither sending
# them again nor completing them (blkfront.mutant=no-requeue): the
# watchdog finds the connected backend answering nothing for
# blkfront.timeout and fails them, and the workload with them.
BLKFRONT_AGAIN = (r"^blkfront: device/vbd/51712 reconnected to "
                  r"/local/domain/0/backend/vbd/%s/51712: port \d+, persistent grants on, (\d+) requests in flight sent again$")


def requests_held(console):
    """The plan proves nothing unless some step found requests in flight."""
    held = re.findall(BLKFRONT_AGAIN % r"\d+", console, re.M)
    return None if any(int(n) for n in held) else "no resume found a request in flight"


_STEPS = ["save-restore", "move"]
CASES += [
    dict(name="domu-lifecycle-disk-pv",
         args=["--domu"] + disk_args("domu-lifecycle-disk-pv") + ["--lifecycle", ",".join(_STEPS)],
         cmdline="disk=on",
         expect=[DISK_READY, BLKFRONT_UP % "on", LIFECYCLE_READY % 2,
                 BLKFRONT_AGAIN % 2, BLKFRONT_AGAIN % 3,
                 LIFECYCLE_SUSPEND % (1, 1), LIFECYCLE_RESUME % (1, 2, 1, 2),
                 LIFECYCLE_SUSPEND % (2, 2), LIFECYCLE_RESUME % (2, 2, 2, 3),
                 r"^disk: xvda \(blkfront\): 256 blocks x \d+ passes at depth 8, seed 0x1: "
                 r"written, read back and checked, flushed$",
                 r"^lifecycle: resumed 2 times, domains 1 2 3$", PASS,
                 r"^disk-check: 256 blocks verified on the host, 0 wrong; (\d+) flushes by the "
                 r"device for \1 claimed$"],
         reject=CLEAN + [r"^blkfront: backend "], check=requests_held,
         last_line=None, timeout=run_lifecycle.lifecycle_timeout(_STEPS, disk=True) + 60),
    dict(name="domu-lifecycle-disk-no-requeue",
         args=["--domu"] + disk_args("domu-lifecycle-disk-no-requeue") + [
             "--lifecycle", "save-restore"],
         cmdline="disk=on blkfront.mutant=no-requeue",
         expect=[LIFECYCLE_SUSPEND % (1, 1),
                 r"^blkfront: [1-9]\d* requests in flight forgotten \(blkfront.mutant=no-requeue\)$",
                 r"^blkfront: backend /local/domain/0/backend/vbd/2/51712 answered nothing for 10 s "
                 r"\(blkfront.timeout\) with [1-9]\d* requests in flight: they fail, as every "
                 r"request from now on$",
                 r"^patchbay: FAIL disk: the (write of block|read of block|flush after "
                 r"generation) \d+ failed: device gone$"],
         reject=[PASS, r"^lifecycle: resumed ", r"exit status \d+ not written"],
         # The host's check of the file follows the guest's verdict.
         last_line=None, status="fail",
         timeout=run_lifecycle.lifecycle_timeout(["save-restore"], disk=True) + 60),
]
