"""Builds tests/tools/test_linux_net.c (linux-user/bench/net.c's parsers,
hosted, with the program's own flags) and runs it: the test fails with
the program's FAIL lines, or with the compiler's last line when it does
not build."""

import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    exe = str(tmp_path_factory.mktemp("linux-net") / "test_linux_net")
    build = subprocess.run(
        [os.environ.get("CC", "cc"), "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror",
         "-Wno-unused-function", "-I", ROOT,
         os.path.join(ROOT, "tests", "tools", "test_linux_net.c"),
         os.path.join(ROOT, "linux-user", "bench", "modules.c"), "-o", exe],
        stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if build.returncode != 0:
        lines = build.stderr.strip().splitlines()
        pytest.fail("test_linux_net.c builds: %s"
                    % "\n".join([x for x in lines if "error:" in x][:3] or lines[-1:]))
    return exe


def test_net_parsers(program):
    p = subprocess.run([program], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=60)
    lines = p.stdout.splitlines()
    failing = [line for line in lines if line.startswith("FAIL")]
    closing = re.fullmatch(r"(\d+) passed, 0 failed", lines[-1] if lines else "")
    assert p.returncode == 0 and not failing and closing and int(closing.group(1)) > 0, \
        "status %d:\n%s" % (p.returncode, "\n".join(failing + lines[-1:] + [p.stderr[-300:]]))
