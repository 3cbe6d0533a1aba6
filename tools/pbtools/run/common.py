"""What tools/run's doors share: the tree's paths, QEMU, the exit statuses
of outcomes the kernel cannot report itself (and the one of its own the
tools name, read from kernel/exit.h), the verdict line, and the console a
run's output goes to.

main.py is tools/run's body (the outcome), args.py its arguments, qemu.py
the QEMU loop; each door's own pieces live beside them: iso.py (GRUB),
xen.py (Xen with this kernel as dom0), domu.py (a PV domU of a Linux
dom0), kvm.py and linux.py."""

import os
import re
import subprocess
import sys

from pbtools.paths import ROOT

QEMU = "qemu-system-x86_64"
DEBUG_EXIT_PORT = 0xF4


def kernel_status(name):
    """The exit status kernel/exit.h defines as name: its one source."""
    with open(os.path.join(ROOT, "kernel", "exit.h")) as f:
        m = re.search(r"^#define %s (\d+)$" % name, f.read(), re.MULTILINE)
    if not m:
        raise RuntimeError("kernel/exit.h defines no %s" % name)
    return int(m.group(1))


# The kernel's status for a command line it cannot honour.
STATUS_CMDLINE = kernel_status("EXIT_CMDLINE")
# Exit statuses of outcomes the kernel cannot report itself.
KERNEL_STATUS_MAX = 97   # kernel statuses are capped here: 98 and 99 stay tools/run's
STATUS_NOT_STARTED = 98  # Xen refused the CPU, GRUB stopped: the kernel never ran
STATUS_XEN_CRASH = 99    # Xen crashed the domain, or panicked while it ran
STATUS_NO_EXIT = 101     # QEMU ended without a kernel exit
STATUS_DOMU_NO_VERDICT = 102  # --domu: the domU stopped without a status or verdict
STATUS_DOM0_FAILED = 103      # --domu: dom0 (Linux) or its toolstack failed
STATUS_LIFECYCLE_FAILED = 104  # --domu --lifecycle: a step of the plan failed
STATUS_DISK_CHECK = 105  # --disk: the host found flushed blocks wrong, or flushes missing
STATUS_TIMEOUT = 124

# Verdict lines: the kernel's, or the one tools/run writes when it cannot.
VERDICT = re.compile(rb"^patchbay: (PASS|FAIL)\b", re.MULTILINE)


def in_workdir(workdir, path, name):
    """name, a link in workdir (QEMU's working directory) to path. The
    multiboot doors pass file names into the guest (QEMU puts Xen's path in
    its command line, each module's in its string), so naming them the same
    in every checkout keeps the guest's memory, and icount figures, the same."""
    os.symlink(path, os.path.join(workdir, name))
    return name


def guest_image(workdir, image):
    """The image as Xen's doors hand it over: a module is copied whole into
    guest memory, and its DWARF holds the checkout's path (nasm records it),
    so a copy without debug sections keeps figures the same in every checkout."""
    name = "patchbay.elf"
    try:
        subprocess.run(["objcopy", "--strip-debug", image, os.path.join(workdir, name)],
                       check=True, stdin=subprocess.DEVNULL, capture_output=True)
    except OSError as e:
        fail("cannot run objcopy: %s; run tools/setup" % e.strerror, 2)
    except subprocess.CalledProcessError as e:
        fail("objcopy cannot read %s: %s" % (image, e.stderr.decode(errors="replace").strip()), 2)
    return name


def fail(msg, status):
    """Say why on stderr and exit: tools/run's one way to give up early."""
    print("run: " + msg, file=sys.stderr)
    sys.exit(status)


def qemu_error(errors):
    """QEMU's own error messages (not warnings) in its stderr, if any."""
    return [line for line in errors.decode(errors="replace").splitlines()
            if line.startswith(QEMU + ":") and ": warning:" not in line]


class Console:
    """Where the console bytes go: stdout (unless quiet) and the log file."""

    def __init__(self, quiet, log_path):
        self.out = None if quiet else sys.stdout.buffer
        self.data = bytearray()  # everything, for the verdict
        self.log = None
        if log_path:
            os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
            self.log = open(log_path, "wb")

    def write(self, data):
        """Show data and log it; a closed stdout only ends the showing."""
        self.data += data
        if self.out is not None:
            try:
                self.out.write(data)
                self.out.flush()
            except BrokenPipeError:
                self.out = None  # the reader went away; keep the log going
        if self.log is not None:
            self.log.write(data)
            self.log.flush()

    def close(self):
        if self.log is not None:
            self.log.close()


def cmdline_sets(cmdline, key):
    """Whether the user's command line (the words after --) sets key=."""
    return any(word.startswith(key + "=") for line in cmdline for word in line.split())


def cpio_newc(entries):
    """A newc cpio archive of (name, mode, data) entries: Linux unpacks it
    after the base initramfs it is appended to (the domU's, KVM's and
    Linux's doors)."""
    out = bytearray()
    for ino, (name, mode, data) in enumerate(entries + [("TRAILER!!!", 0, b"")], 1):
        name = name.encode() + b"\0"
        nlink = 2 if mode & 0o040000 else 1
        fields = (ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(name), 0)
        out += b"070701" + b"".join(b"%08X" % f for f in fields) + name
        out += b"\0" * (-len(out) % 4) + data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)
