#!/usr/bin/env python3
"""tools/run --gdb under gdb in batch mode (tools/pbtools/run/gdb_watch.py): natively
and as a Xen PV dom0, gdb breaks at pv_patch_all and shows the
irq_disable site in spin_lock_irqsave with pb-site, runs to the end of the
patcher and shows it again, then kills QEMU. Before, the site's bytes in
memory are its bytes as linked; after, they are its own platform's form
(native: the native form; under Xen: the xen form), not the other
platform's, and pb-site names that form. The run ends as gdb's kill ends
it (status 101, "patchbay: FAIL gdb killed QEMU"), and no QEMU is left.

--swap expects each platform to write the other's form: the "after"
checks must then fail (the negative control; exit 1).
Ends with "N passed, N failed"."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from pbtools.run.gdb_watch import watch_site  # noqa: E402
from report import check, summary  # noqa: E402

OP, FUNCTION = "irq_disable", "spin_lock_irqsave"  # a cli site
# platform: (the label of the form it writes, the other platform's)
FORMS = {"native": ("native:", "xen-pv:"), "xen": ("xen-pv:", "native:")}
TIMEOUT = 180  # seconds, for tools/run and for gdb
ROW = re.compile(r"^  (\S.*?)\s{2,}((?:[0-9a-f]{2} )*[0-9a-f]{2})  (.*)$")


def tables(transcript):
    """Each pb-site table in transcript, as {label: (hex bytes, text)}."""
    out = []
    for line in transcript.splitlines():
        if line.startswith("site 0x"):
            out.append({})
        m = ROW.match(line)
        if m and out:
            out[-1][m.group(1)] = (m.group(2), m.group(3))
    return out


def row(table, prefix):
    """The (bytes, text) of table's row whose label starts with prefix."""
    return next((v for k, v in table.items() if k.startswith(prefix)), (None, ""))


def check_platform(platform, swap):
    """One watch on platform, and what it must show."""
    own, other = FORMS[platform][::-1] if swap else FORMS[platform]
    s = watch_site(platform, OP, FUNCTION, TIMEOUT)
    name = "%s: " % platform
    found = tables(s.transcript)
    if not check(name + "gdb showed the site before and after the patcher", len(found) == 2,
                 "tools/run's stderr:\n%s\ngdb:\n%s" % (s.errors, s.transcript)):
        found = [{}, {}]
    before, after = found[:2]
    now, linked = row(before, "now"), row(before, "as linked")
    check(name + "before: the bytes as linked", now[0] and now[0] == linked[0]
          and now[1] == "= as linked", "%s, as linked %s" % (now, linked))
    now, mine, theirs = row(after, "now"), row(after, own), row(after, other)
    check(name + "after: %s form, named so" % own.rstrip(":"),
          now[0] and now[0] == mine[0] and own in now[1], "%s, %s %s" % (now, own, mine))
    check(name + "after: not %s form, nor as linked" % other.rstrip(":"),
          now[0] and now[0] not in (theirs[0], row(after, "as linked")[0]),
          "%s, %s %s" % (now, other, theirs))
    check(name + "the run ends as gdb's kill ends it", s.ended_by_kill(),
          "status %s, verdicts %s" % (s.status, s.verdicts()))
    check(name + "no QEMU left running", not s.stray, "killed %s" % s.stray)


def main():
    swap = sys.argv[1:] == ["--swap"]
    if sys.argv[1:] and not swap:
        sys.exit("usage: test_gdb.py [--swap]")
    for platform in FORMS:
        check_platform(platform, swap)
    sys.exit(summary())


if __name__ == "__main__":
    main()
