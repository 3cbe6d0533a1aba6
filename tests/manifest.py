"""The test suite's one list: every group `make test` and `make quick` run,
in which lane, and what each group runs. tests/run_suite.py runs them;
tools/make_help.py lists them under `make help`.

A group is a name, a one-line description, and commands run one after
another, each from the top of the tree with $BUILD set; a command passes
when it exits 0. A command that prints its own `N passed, N failed` line
(the boot tests do) counts as its N tests, any other as one. The two
lanes run side by side, each group after the one before it in its lane;
every QEMU waits for a free CPU (tools/pbtools/run/cpu_slots.py), so the lanes never
put more boots on the machine than it has CPUs."""

import os

BUILD = os.environ.get("BUILD", "build")
IMAGE = os.path.join(BUILD, "patchbay.elf")

# Host-side checks of the tools, each a few seconds (test_gdb,
# test_platform_sites and test_try_it boot QEMU: about a minute together).
TOOLS = [
    "tests/tools/test_pvsites.sh",
    "tests/tools/test_tour.sh",
    "tests/tools/test_ksyms.sh",
    "tests/tools/test_build.sh",
    "python3 tests/tools/test_layout.py",
    "python3 tests/tools/test_tool_files.py",
    "python3 tests/tools/test_paths.py",
    "pytest-3 tests/tools/test_cpu_slots.py tests/tools/test_run_suite.py",
    "python3 tests/tools/test_dom0_template.py",
    "python3 tests/tools/test_doclinks.py",
    "python3 tests/tools/test_prose_check.py",
    "python3 tests/tools/test_run_args.py",
    "pytest-3 tests/tools/test_tool_cli.py tests/tools/test_results_format.py "
    "tests/tools/test_diskcheck.py tests/tools/test_udpclient.py",
    "python3 tests/tools/test_result_lines.py",
    "pytest-3 tests/tools/test_bench_linux.py tests/tools/test_linux_net.py",
    "python3 tests/tools/test_gdb.py",
    "python3 tests/tools/test_try_it.py",
    "tools/tour --check",
    "pytest-3 tests/pv/test_expected_sites.py tests/pv/test_platform_sites.py",
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
           ["pytest-3 tests/pv/test_native_equivalence.py", "tests/pv/test_add_op.sh"]),
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
        "python3 tests/tools/test_layout.py",
        "python3 tests/tools/test_tool_files.py",
        "python3 tests/tools/test_paths.py",
        "pytest-3 tests/tools/test_cpu_slots.py tests/tools/test_run_suite.py",
        "python3 tests/tools/test_dom0_template.py",
        "python3 tests/tools/test_doclinks.py",
        "python3 tests/tools/test_result_lines.py",
        "pytest-3 tests/tools/test_bench_linux.py tests/tools/test_linux_net.py",
        "pytest-3 tests/pv/test_expected_sites.py",
        "pytest-3 tests/bench/test_bench_host.py tests/bench/test_bench_pvh.py "
        "tests/bench/test_bench_net.py",
        "tools/tour --check",
        "python3 tools/prose_check.py",
    ]),
    "boot-quick": ("heavy", "one boot of each door but the domU's",
                   ["python3 tests/boot/run_boot_tests.py "
                    + " ".join("--name " + n for n in QUICK_BOOTS)]),
}

SUITES = {"test": GROUPS, "quick": QUICK}
