#!/usr/bin/env python3
"""The tools' default paths follow $BUILD (pbtools.paths): with BUILD
pointing elsewhere, the image gen-docs, prose_check, explore and bench
--host read, and what gen-docs, explore and tour write, are under it; the
host programs stay in build/host/ whatever BUILD says, and without BUILD
everything is under build/. Each check runs in a fresh python3, since the
modules read BUILD when imported."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

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


NAMES = ("gen-docs image", "gen-docs boots", "bench --host image", "explore image",
         "explore bench", "explore out", "build_dir") + HOST_PROGRAMS


@pytest.fixture(scope="module")
def env():
    """The environment without BUILD."""
    return {k: v for k, v in os.environ.items() if k != "BUILD"}


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory):
    return str(tmp_path_factory.mktemp("paths") / "elsewhere")


@pytest.fixture(scope="module")
def moved(env, elsewhere):
    """The probe's paths with BUILD=elsewhere."""
    got = probe(dict(env, BUILD=elsewhere))
    assert "error" not in got, "the probe ran: %s" % got.get("error")
    return got


def test_probe_names_every_path(moved):
    assert sorted(moved) == sorted(NAMES), "the probe ran and names every path"


@pytest.mark.parametrize("name", NAMES)
def test_build_elsewhere(moved, elsewhere, name):
    path = moved[name]
    if name in HOST_PROGRAMS:
        assert path == os.path.join(ROOT, "build", "host", name), \
            "BUILD=elsewhere: %s stays in build/host/: %s" % (name, path)
    else:
        assert path.startswith(elsewhere + os.sep) or path == elsewhere, \
            "BUILD=elsewhere: %s under it: %s" % (name, path)


def test_without_build_everything_under_build(env):
    got = probe(env)
    assert "error" not in got and all(p.startswith(os.path.join(ROOT, "build"))
                                      for p in got.values()), \
        "without BUILD: every path under build/: %s" % got


def test_tour_help_names_build_tour_md(env, elsewhere):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "tour"), "--help"],
                       env=dict(env, BUILD=elsewhere), capture_output=True, text=True,
                       timeout=60)
    assert "$BUILD/tour.md" in p.stdout, \
        "tools/tour --help names $BUILD/tour.md as the default: %s" % p.stdout[-200:]


def test_prose_check_reads_elsewhere_image(env, elsewhere):
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "prose_check.py")],
                       env=dict(env, BUILD=elsewhere), capture_output=True, text=True,
                       timeout=60)
    assert p.returncode != 0 and elsewhere in p.stdout + p.stderr, \
        "BUILD=elsewhere: tools/prose_check.py reads elsewhere's image: status %d, %r" % (
            p.returncode, (p.stdout + p.stderr)[-200:])
