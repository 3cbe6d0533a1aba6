"""Every command of tools/ answers --help with status 0 and no side
effect (run with BUILD pointing at a directory that does not exist, it
must still not exist afterwards), and refuses an unknown option with
status 2 and a line on stderr that names the tool."""

import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOGUS = "--no-such-option-anywhere"


def commands():
    tools = os.path.join(ROOT, "tools")
    return sorted(n for n in os.listdir(tools)
                  if os.path.isfile(os.path.join(tools, n))
                  and os.access(os.path.join(tools, n), os.X_OK))


def run(name, arg, build):
    env = dict(os.environ, BUILD=build)
    return subprocess.run([os.path.join(ROOT, "tools", name), arg], cwd=ROOT, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)


def test_tools_has_its_commands():
    names = commands()
    assert len(names) >= 10, "tools/ has its commands: found %s" % names


@pytest.mark.parametrize("name", commands())
def test_help(name, tmp_path):
    build = str(tmp_path / (name + "-never-made"))
    p = run(name, "--help", build)
    assert p.returncode == 0 and len(p.stdout.strip()) > 40, \
        "tools/%s --help: status 0 and a help text: status %d, stdout %r, stderr %r" % (
            name, p.returncode, p.stdout[:80], p.stderr[-200:])
    assert not os.path.exists(build), \
        "tools/%s --help: no side effect (BUILD not created): it made %s" % (name, build)


@pytest.mark.parametrize("name", commands())
def test_unknown_option(name, tmp_path):
    build = str(tmp_path / (name + "-never-made"))
    p = run(name, BOGUS, build)
    err = p.stderr.strip().splitlines()
    assert p.returncode == 2 and err and name in err[-1], \
        "tools/%s %s: status 2 and a line naming the tool: status %d, stderr %r" % (
            name, BOGUS, p.returncode, p.stderr[-200:])
    assert not os.path.exists(build), "tools/%s %s: no side effect: it made %s" % (
        name, BOGUS, build)
