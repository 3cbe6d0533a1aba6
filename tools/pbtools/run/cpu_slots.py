"""One CPU budget for every QEMU on this machine, whichever lane or tool
starts it (the boot tests, gen-docs, the benchmarks, explore's tests, a
user's tools/run): a QEMU that runs N host threads holds N slots while it
runs, and there are as many slots as CPUs. So the test lanes may run as
many boots at once as they like: the extra ones wait here instead of
sharing a CPU, which stretched boots past their time-outs.

The slots are lock files, one per CPU, in a directory shared by every
checkout of the machine's user; a held flock() is released by the kernel
when its holder exits, killed or not, so a crashed run never leaks one.
Taking several slots goes through a gate lock held until all are taken,
so two boots that each want both CPUs cannot each hold one and wait for
ever. PATCHBAY_CPUS=N sets the number of slots (0: no budget)."""

import contextlib
import fcntl
import os
import tempfile
import time


def slot_count():
    """How many slots the machine has: PATCHBAY_CPUS, else its CPUs."""
    value = os.environ.get("PATCHBAY_CPUS", "")
    if value.strip():
        try:
            n = int(value)
        except ValueError:
            raise SystemExit("cpu_slots: PATCHBAY_CPUS=%r is not a number" % value)
        if n < 0:
            raise SystemExit("cpu_slots: PATCHBAY_CPUS=%d is negative" % n)
        return n
    return os.cpu_count() or 1


def slot_dir():
    """The machine-wide directory of lock files (per user)."""
    path = os.path.join(tempfile.gettempdir(), "patchbay-cpu-slots-%d" % os.getuid())
    os.makedirs(path, exist_ok=True)
    return path


def _open(path):
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


# How often a boot waiting at the gate looks for a freed slot: often
# enough that a slot is never idle long, rarely enough to cost nothing.
POLL_S = 0.05


def _take_free(where, total, held):
    """A lock on one free slot not among held (slot numbers), as (number,
    fd), or None when every other slot is taken."""
    for i in range(total):
        if i in held:
            continue
        fd = _open(os.path.join(where, "cpu%d" % i))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return i, fd
        except BlockingIOError:
            os.close(fd)
    return None


@contextlib.contextmanager
def hold(threads, waiting=None):
    """Holds min(threads, slots) slots for the with-block; returns at once
    for 0 threads or with no budget. waiting(seconds) is called once the slots are taken if
    that took a second or more, for a log line.
    A waiter takes whichever slot frees first: waiting on one slot in
    particular left another idle whenever that one freed first."""
    total = slot_count()
    want = min(threads, total)
    if want == 0:
        yield
        return
    where = slot_dir()
    held = {}  # slot number: its locked fd
    start = time.monotonic()
    gate = _open(os.path.join(where, "gate"))
    try:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            while len(held) < want:
                taken = _take_free(where, total, held)
                if taken is None:
                    time.sleep(POLL_S)
                else:
                    held[taken[0]] = taken[1]
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
            os.close(gate)
        waited = time.monotonic() - start
        if waiting and waited >= 1:
            waiting(waited)
        yield
    finally:
        for fd in held.values():
            os.close(fd)
