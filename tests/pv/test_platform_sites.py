"""Each platform writes at every site what tools/pvsites says it writes.

    pytest-3 tests/pv/test_platform_sites.py [--image ELF] [--platform NAME]...

Which site form a platform takes is decided by the kernel, in each
platform's install function (the patch table it installs); pvsites and the
explorer take it from pvemit's table (PLATFORMS in tools/pvemit.c), which
only repeats it. This test holds the two together: it boots the image once
per platform with pv.trace=1, which prints every site's bytes before and
after patching, natively and as Xen's dom0 (each platform by its door,
tools/pbtools/bench/configs.py's DOORS), xen-pvh with pv.restore_fl=condsti so that
both restore_fl templates are seen booted, and checks against
`tools/pvsites --json --disasm`:

1. the kernel came in by the platform's door ("patchbay: booting via ...");
2. every site of the image is traced exactly once, and nothing else;
3. each site's bytes before patching are the image's, as linked;
4. after patching, each site holds the bytes pvsites gives for that
   platform and restore_fl template, with the same outcome (inline, call,
   or the indirect call kept);
5. the boot's summary, "pv: FORM ops, patched ...", names the site form
   pvsites says the platform takes.

A boot takes seconds (native about 4, xen-pv 6, xen-pvh about 30: Xen
builds a PVH dom0 behind an emulated IOMMU); the boots run one at a time.
Console logs go to build/test-logs/pv-platform-sites-PLATFORM.log. Each
check is a test per platform; a boot that fails fails them all.
"""

import os
import re
import subprocess
import sys

import pytest
from pbtools.bench import configs as bench_configs
from pbtools.explore import sites as explore_sites

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from test_native_equivalence import TRACE  # noqa: E402  (the pv.trace=1 line)

LOGS = os.path.join(ROOT, "build", "test-logs")
TIMEOUT = "180"
# The restore_fl template a boot asks for where it is not the default
# (push/popf), so that between the boots both are seen written. Only
# there: pv.restore_fl is refused where the native forms are not in use.
RESTORE_FL = {"xen-pvh": "condsti"}
SUMMARY = re.compile(r"^pv: (\S+) ops, patched \d+/\d+ sites", re.M)
SHOWN = 10  # problems a failure lists; the rest are counted
# Each test of a platform may wait for its boot: a CPU slot, then up to
# TIMEOUT seconds of QEMU.
pytestmark = pytest.mark.timeout(900)


def boot(image, platform, template):
    """The console of one boot of the platform with pv.trace=1; fails the
    test when it did not boot to its verdict."""
    log = os.path.join(LOGS, "pv-platform-sites-%s.log" % platform)
    os.makedirs(LOGS, exist_ok=True)
    cmd = ([os.path.join(ROOT, "tools", "run"), "--quiet", "--log", log, "--timeout", TIMEOUT,
            "--image", image] + bench_configs.DOORS[platform] + ["--", "pv.trace=1"]
           + (["pv.restore_fl=%s" % template] if platform in RESTORE_FL else []))
    status = subprocess.call(cmd, stdout=subprocess.DEVNULL)
    if status != 0:
        pytest.fail("%s: the boot passes: %s: exit status %d; see %s"
                    % (platform, " ".join(cmd[1:]), status, log))
    with open(log, errors="replace") as f:
        return f.read().replace("\r", "")


def written(site, platform, template):
    """(pvsites' entry for what platform writes at site with the restore_fl
    template, or None; a problem or None)."""
    entries = [e for e in site["backends"].values()
               if e["platform"] == platform and e["variant"] in (None, template)]
    if len(entries) != 1:
        return None, "site 0x%x %s: pvsites has %d entries for %s (%s)" % (
            site["addr"], site["op"], len(entries), platform, template)
    return entries[0], None


def site_problems(platform, template, sites, traced):
    """Checks 2 to 4 for one boot's trace: {addr: (op, before, after, result)}."""
    missing, before_wrong, after_wrong = [], [], []
    for site in sites:
        if site["addr"] not in traced:
            missing.append("site 0x%x %s: not traced" % (site["addr"], site["op"]))
            continue
        op, before, after, result = traced[site["addr"]]
        if before != site["bytes"]:
            before_wrong.append("site 0x%x %s: before patching %s, the image has %s"
                                % (site["addr"], op, before, site["bytes"]))
        entry, problem = written(site, platform, template)
        if problem:
            after_wrong.append(problem)
            continue
        # A site kept indirect is left as linked, which pvsites shows as no bytes.
        want = entry["bytes"] or site["bytes"]
        if (after, result) != (want, entry["result"]):
            after_wrong.append("site 0x%x %s: %s wrote %s (%s), pvsites says %s: %s (%s)"
                               % (site["addr"], op, platform, after, result, entry["label"],
                                  want, entry["result"]))
    addrs = {s["addr"] for s in sites}
    missing += ["0x%x: traced, but no site of the image" % a for a in traced if a not in addrs]
    return missing, before_wrong, after_wrong


def trace(console):
    """{addr: (op, before, after, result)} from the pv.trace=1 lines, the
    result in pvemit's words; and the addresses traced more than once."""
    traced, twice = {}, []
    for addr, op, _, before, after, result in TRACE.findall(console):
        addr = int(addr, 16)
        if addr in traced:
            twice.append("0x%x: traced twice" % addr)
        traced[addr] = (op, before.strip(), after.strip(), result.replace(": ", "-")
                        .replace(" ", "-"))
    return traced, twice


def listed(problems):
    """problems one a line, the first SHOWN of them and how many more."""
    more = ["... and %d more" % (len(problems) - SHOWN)] if len(problems) > SHOWN else []
    return "\n".join(problems[:SHOWN] + more)


def pytest_generate_tests(metafunc):
    """The platforms pvsites shows, or those --platform names: one boot
    each, shared by its tests."""
    if "platform" in metafunc.fixturenames:
        forms = explore_sites.platforms()
        chosen = metafunc.config.getoption("--platform") or list(forms)
        unknown = [p for p in chosen if p not in forms]
        if unknown:
            raise pytest.UsageError("no platform %s (%s)" % (", ".join(unknown),
                                                             ", ".join(forms)))
        metafunc.parametrize("platform", chosen, scope="module")


@pytest.fixture(scope="module")
def sites(image):
    try:
        return explore_sites.read_sites(image)
    except explore_sites.InputError as e:
        pytest.fail("test_platform_sites: %s" % e)


@pytest.fixture(scope="module")
def forms():
    return explore_sites.platforms()


@pytest.fixture(scope="module")
def booted(image, platform):
    """(restore_fl template, console) of the platform's one boot."""
    template = RESTORE_FL.get(platform, "push/popf")
    return template, boot(image, platform, template)


@pytest.fixture(scope="module")
def traced(booted, platform, sites):
    """(traced twice or missing, before wrong, after wrong) of the boot."""
    template, console = booted
    traced, twice = trace(console)
    missing, before_wrong, after_wrong = site_problems(platform, template, sites, traced)
    return twice + missing, before_wrong, after_wrong


def test_came_in_by_its_door(booted, platform):
    door = re.search(r"^patchbay: booting via (\S+)", booted[1], re.M)
    assert door and door.group(1).split("/")[0] == platform, \
        "booting via %s" % (door.group(1) if door else "(no line)")


def test_every_site_traced_once(traced, sites):
    assert not traced[0], "all %d sites traced, each once:\n%s" % (len(sites),
                                                                  listed(traced[0]))


def test_bytes_before_patching_are_the_images(traced):
    assert not traced[1], "every site's bytes before patching are the image's:\n" + \
        listed(traced[1])


def test_every_site_holds_what_pvsites_says(traced, platform):
    assert not traced[2], "every site holds what pvsites says %s writes:\n%s" % (
        platform, listed(traced[2]))


def test_patched_with_the_form_pvsites_says(booted, platform, forms):
    said = SUMMARY.findall(booted[1])
    assert said == [forms[platform]], \
        "the boot patched with the %s form, as pvsites says: the boot says it patched with " \
        "%s" % (forms[platform], said or "nothing")
