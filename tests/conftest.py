"""What every pytest test of tests/ shares: the tools' package (pbtools)
importable, so a test calls the tools' functions rather than parsing a
command's output; no __pycache__ left in tests/; and the one option many
files take, --image (a folder's own options are in its conftest.py)."""

import os
import sys

import pytest

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from pbtools import paths  # noqa: E402  (after the path it needs)


def pytest_addoption(parser):
    parser.addoption("--image", default=paths.build("patchbay.elf"),
                     help="the image the tests read or boot (default $BUILD/patchbay.elf)")


@pytest.fixture(scope="session")
def image(pytestconfig):
    """--image, absolute."""
    return os.path.abspath(pytestconfig.getoption("--image"))
