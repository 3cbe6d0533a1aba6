"""tests/run_suite.py's count of a command's tests: the last closing line
wins, ours ("N passed, N failed") or pytest's ("1 failed, 2 passed in
0.05s", counts in any order), an error counting as failed; output with
neither counts as no line at all."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import run_suite  # noqa: E402


@pytest.mark.parametrize("output, counts", [
    ("PASS a\n5 passed, 0 failed\n", (5, 0)),
    ("1 failed, 1 passed in 0.01s\n", (1, 1)),
    ("==== 3 passed, 2 warnings in 1.20s ====\n", (3, 0)),
    ("1 passed, 1 error in 0.20s\n", (1, 1)),
    ("2 passed, 3 errors in 0.20s\n", (2, 3)),
    ("no tests ran in 0.01s\n", (0, 0)),
    ("3 passed in 0.10s\n4 passed, 1 failed\n", (4, 1)),
    ("4 passed, 1 failed\n3 passed in 0.10s\n", (3, 0)),
    ("booted in 3.5s\n", None),
    ("nothing to count\n", None),
])
def test_counts_of(output, counts):
    assert run_suite.counts_of(output) == counts
