#!/usr/bin/env python3
"""tools/pbtools/run/cpu_slots.py, the one CPU budget every QEMU takes its slots from,
on a budget of two slots in a directory of its own: two holders take
both; a third waits, and takes the slot that frees first even while the
other stays held (the old wait on slot 0 alone left slot 1 idle); a
holder that wants both slots waits until both are free; a budget of 0
holds nothing; a bad PATCHBAY_CPUS ends with a one-line error. Nothing
is timed: a waiter that has not taken its slot when it should gives up
after a minute and the check fails."""

import os
import tempfile
import threading

import pytest
from pbtools.run import cpu_slots

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


@pytest.fixture(autouse=True)
def budget_of_two(tmp_path, monkeypatch):
    """Each test's slots in a directory of its own, away from the machine's."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # slot_dir() is under it
    monkeypatch.setenv("PATCHBAY_CPUS", "2")


def test_waiter_takes_the_first_freed_slot():
    first = Holder(1)  # slot 0: it is free, and tried first
    assert first.taken.wait(GIVE_UP_S)
    second = Holder(1)
    assert second.taken.wait(GIVE_UP_S), "two holders take the two slots"
    waiter = Holder(1)
    assert not waiter.taken.wait(0.5), "a third waits while both are held"
    second.release()  # the slot freed is the second holder's, not slot 0
    assert waiter.taken.wait(GIVE_UP_S), "the waiter takes the slot that freed"
    assert not first.done.is_set(), "while the other is still held"
    first.release()
    waiter.release()


def test_holder_of_two_waits_for_both():
    one = Holder(1)
    assert one.taken.wait(GIVE_UP_S)
    pair = Holder(2)
    assert not pair.taken.wait(0.5), "a holder of two waits while one slot is held"
    one.release()
    assert pair.taken.wait(GIVE_UP_S), "and takes both once that one frees"
    pair.release()


def test_budget_of_zero_holds_nothing(monkeypatch):
    monkeypatch.setenv("PATCHBAY_CPUS", "0")
    with cpu_slots.hold(4):
        assert os.listdir(cpu_slots.slot_dir()) == []


def test_bad_budget_is_refused_in_one_line(monkeypatch):
    monkeypatch.setenv("PATCHBAY_CPUS", "two")
    with pytest.raises(SystemExit) as e:
        cpu_slots.slot_count()
    assert "not a number" in str(e.value) and "\n" not in str(e.value)
