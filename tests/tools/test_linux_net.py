#!/usr/bin/env python3
"""Builds tests/tools/test_linux_net.c (linux-user/bench/net.c's parsers,
hosted, with the program's own flags) and runs it; its last line is
"N passed, N failed". A build that fails is one failed check."""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "test_linux_net")
        build = subprocess.run(
            [os.environ.get("CC", "cc"), "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror",
             "-Wno-unused-function", "-I", ROOT,
             os.path.join(ROOT, "tests", "tools", "test_linux_net.c"),
             os.path.join(ROOT, "linux-user", "bench", "modules.c"), "-o", exe],
            stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if build.returncode != 0:
            print("FAIL test_linux_net.c builds: %s" % build.stderr.strip().splitlines()[-1])
            print("0 passed, 1 failed")
            sys.exit(1)
        sys.exit(subprocess.run([exe], stdin=subprocess.DEVNULL).returncode)


if __name__ == "__main__":
    main()
