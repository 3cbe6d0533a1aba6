#!/usr/bin/env python3
"""What the patcher does to the image's sites, against a recorded expectation.

    pytest-3 tests/pv/test_expected_sites.py [--image ELF] [--expect FILE]
    tests/pv/test_expected_sites.py --record [--image ELF] [--expect FILE]

Lists every site of the image with tools/pvsites --json --disasm (which runs
the kernel's own patcher through pvemit) and reduces each to
(op, len, clobbers, native, native-condsti, xen-pv): what each platform
makes of it, native with either pv.restore_fl template. A kind is the
outcome, and for an inline replacement the instructions written
(mnemonics, NOP padding left out): "inline:cli", "call",
"kept-no-template". Addresses and the functions holding sites are left out
on purpose, so code moving or being renamed does not disturb the test; a
site gained, lost, or patched differently does.

xen-pvh has no column: it takes the native form, so its column would
repeat native's. One more check says so instead: at every site xen-pvh
writes exactly what native writes, in the native form. Should PVH ever
take a form of its own, that check fails, and xen-pvh needs its column.

The expectation (tests/pv/expected_sites.txt) is a count per distinct tuple.
Each tuple seen in the expectation or the image is one test, passing when
the counts agree; a failing one shows the expectation's rows and the
image's for that op, expectation first. --record rewrites the
expectation from the image instead (run as a command, not under pytest):
do that only when a change of sites is intended, and commit the diff with
the change."""

import argparse
import collections
import functools
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE = os.path.join(ROOT, "build", "patchbay.elf")
EXPECT = os.path.join(ROOT, "tests", "pv", "expected_sites.txt")
COLUMNS = ["count", "op", "len", "clobbers", "native", "native-condsti", "xen-pv"]

# Intel SDM vol. 2B, "NOP": the padding the patcher fills a site with
# (up to 9 bytes; longer, a jmp over int3s).
NOPS = {"90", "6690", "0f1f00", "0f1f4000", "0f1f440000", "660f1f440000",
        "0f1f8000000000", "0f1f840000000000", "660f1f840000000000"}


def kind(backend):
    """One backend's replacement as a short stable word."""
    if backend is None:
        return "absent"
    if backend.get("result") is None:  # pvsites found no Xen context in the image
        return "no-context"
    if backend["result"] != "inline":
        return backend["result"]
    lines = backend["disasm"]
    if len(lines) > 1 and lines[0][1].startswith("eb") and lines[1][2].startswith("int3"):
        lines = lines[2:]  # padding past the longest NOP: jmp over int3s
    code = [text.split()[0] for _, hexbytes, text in lines
            if hexbytes.replace(" ", "") not in NOPS]
    return "inline:" + (",".join(code) if code else "nop")


def site_tuple(site):
    backends = site.get("backends", {})
    # pvsites shows the two native forms apart only where they differ.
    native = backends.get("native") or backends.get("native (push/popf)")
    condsti = backends.get("native") or backends.get("native (condsti)")
    return (site["op"], str(site["len"]), ",".join(site["clobbers"]) or "-",
            kind(native), kind(condsti), kind(backends.get("xen-pv")))


def written(site, platform):
    """{restore_fl template or None: (form, result, bytes)}: what one
    platform writes at a site."""
    return {e["variant"]: (e["form"], e["result"], e.get("bytes"))
            for e in site.get("backends", {}).values() if e["platform"] == platform}


def pvh_problems(sites):
    """The sites where xen-pvh does not write the native form's bytes."""
    problems = []
    for s in sites:
        native, pvh = written(s, "native"), written(s, "xen-pvh")
        if not native or native != pvh or any(form != "native" for form, _, _ in pvh.values()):
            problems.append(f"site 0x{s['addr']:x} {s['op']}: native {native}, xen-pvh {pvh}")
    return problems


@functools.lru_cache(maxsize=None)
def image_sites(image):
    """pvsites' sites of image, read once per run."""
    try:
        out = subprocess.run([os.path.join(ROOT, "tools", "pvsites"), image, "--json",
                              "--disasm"], check=True, capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as e:
        sys.exit(f"test_expected_sites: tools/pvsites failed: {e.stderr.strip()}")
    return json.loads(out)


def format_counts(counts):
    rows = [[str(n)] + list(t) for t, n in sorted(counts.items())]
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(COLUMNS)]
    lines = ["# " + "  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)).rstrip()]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return lines


@functools.lru_cache(maxsize=None)
def read_expectation(path):
    counts = collections.Counter()
    with open(path) as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != len(COLUMNS) or not fields[0].isdigit():
                sys.exit(f"{path}:{number}: want {len(COLUMNS)} fields "
                         f"({' '.join(COLUMNS)}), got: {line.strip()}")
            counts[tuple(fields[1:])] += int(fields[0])
    return counts


HEADER = """\
# The paravirt sites of build/patchbay.elf and what each platform writes there,
# counted per distinct row; checked by tests/pv/test_expected_sites.py
# (make tools-test), rewritten by it with --record. Kinds: "inline:" and the
# instructions written (padding left out), "call" (a direct call), or why
# the indirect call stays ("kept-no-template", "kept-too-long"). native-condsti
# is native with pv.restore_fl=condsti. xen-pvh writes the native columns
# (the native form); the test checks that at every site instead of a column.
"""


def counts(image, expect):
    """(expected, actual): the count of each tuple in the expectation and
    in the image."""
    return (read_expectation(expect),
            collections.Counter(site_tuple(s) for s in image_sites(image)))


def pytest_generate_tests(metafunc):
    """One test per tuple the expectation or the image holds."""
    if "row" in metafunc.fixturenames:
        expected, actual = counts(metafunc.config.getoption("--image"),
                                  metafunc.config.getoption("--expect"))
        rows = sorted(set(expected) | set(actual))
        metafunc.parametrize("row", rows, ids=[" ".join(t) for t in rows])


def test_xen_pvh_writes_the_native_form(image):
    sites = image_sites(image)
    pvh = pvh_problems(sites)
    assert not pvh, ("xen-pvh does not write the native form at %d of %d sites: give it a "
                     "column of its own\n" % (len(pvh), len(sites))
                     + "\n".join(pvh[:10]) + ("\n... and %d more" % (len(pvh) - 10)
                                              if len(pvh) > 10 else ""))


def test_row_count_as_expected(image, expect, row):
    expected, actual = counts(image, expect)
    op = [t for t in sorted(set(expected) | set(actual)) if t[0] == row[0]]
    assert expected[row] == actual[row], (
        "expected %d, image has %d; the op's rows, expected then the image's:\n%s\n%s\n"
        "If the change is intended, run tests/pv/test_expected_sites.py --record and commit "
        "the new expectation." % (expected[row], actual[row],
                                  "\n".join(format_counts({t: expected[t] for t in op})),
                                  "\n".join(format_counts({t: actual[t] for t in op}))))


def main():
    """--record: the image's sites written to the expectation file."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--image", default=IMAGE)
    ap.add_argument("--expect", default=EXPECT)
    ap.add_argument("--record", action="store_true",
                    help="write the image's sites to the expectation file")
    args = ap.parse_args()
    if not args.record:
        ap.error("the check runs under pytest: pytest-3 tests/pv/test_expected_sites.py")
    actual = collections.Counter(site_tuple(s) for s in image_sites(args.image))
    with open(args.expect, "w") as f:
        f.write(HEADER + "\n".join(format_counts(actual)) + "\n")
    print(f"test_expected_sites: recorded {sum(actual.values())} sites "
          f"({len(actual)} rows) to {os.path.relpath(args.expect, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
