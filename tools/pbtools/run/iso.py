"""tools/run --iso: the kernel booted by GRUB from a rescue ISO through its
multiboot2 header. Puts the command line into grub.cfg's words, has
tools/mkiso build the ISO, spots GRUB stopping instead of booting the
kernel, and names GRUB's error in the verdict."""

import os
import re
import subprocess
import sys

from pbtools.paths import ROOT
from pbtools.run.common import fail

# GRUB's ways of stopping instead of booting the kernel: an error it waits
# on a key for, its menu drawn again after a failed boot, or a shell prompt.
# Only looked for before the kernel's first line, which may echo anything.
GRUB_END = re.compile(
    rb"Press any key to (?:continue|exit)|Failed to boot both default and fallback|"
    rb"GNU GRUB +version|grub rescue> |(?:^|[\r\n])grub> "
)
KERNEL_STARTED = re.compile(rb"^patchbay: booting via |^time: ", re.MULTILINE)


def grub_end(tail, data):
    """The match of a GRUB stop in tail, the console's last bytes, while
    data, all of the console, shows no line of the kernel; else None."""
    if KERNEL_STARTED.search(data):
        return None
    return GRUB_END.search(tail)


def iso_cmdline_problem(cmdline):
    """Why GRUB would not hand the kernel cmdline (bytes) as it is, or None."""
    # GRUB's multiboot2 command puts a backslash before each of these
    # (grub_create_loader_cmdline), and its config reader drops a
    # carriage return even inside quotes: no quoting gets them through.
    # Every other byte, newlines too, arrives as sent.
    bad = sorted({c for c in cmdline if c in b"'\"\\\r"})
    if bad:
        return ("the ISO door (GRUB) cannot deliver %s in the kernel command line"
                % ", ".join(repr(chr(c)) for c in bad))
    return None


def grub_words(cmdline):
    """The command line as arguments of grub.cfg's multiboot2 line.

    GRUB joins the arguments after the image with one space each, so the
    line is split at every single space (empty words keep runs of spaces
    and leading or trailing ones) and each word is single-quoted, inside
    which GRUB expands and splits nothing. iso_cmdline_problem has refused
    what GRUB would change (quotes, backslashes, carriage returns)."""
    if not cmdline:
        return ""
    return " ".join("'" + word + "'" for word in cmdline.split(" "))


def run_quiet(cmd, log):
    """Run cmd with its output in log; show the log and exit 2 on failure."""
    with open(log, "wb") as f:
        try:
            rc = subprocess.call(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=f)
        except OSError as e:
            fail("cannot run %s: %s; run tools/setup" % (cmd[0], e.strerror), 2)
    if rc != 0:
        with open(log, "rb") as f:
            sys.stderr.buffer.write(f.read())
        fail("%s failed with status %d (log: %s)" % (cmd[0], rc, log), 2)


def make_iso(image, cmdline, workdir):
    """A GRUB rescue ISO whose only menu entry boots image via multiboot2."""
    prebuilt = os.path.splitext(image)[0] + ".iso"
    if (not cmdline and os.path.exists(prebuilt)
            and os.path.getmtime(prebuilt) >= os.path.getmtime(image)):
        return prebuilt
    iso = os.path.join(workdir, "patchbay.iso")
    # tools/mkiso owns the grub.cfg, so `make iso` and this agree.
    run_quiet([os.path.join(ROOT, "tools", "mkiso"), image, iso, grub_words(cmdline)],
              os.path.join(workdir, "mkiso.log"))
    return iso


def iso_args(args, image, workdir):
    """QEMU arguments for --iso: boot from the CD, an ISO for this run's line."""
    return ["-cdrom", make_iso(image, args.cmdline, workdir), "-boot", "d"]


def grub_verdict(data):
    """The reason for a GRUB stop: its first error message."""
    text = data.decode(errors="replace").replace("\r", "\n")
    m = re.search(r"^(?:fatal )?error: ([^\n]+)", text, re.MULTILINE)
    return "grub: " + (m.group(1).strip() if m else "stopped before booting the kernel")
