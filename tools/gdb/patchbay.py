"""patchbay's gdb commands. tools/run --gdb prints the command that loads
them (gdb -x tools/gdb/patchbay.py); `help pb-site` says more in gdb.

  pb-site OP [FUNCTION]   the first OP site (in FUNCTION): its bytes as linked,
  pb-site ADDRESS         as each platform writes them, and now, in memory
  pb-sites [OP]           every site (of OP) and which of those forms it has now

What the image says (the sites, their bytes as linked, what each platform
writes) comes from tools/pvsites, which runs the kernel's own patcher
built for the host (tools/pvemit.c), in the table docs/ shows
(tools/pbtools/elf/site_table.py); only "now" is read here, from the machine's
memory, through the page tables of the CPU gdb has selected."""

import os
import sys

import gdb

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True  # no __pycache__ in tools/
sys.path.insert(0, os.path.join(ROOT, "tools"))  # gdb's Python does not put tools/ there
from pbtools.elf import pvsites  # noqa: E402
from pbtools.elf.site_table import disasm_text, form_rows, site_table  # noqa: E402


class Sites:
    """The image's sites and each one's --disasm details, read once per
    image file (rebuilt images are read again)."""

    def __init__(self):
        self.key = None

    def load(self):
        path = gdb.current_progspace().filename
        if path is None:
            raise gdb.GdbError("no image loaded: start gdb with build/patchbay.elf")
        key = (path, os.stat(path).st_mtime_ns)
        if key != self.key:
            try:
                self.image = pvsites.open_image(path)
                self.sites = pvsites.read_sites(self.image)
            except pvsites.ToolError as e:
                raise gdb.GdbError(str(e))
            self.detailed = set()
            self.key = key
        return self.sites

    def detail(self, sites):
        """sites, each with its bytes as linked and per platform added."""
        todo = [s for s in sites if s["addr"] not in self.detailed]
        if todo:
            try:
                pvsites.add_disasm(self.image, todo)
            except pvsites.ToolError as e:
                raise gdb.GdbError(str(e))
            self.detailed.update(s["addr"] for s in todo)
        return sites


SITES = Sites()


def read_now(site):
    """The site's bytes in memory now, or raise gdb.GdbError saying why not."""
    try:
        return bytes(gdb.selected_inferior().read_memory(site["addr"], site["len"]))
    except gdb.MemoryError as e:
        raise gdb.GdbError("cannot read 0x%x through this CPU's page tables (%s): under "
                           "Xen, stop where the guest runs (e.g. a breakpoint in it)"
                           % (site["addr"], e))


def now_form(site, now):
    """Which of the site's forms now (its bytes in memory) is, as a phrase
    naming each whose bytes it equals, or None."""
    same = [label for label, hexbytes, _ in form_rows(site) if hexbytes == now.hex(" ")]
    return "= " + ", ".join(same) if same else None


def now_row(site, now):
    """site_table's row for the bytes in memory: which form they are, or,
    when none, what they disassemble to."""
    text = now_form(site, now)
    if text is None:
        lines = pvsites.disasm_bytes(now, site["addr"])
        text = "no form above: " + disasm_text(pvsites.annotate(SITES.image, lines))
    return ("now, in memory", now.hex(" "), text)


def site_named(words):
    """The site pb-site's arguments name: OP [FUNCTION], or an address
    expression for a byte inside it."""
    sites = SITES.load()
    if words and words[0] in pvsites.op_names():
        op, function = words[0], words[1] if len(words) > 1 else None
        found = next((s for s in sites if s["op"] == op and function in (None, s["function"])),
                     None)
        if found is None:
            raise gdb.GdbError("no %s site%s" % (op, " in " + function if function else ""))
        return found
    try:
        addr = int(gdb.parse_and_eval("(unsigned long)(%s)" % " ".join(words)))
    except gdb.error as e:
        raise gdb.GdbError("pb-site: %r is neither an op nor an address (%s)"
                           % (" ".join(words), e))
    found = next((s for s in sites if s["addr"] <= addr < s["addr"] + s["len"]), None)
    if found is None:
        raise gdb.GdbError("no call site holds 0x%x; pb-sites lists them" % addr)
    return found


class SiteCommand(gdb.Command):
    """Show one paravirt call site: as linked, as each platform writes it, now.

Usage: pb-site OP [FUNCTION]   the first site of OP (in FUNCTION), e.g.
                               pb-site irq_disable spin_lock_irqsave
       pb-site ADDRESS         the site holding ADDRESS, e.g. pb-site $pc

Prints the site as docs/ shows it (its bytes in the image file, and what
each platform's patcher writes there, from tools/pvsites), then its bytes
now, read from memory through the selected CPU's page tables, and which
of those forms they are. Under Xen, read them while the guest's page
tables are loaded (stopped in the guest, or in Xen serving it): Xen's own
page tables do not map the guest."""

    def __init__(self):
        super().__init__("pb-site", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        if not words:
            raise gdb.GdbError("usage: pb-site OP [FUNCTION] | pb-site ADDRESS")
        site = site_named(words)
        SITES.detail([site])
        print("\n".join(site_table(site, [now_row(site, read_now(site))])))


class SitesCommand(gdb.Command):
    """List every paravirt call site, and which form its bytes have now.

Usage: pb-sites [OP]

One line per site (of OP): address, op, length, function, and whether
its bytes in memory are as linked or a platform's form, then a count of
each. The first use reads every site's forms (some seconds)."""

    def __init__(self):
        super().__init__("pb-sites", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        words = gdb.string_to_argv(arg)
        sites = [s for s in SITES.load() if not words or s["op"] == words[0]]
        if not sites:
            raise gdb.GdbError("no %s site" % words[0])
        counts = {}
        for site in SITES.detail(sites):
            form = now_form(site, read_now(site)) or "no form"
            counts[form] = counts.get(form, 0) + 1
            print("0x%x  %-24s %2d  %-40s %s" % (site["addr"], site["op"], site["len"],
                                                 pvsites.where(site), form))
        print("%d sites, now:" % len(sites))
        for form, n in counts.items():
            print("  %4d  %s" % (n, form))


SiteCommand()
SitesCommand()
