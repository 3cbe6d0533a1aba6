#!/usr/bin/env python3
"""Each platform writes at every site what tools/pvsites says it writes.

    tests/pv/test_platform_sites.py [--image ELF] [--platform NAME]...

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
Console logs go to build/test-logs/pv-platform-sites-PLATFORM.log. Ends with
"N passed, N failed"; exits 1 if any check failed.
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in tools/ or tests/
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from pbtools.bench import configs as bench_configs  # noqa: E402
from pbtools.explore import sites as explore_sites  # noqa: E402
from report import check_problems, summary  # noqa: E402
from test_native_equivalence import TRACE  # noqa: E402  (the pv.trace=1 line)

LOGS = os.path.join(ROOT, "build", "test-logs")
TIMEOUT = "180"
# The restore_fl template a boot asks for where it is not the default
# (push/popf), so that between the boots both are seen written. Only
# there: pv.restore_fl is refused where the native forms are not in use.
RESTORE_FL = {"xen-pvh": "condsti"}
SUMMARY = re.compile(r"^pv: (\S+) ops, patched \d+/\d+ sites", re.M)


def boot(image, platform, template):
    """The console of one boot of the platform with pv.trace=1; None
    (after a failed check) when it did not boot to its verdict."""
    log = os.path.join(LOGS, "pv-platform-sites-%s.log" % platform)
    os.makedirs(LOGS, exist_ok=True)
    cmd = ([os.path.join(ROOT, "tools", "run"), "--quiet", "--log", log, "--timeout", TIMEOUT,
            "--image", image] + bench_configs.DOORS[platform] + ["--", "pv.trace=1"]
           + (["pv.restore_fl=%s" % template] if platform in RESTORE_FL else []))
    status = subprocess.call(cmd, stdout=subprocess.DEVNULL)
    with open(log, errors="replace") as f:
        console = f.read().replace("\r", "")
    if status != 0:
        check_problems("%s: the boot passes" % platform,
                       ["%s: exit status %d; see %s" % (" ".join(cmd[1:]), status, log)])
        return None
    return console


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


def check_platform(image, platform, sites, forms):
    """Every check of one platform's boot."""
    template = RESTORE_FL.get(platform, "push/popf")
    name = platform + (" (pv.restore_fl=%s)" % template if platform in RESTORE_FL else "")
    console = boot(image, platform, template)
    if console is None:
        return
    door = re.search(r"^patchbay: booting via (\S+)", console, re.M)
    check_problems("%s: came in by its door" % name,
                   [] if door and door.group(1).split("/")[0] == platform else
                   ["booting via %s" % (door.group(1) if door else "(no line)")])
    traced, twice = trace(console)
    missing, before_wrong, after_wrong = site_problems(platform, template, sites, traced)
    check_problems("%s: all %d sites traced, each once" % (name, len(sites)), twice + missing)
    check_problems("%s: every site's bytes before patching are the image's" % name, before_wrong)
    check_problems("%s: every site holds what pvsites says %s writes" % (name, platform),
                   after_wrong)
    said = SUMMARY.findall(console)
    check_problems("%s: the boot patched with the %s form, as pvsites says"
                   % (name, forms[platform]),
                   [] if said == [forms[platform]] else
                   ["the boot says it patched with %s" % (said or "nothing")])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "patchbay.elf"))
    ap.add_argument("--platform", action="append", metavar="NAME",
                    help="boot only this platform (default: every one pvsites shows)")
    args = ap.parse_args()
    try:
        sites = explore_sites.read_sites(args.image)
        forms = explore_sites.platforms()
    except explore_sites.InputError as e:
        sys.exit("test_platform_sites: %s" % e)
    for platform in args.platform or forms:
        if platform not in forms:
            sys.exit("test_platform_sites: no platform %s (%s)" % (platform, ", ".join(forms)))
        check_platform(args.image, platform, sites, forms)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
