"""Where the tools find the tree and the build: ROOT, TOOLS, and the
build directory, named by $BUILD as the Makefile's BUILD names it."""

import os

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TOOLS)


def build_dir():
    """$BUILD (default build/), absolute: where images and fetched tools are."""
    build = os.environ.get("BUILD", "build")
    return build if os.path.isabs(build) else os.path.join(ROOT, build)


def build(*parts):
    """A path under the build directory."""
    return os.path.join(build_dir(), *parts)


# The host's programs (pvemit, diskcheck, bench-host) are the same for
# every image variant the Makefile builds (build/nopv, build/debug), so they
# are made in build/host/ whatever BUILD says.
HOST_BUILD = "build"


def host_program(name):
    """(make's target, the absolute path) of the host program NAME."""
    target = os.path.join(HOST_BUILD, "host", name)
    return target, os.path.join(ROOT, target)


def tool(name):
    """The path of the command tools/NAME."""
    return os.path.join(TOOLS, name)
