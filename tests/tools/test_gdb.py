#!/usr/bin/env python3
"""tools/run --gdb under gdb in batch mode (tools/pbtools/run/gdb_watch.py): natively
and as a Xen PV dom0, gdb breaks at pv_patch_all and shows the
irq_disable site in spin_lock_irqsave with pb-site, runs to the end of the
patcher and shows it again, then kills QEMU. Before, the site's bytes in
memory are its bytes as linked; after, they are its own platform's form
(native: the native form; under Xen: the xen form), not the other
platform's, and pb-site names that form. The run ends as gdb's kill ends
it (status 101, "patchbay: FAIL gdb killed QEMU"), and no QEMU is left.

`pytest-3 tests/tools/test_gdb.py --swap` expects each platform to write
the other's form: the "after" tests must then fail (the negative control;
exit 1)."""

import re

import pytest
from pbtools.run.gdb_watch import watch_site

OP, FUNCTION = "irq_disable", "spin_lock_irqsave"  # a cli site
# platform: (the label of the form it writes, the other platform's)
FORMS = {"native": ("native:", "xen-pv:"), "xen": ("xen-pv:", "native:")}
TIMEOUT = 180  # seconds, for tools/run and for gdb
# Each test's limit, its platform's watch included; waiting for a free CPU
# on a loaded machine makes it longer than the watch's own time-outs.
pytestmark = pytest.mark.timeout(900)
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


class Watched:
    """One watch on a platform, and the forms it must and must not show."""

    def __init__(self, platform, swap):
        self.platform = platform
        self.own, self.other = FORMS[platform][::-1] if swap else FORMS[platform]
        self.site = watch_site(platform, OP, FUNCTION, TIMEOUT)
        self.found = tables(self.site.transcript)

    def tables(self):
        """The tables before and after the patcher; fails the test without both."""
        assert len(self.found) == 2, \
            "%s: gdb showed the site before and after the patcher; " \
            "tools/run's stderr:\n%s\ngdb:\n%s" % (self.platform, self.site.errors,
                                                  self.site.transcript)
        return self.found


@pytest.fixture(scope="module", params=list(FORMS))
def watched(request):
    """The platform's watch, once for all its tests."""
    return Watched(request.param, request.config.getoption("swap"))


def test_site_shown_before_and_after(watched):
    watched.tables()


def test_before_bytes_as_linked(watched):
    before = watched.tables()[0]
    now, linked = row(before, "now"), row(before, "as linked")
    assert now[0] and now[0] == linked[0] and now[1] == "= as linked", \
        "%s: before: the bytes as linked: %s, as linked %s" % (watched.platform, now, linked)


def test_after_own_form_named_so(watched):
    after, own = watched.tables()[1], watched.own
    now, mine = row(after, "now"), row(after, own)
    assert now[0] and now[0] == mine[0] and own in now[1], \
        "%s: after: %s form, named so: %s, %s %s" % (watched.platform, own.rstrip(":"), now,
                                                     own, mine)


def test_after_not_other_form_nor_as_linked(watched):
    after, other = watched.tables()[1], watched.other
    now, theirs = row(after, "now"), row(after, other)
    assert now[0] and now[0] not in (theirs[0], row(after, "as linked")[0]), \
        "%s: after: not %s form, nor as linked: %s, %s %s" % (
            watched.platform, other.rstrip(":"), now, other, theirs)


def test_run_ends_as_gdbs_kill_ends_it(watched):
    s = watched.site
    assert s.ended_by_kill(), "%s: the run ends as gdb's kill ends it: status %s, verdicts %s" % (
        watched.platform, s.status, s.verdicts())


def test_no_qemu_left_running(watched):
    assert not watched.site.stray, "%s: no QEMU left running: killed %s" % (
        watched.platform, watched.site.stray)
