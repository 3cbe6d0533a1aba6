#!/usr/bin/env python3
"""tools/pbtools/run/cpu_slots.py, the one CPU budget every QEMU takes its slots from,
on a budget of two slots in a directory of its own: two holders take
both; a third waits, and takes the slot that frees first even while the
other stays held (the old wait on slot 0 alone left slot 1 idle); a
holder that wants both slots waits until both are free; a budget of 0
holds nothing; a bad PATCHBAY_CPUS ends with a one-line error. Nothing
is timed: a waiter that has not taken its slot when it should gives up
after a minute and the check fails. Ends with "N passed, N failed"."""

import os
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests"))
from report import check, summary  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools"))
from pbtools.run import cpu_slots  # noqa: E402

GIVE_UP_S = 60


class Holder(threading.Thread):
    """Holds `threads` slots from when they are taken until release()."""

    def __init__(self, threads):
        super().__init__(daemon=True)
        self.threads = threads
        self.taken = threading.Event()
        self.released = threading.Event()
        self.done = threading.Event()  # its slots given back
        self.start()

    def run(self):
        with cpu_slots.hold(self.threads):
            self.taken.set()
            self.released.wait(3 * GIVE_UP_S)  # outlives any check's wait
        self.done.set()

    def release(self):
        self.released.set()
        self.join(GIVE_UP_S)


def check_first_freed_slot():
    first = Holder(1)  # slot 0: it is free, and tried first
    taken = first.taken.wait(GIVE_UP_S)
    second = Holder(1)
    both = taken and second.taken.wait(GIVE_UP_S)
    check("two holders take the two slots", both)
    waiter = Holder(1)
    check("a third waits while both are held", not waiter.taken.wait(0.5))
    second.release()  # the slot freed is the second holder's, not slot 0
    check("the waiter takes the slot that freed, the other still held",
          waiter.taken.wait(GIVE_UP_S) and not first.done.is_set())
    first.release()
    waiter.release()


def check_both_slots():
    one = Holder(1)
    one.taken.wait(GIVE_UP_S)
    pair = Holder(2)
    check("a holder of two waits while one slot is held", not pair.taken.wait(0.5))
    one.release()
    check("and takes both once that one frees", pair.taken.wait(GIVE_UP_S))
    pair.release()


def check_budgets(where):
    os.environ["PATCHBAY_CPUS"] = "0"
    tempfile.tempdir = os.path.join(where, "none")
    os.mkdir(tempfile.tempdir)
    with cpu_slots.hold(4):
        check("PATCHBAY_CPUS=0 holds nothing", os.listdir(cpu_slots.slot_dir()) == [])
    os.environ["PATCHBAY_CPUS"] = "two"
    try:
        cpu_slots.slot_count()
        check("PATCHBAY_CPUS=two is refused", False)
    except SystemExit as e:
        check("PATCHBAY_CPUS=two is refused in one line",
              "not a number" in str(e) and "\n" not in str(e))
    os.environ["PATCHBAY_CPUS"] = "2"


def main():
    with tempfile.TemporaryDirectory(prefix="cpu-slots-") as where:
        tempfile.tempdir = where  # slot_dir() is under it, away from the machine's
        os.environ["PATCHBAY_CPUS"] = "2"
        check_first_freed_slot()
        check_both_slots()
        check_budgets(where)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
