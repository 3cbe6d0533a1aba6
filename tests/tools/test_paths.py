#!/usr/bin/env python3
"""The tools' default paths follow $BUILD (pbtools.paths): with BUILD
pointing elsewhere, the image gen-docs, prose_check, explore and bench
--host read, and what gen-docs, explore and tour write, are under it; the
host programs stay in build/host/ whatever BUILD says, and without BUILD
everything is under build/. Each check runs in a fresh python3, since the
modules read BUILD when imported. Ends with "N passed, N failed"."""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "tests"))
from report import check, summary  # noqa: E402

# Prints, as JSON, every default path the tools take from the build directory.
PROBE = """
import json, sys
sys.dont_write_bytecode = True
sys.argv = ["probe"]
from pbtools import paths
from pbtools.bench import host
from pbtools.docs import gen_boots, gen_image
from pbtools.elf import pvsites
from pbtools.explore import main as explore
from pbtools.run import disk
args = explore.parse_args([])
print(json.dumps({"gen-docs image": gen_image.IMAGE, "gen-docs boots": gen_boots.OUT,
                  "bench --host image": host.IMAGE, "explore image": args.image,
                  "explore bench": args.bench, "explore out": args.out,
                  "build_dir": paths.build_dir(), "pvemit": pvsites.PVEMIT_PATH,
                  "diskcheck": disk.DISKCHECK, "bench-host": host.PROGRAM_PATH}))
"""
HOST_PROGRAMS = ("pvemit", "diskcheck", "bench-host")


def probe(env):
    p = subprocess.run([sys.executable, "-c", PROBE], cwd=os.path.join(ROOT, "tools"), env=env,
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1:] or ["status %d" % p.returncode]}
    return json.loads(p.stdout)


def main():
    env = {k: v for k, v in os.environ.items() if k != "BUILD"}
    with tempfile.TemporaryDirectory() as tmp:
        elsewhere = os.path.join(tmp, "elsewhere")
        got = probe(dict(env, BUILD=elsewhere))
        check("the probe ran", "error" not in got, got.get("error"))
        for name, path in sorted(got.items()):
            if name in HOST_PROGRAMS:
                check("BUILD=elsewhere: %s stays in build/host/" % name,
                      path == os.path.join(ROOT, "build", "host", name), path)
            elif name != "error":
                check("BUILD=elsewhere: %s under it" % name,
                      path.startswith(elsewhere + os.sep) or path == elsewhere, path)
        got = probe(env)
        check("without BUILD: every path under build/",
              "error" not in got and all(p.startswith(os.path.join(ROOT, "build"))
                                         for p in got.values()), got)
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "tour"), "--help"],
                           env=dict(env, BUILD=elsewhere), capture_output=True, text=True,
                           timeout=60)
        check("tools/tour --help names $BUILD/tour.md as the default",
              "$BUILD/tour.md" in p.stdout, p.stdout[-200:])
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "prose_check.py")],
                           env=dict(env, BUILD=elsewhere), capture_output=True, text=True,
                           timeout=60)
        check("BUILD=elsewhere: tools/prose_check.py reads elsewhere's image",
              p.returncode != 0 and elsewhere in p.stdout + p.stderr,
              "status %d, %r" % (p.returncode, (p.stdout + p.stderr)[-200:]))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
