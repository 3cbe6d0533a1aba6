"""tools/run --gdb: QEMU starts stopped before its first instruction, with
its gdbstub listening on a free port of 127.0.0.1, and tools/run prints the
gdb command that connects to it and loads the image's symbols and the
patchbay commands (tools/gdb/patchbay.py). docs/one-site.md ("Watch it
happen") shows a session and says what the gdbstub sees under Xen.

The port is bound here and handed to QEMU as an open listening socket
(-chardev socket,fd=N), so no other program can take it between choosing
it and QEMU listening on it."""

import os
import shlex
import socket
import sys

from pbtools.paths import ROOT

# The default time-out with --gdb: a person at a gdb prompt holds the
# machine stopped for as long as they read, so the run's 60 s would kill
# the session; an hour still ends a run that was forgotten.
GDB_TIMEOUT = 3600
GDB_SCRIPT = os.path.join(ROOT, "tools", "gdb", "patchbay.py")
GDB_NOT_LINUX = ("--gdb debugs patchbay, and --linux boots Debian's Linux instead, whose "
                 "symbols are not here")
# QEMU's gdbstub translates a guest address through the page tables in
# CR3 as if the addresses in them were the machine's (QEMU 7.2,
# x86_cpu_get_phys_page_attrs_debug): under a PVH guest's nested paging
# they are guest-physical, so reads miss or land elsewhere.
GDB_NOT_PVH = ("--gdb cannot debug a --pvh guest: QEMU's gdbstub walks the guest's page "
               "tables as if Xen's nested paging were not there, so gdb would read its "
               "memory wrongly or not at all")


# What QEMU says on stderr when gdb's `kill` ends it (it then exits 0), and
# the verdict's reason for it.
GDB_KILL_LINE = b"QEMU: Terminated via GDBstub"
GDB_KILLED = "gdb killed QEMU"


def gdb_killed(status, errors):
    """Whether QEMU ended at gdb's `kill`: status 0, and its stderr (errors) says so."""
    return status == 0 and GDB_KILL_LINE in errors


def check_gdb_args(p, args):
    """Refuse --gdb where gdb could not read the image's memory as the
    kernel sees it; an hour's time-out unless --timeout says otherwise
    (set before --lifecycle's default, which is sized for no one reading)."""
    if args.linux:
        p.error(GDB_NOT_LINUX)
    if args.pvh and (args.xen or args.domu):
        p.error(GDB_NOT_PVH)
    if args.timeout is None:
        args.timeout = GDB_TIMEOUT


def gdb_listen():
    """A socket listening on a free port of 127.0.0.1, inheritable by QEMU."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    sock.set_inheritable(True)
    return sock


def gdb_qemu_args(sock):
    """QEMU's arguments: stopped at the reset vector (-S), its gdbstub on sock."""
    return ["-S", "-chardev", "socket,id=gdb,fd=%d,server=on,wait=off" % sock.fileno(),
            "-gdb", "chardev:gdb"]


def shown_path(path):
    """path relative to the working directory when it lies below it."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def gdb_command(port, image):
    """The gdb command line that loads image's symbols and patchbay's
    commands and connects to QEMU's gdbstub on port."""
    return " ".join(["gdb", "-q", shlex.quote(shown_path(image)),
                     "-x", shlex.quote(shown_path(GDB_SCRIPT)),
                     "-ex", shlex.quote("target remote 127.0.0.1:%d" % port)])


GDB_COMMAND_PREFIX = "run:   "  # before the gdb command in announce()'s second line


def announce(sock, image, timeout):
    """Tell the user (on stderr, beside tools/run's other messages) where
    QEMU waits and how to connect."""
    port = sock.getsockname()[1]
    print("run: QEMU waits for gdb on 127.0.0.1:%d, stopped before its first instruction "
          "(time-out %g s); connect with:" % (port, timeout), file=sys.stderr)
    print(GDB_COMMAND_PREFIX + gdb_command(port, image), file=sys.stderr, flush=True)
