"""The test suite's one list: every group `make test` and `make quick` run,
in which lane, and what each group runs. tests/run_suite.py runs them;
tools/make_help.py lists them under `make help`.

A group is a name, a one-line description, and commands run one after
another, each from the top of the tree with $BUILD set; a command passes
when it exits 0. A command that ends with its own count, `N passed, N
failed` (the boot tests') or pytest's closing line (the host-side Python
tests, `pytest-3 FILE...`), counts as those tests, any other as one. The two
lanes run side by side, each group after the one before it in its lane;
every QEMU waits for a free CPU (tools/pbtools/run/cpu_slots.py), so the lanes never
put more boots on the machine than it has CPUs."""

import os

BUILD = os.environ.get("BUILD", "build")
IMAGE = os.path.join(BUILD, "patchbay.elf")


def pytest(folder, *names):
    """One pytest run of tests/FOLDER/test_NAME.py for each name: one
    start-up for files that sit together."""
    return "pytest-3 " + " ".join("tests/%s/test_%s.py" % (folder, n) for n in names)

# Host-side checks of the tools, each a few seconds (test_gdb,
# test_platform_sites and test_try_it boot QEMU: about a minute together).
TOOLS = [
    "tests/tools/test_pvsites.sh",
    "tests/tools/test_tour.sh",
    "tests/tools/test_ksyms.sh",
    "tests/tools/test_build.sh",
    pytest("tools", "layout", "tool_files", "paths", "cpu_slots", "run_suite", "dom0_template",
           "doclinks", "prose_check", "run_args", "tool_cli", "results_format", "diskcheck",
           "udpclient", "result_lines", "bench_linux", "linux_net"),
    pytest("tools", "gdb", "try_it"),
    "tools/tour --check",
    pytest("pv", "expected_sites", "platform_sites"),
]

# One boot of each door but the domU's (which fetches Debian's Linux).
QUICK_BOOTS = ["pvh-boot", "iso-boot", "xen-boot", "xen-pvh-boot", "bad-value", "iso-cpu-qemu32"]

# name: (lane, description, commands). Lanes: "heavy" holds the long QEMU
# work that does not run under icount; "light" everything else.
GROUPS = {
    "docs": ("heavy", "gen-docs --check: every generated block of docs/ and README against "
             "fresh boots under icount", ["tools/gen-docs --check"]),
    "boot": ("heavy", "the boot cases not under icount (tests/boot/cases.py), but KVM's",
             ["python3 tests/boot/run_boot_tests.py --icount skip --kvm skip"]),
    "unit": ("light", "cmocka unit tests of the kernel's pure code, on the host",
             ["make -s unit-test"]),
    "tools": ("light", "the tools' own checks: sites, tour, layout, links, prose, doors",
              TOOLS),
    "pv": ("light", "patched sites against the PARAVIRT=n build; adding an op, worked",
           [pytest("pv", "native_equivalence"), "tests/pv/test_add_op.sh"]),
    "xen": ("light", "Xen's readnotes, the domU door's cache and dom0 templates, guests that "
            "crash early",
            ["tests/xen/test_readnotes.sh " + IMAGE, "tests/domu/test_fetch_domu.sh",
             "tests/domu/test_dom0_template.sh",
             "tests/domu/test_domu_crash.sh " + IMAGE, "tests/xen/test_pvh_crash.sh " + IMAGE]),
    "fuzz": ("light", "every libFuzzer target over its corpus, then briefly fresh",
             ["make -s fuzz-test"]),
    "boot-icount": ("light", "the boot cases under icount",
                    ["python3 tests/boot/run_boot_tests.py --icount only"]),
    "bench": ("light", "every benchmark in every configuration, few iterations (checks, "
              "never timings); bench-host's checks",
              ["pytest-3 tests/bench/test_bench_host.py tests/bench/test_bench_pvh.py "
               "tests/bench/test_bench_net.py", "tests/bench/test_bench.sh"]),
    # After bench: explore's tests show bench's run (build/bench/results.json).
    "explore": ("light", "the explorer's pages, and in Chromium", ["make -s explore-test"]),
    # Last in the light lane: without them it ended about two minutes before
    # the heavy one, which left a CPU idle.
    "boot-kvm": ("light", "the boot cases through the --kvm door, not under icount",
                 ["python3 tests/boot/run_boot_tests.py --icount skip --kvm only"]),
}

# What `make quick` runs: the inner loop, a few minutes.
QUICK = {
    "unit": GROUPS["unit"],
    "tools-quick": ("light", "the tools' host checks that boot nothing", [
        pytest("tools", "layout", "tool_files", "paths", "cpu_slots", "run_suite",
               "dom0_template", "doclinks", "result_lines", "bench_linux", "linux_net"),
        pytest("pv", "expected_sites"),
        pytest("bench", "bench_host", "bench_pvh", "bench_net"),
        "tools/tour --check",
        "python3 tools/prose_check.py",
    ]),
    "boot-quick": ("heavy", "one boot of each door but the domU's",
                   ["python3 tests/boot/run_boot_tests.py "
                    + " ".join("--name " + n for n in QUICK_BOOTS)]),
}

SUITES = {"test": GROUPS, "quick": QUICK}
