"""tests/report.py: what the Python tests share. Each check prints one
line, "PASS NAME" or "FAIL NAME" (with its detail, or its problems
indented below it); summary() prints the closing "N passed, N failed"
and gives the exit status. Importing it puts tools/ on the path, so a
test imports the tools' package (pbtools) and calls its functions rather
than parsing a command's output.

    sys.dont_write_bytecode = True  # before this import: no __pycache__ in tests/
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from report import check, summary  # noqa: E402
    ...
    sys.exit(summary())
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools"))
SHOWN = 10  # problems printed under a FAIL line; the rest are counted
results = []  # one bool per check, in order


def check(name, ok, detail=None):
    """A PASS or FAIL line for name by the truth of ok; a failure's line
    ends ": detail" when there is one. Returns ok, for tests that go on
    only after a check passed."""
    results.append(bool(ok))
    print(("PASS " if ok else "FAIL ") + name
          + ("" if ok or detail is None else ": %s" % detail))
    return ok


def check_problems(name, problems):
    """check() passing when problems (a list of strings) is empty; a
    failure's problems follow its line, indented."""
    check(name, not problems)
    for p in problems[:SHOWN]:
        print("  " + p)
    if len(problems) > SHOWN:
        print("  ... and %d more" % (len(problems) - SHOWN))


def summary():
    """Prints "N passed, N failed" over every check so far; the exit
    status: 1 if any failed, else 0."""
    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0

