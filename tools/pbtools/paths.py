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


def tool(name):
    """The path of the command tools/NAME."""
    return os.path.join(TOOLS, name)
