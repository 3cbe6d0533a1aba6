#!/usr/bin/env python3
"""Every command of tools/ answers --help with status 0 and no side
effect (run with BUILD pointing at a directory that does not exist, it
must still not exist afterwards), and refuses an unknown option with
status 2 and a line on stderr that names the tool."""

import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
from report import check, summary  # noqa: E402

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


def main():
    names = commands()
    check("tools/ has its commands", len(names) >= 10, "found %s" % names)
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            build = os.path.join(tmp, name + "-never-made")
            p = run(name, "--help", build)
            check("tools/%s --help: status 0 and a help text" % name,
                  p.returncode == 0 and len(p.stdout.strip()) > 40,
                  "status %d, stdout %r, stderr %r" % (p.returncode, p.stdout[:80], p.stderr[-200:]))
            check("tools/%s --help: no side effect (BUILD not created)" % name,
                  not os.path.exists(build), "it made %s" % build)
            p = run(name, BOGUS, build)
            err = p.stderr.strip().splitlines()
            check("tools/%s %s: status 2 and a line naming the tool" % (name, BOGUS),
                  p.returncode == 2 and err and name in err[-1],
                  "status %d, stderr %r" % (p.returncode, p.stderr[-200:]))
            check("tools/%s %s: no side effect" % (name, BOGUS), not os.path.exists(build),
                  "it made %s" % build)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
