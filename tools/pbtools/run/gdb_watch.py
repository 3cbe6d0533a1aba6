"""Watch one call site across the patcher, in a gdb session in batch mode
against `tools/run --gdb`: break at pv_patch_all, show the site (pb-site,
tools/gdb/patchbay.py), run to the patcher's end (finish), show it again,
and kill QEMU: the run ends "patchbay: FAIL gdb killed QEMU" (status
101), for the rest of it (the self-tests, whose clock checks a busy host
can fail) is not what is watched and would cost more than the watch.
tests/tools/test_gdb.py checks what a watch shows; tools/gen-docs's
`gdb` blocks quote it (docs/one-site.md, "Watch it happen").

gdb runs the very command tools/run prints, with -batch and the commands
added. The session always ends the run: gdb and tools/run each have a
time-out, and tools/run, told to stop, ends QEMU itself (QEMU runs in its
own session, out of reach of a signal to tools/run's process group); a
QEMU still alive after that is killed and reported as a stray."""

import os
import shlex
import signal
import subprocess
import tempfile
import threading
import time

from pbtools.paths import ROOT
from pbtools.run.common import STATUS_NO_EXIT
from pbtools.run.gdb import GDB_COMMAND_PREFIX, GDB_KILLED

RUN = os.path.join(ROOT, "tools", "run")
PLATFORM_ARGS = {"native": [], "iso": ["--iso"], "xen": ["--xen"], "domu": ["--domu"]}
QEMU = "qemu-system-x86_64"


class Session:
    """What a watch showed: gdb's output with each command echoed after
    "(gdb) " (transcript), tools/run's status (None: it had to be stopped),
    the console, tools/run's stderr, and the pids of QEMUs left running."""

    def __init__(self, transcript, status, console, errors, stray):
        self.transcript, self.status, self.console = transcript, status, console
        self.errors, self.stray = errors, stray

    def verdicts(self):
        """The console's verdict lines."""
        return [line for line in self.console.splitlines() if line.startswith("patchbay: ")]

    def ended_by_kill(self):
        """Whether the run ended as gdb's kill ends it: its status and verdict."""
        return (self.status == STATUS_NO_EXIT
                and self.verdicts()[-1:] == ["patchbay: FAIL " + GDB_KILLED])


def watch_commands(op, function):
    """The gdb commands of a watch of the first OP site in FUNCTION. The
    breakpoint goes before finish: finish's first step off it can take a
    pending interrupt (a Xen event, on a loaded host) whose return comes
    back to its instruction, which would stop there again before the
    patcher ran."""
    show = "pb-site %s %s" % (op, function)
    return ["break pv_patch_all", "continue", show, "delete 1", "finish", show, "kill"]


def watch_site(platform, op, function, timeout=180):
    """A Session of watching the OP site in FUNCTION on PLATFORM (a key of
    PLATFORM_ARGS); timeout (seconds) bounds tools/run and gdb each."""
    with tempfile.TemporaryDirectory(prefix="gdb-watch-") as tmp:
        log = os.path.join(tmp, "console.log")
        run = subprocess.Popen([RUN, "--gdb", "--quiet", "--log", log, "--timeout", str(timeout)]
                               + PLATFORM_ARGS[platform], cwd=ROOT, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        errors = []
        reader = threading.Thread(target=collect, args=(run.stderr, errors), daemon=True)
        reader.start()
        qemus, transcript, status = [], "", None
        try:
            command = gdb_line(run, errors, time.monotonic() + timeout)
            if command:
                qemus = children(run.pid, QEMU, time.monotonic() + 10)
                transcript = run_gdb(command, watch_commands(op, function), timeout)
                status = run.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
        finally:
            stray = end_run(run, qemus)
            reader.join(5)
        with open(log, errors="replace") if os.path.exists(log) else open(os.devnull) as f:
            console = f.read()
    return Session(transcript, status, console, "".join(errors), stray)


def collect(stream, lines):
    """Append stream's lines to lines as they come, until it ends."""
    for line in stream:
        lines.append(line)


def gdb_line(run, errors, deadline):
    """The gdb command tools/run printed, or None if it ended first."""
    while time.monotonic() < deadline:
        for line in list(errors):
            if line.startswith(GDB_COMMAND_PREFIX + "gdb "):
                return line[len(GDB_COMMAND_PREFIX):].rstrip("\n")
        if run.poll() is not None:
            return None
        time.sleep(0.1)
    return None


def run_gdb(command, commands, timeout):
    """gdb's output (stderr in it) for the printed command line in batch
    mode, each of commands echoed before its output. gdb runs in its own
    process group, killed whole on a time-out or an interruption (with any
    shell it started)."""
    argv = shlex.split(command) + ["-nx", "-batch"]
    for c in commands:
        argv += ["-ex", "echo (gdb) %s\\n" % c, "-ex", c]
    gdb = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        return gdb.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        os.killpg(gdb.pid, signal.SIGKILL)
        return (gdb.communicate()[0] or "") + "\n(gdb timed out after %g s)\n" % timeout
    finally:
        if gdb.poll() is None:  # interrupted: gdb's group is out of reach of Ctrl-C
            os.killpg(gdb.pid, signal.SIGKILL)
            gdb.wait()


def children(pid, name, deadline):
    """The pids of pid's children whose command is name, once there is one
    (or deadline passes)."""
    while True:
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and parent_of(int(entry)) == pid and command_of(int(entry)) == name:
                found.append(int(entry))
        if found or time.monotonic() >= deadline:
            return found
        time.sleep(0.1)


def parent_of(pid):
    """pid's parent pid, or None once it has gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def command_of(pid):
    """The program name pid runs, or None once it has gone (or is a zombie)."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv0 = f.read().split(b"\0")[0]
    except OSError:
        return None
    return os.path.basename(argv0.decode(errors="replace")) if argv0 else None


def end_run(run, qemus):
    """Stop tools/run if it still runs (it then stops QEMU); kill and
    return any of the qemus pids still running QEMU afterwards."""
    if run.poll() is None:
        run.send_signal(signal.SIGTERM)
        try:
            run.wait(15)
        except subprocess.TimeoutExpired:
            run.kill()
            run.wait()
    stray = [pid for pid in qemus if command_of(pid) == QEMU]
    for pid in stray:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return stray
