"""The options of tests/explore's tests, read when their files are named
on pytest-3's command line (tools/explore.mk passes them, and --image,
tests/conftest.py's): the benchmark run the site shows, where test_explore_html writes the site,
which site test_explore_browser opens (default that one) and where its
screenshot goes."""

import argparse
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_addoption(parser):
    parser.addoption("--bench", default=os.path.join(ROOT, "build", "bench"),
                     help="the benchmark run the site shows (DIR/results.json)")
    parser.addoption("--out", default=os.path.join(ROOT, "build", "tests", "explore", "site"),
                     help="where test_explore_html writes the site")
    parser.addoption("--site", default=None,
                     help="the site test_explore_browser opens (default: --out)")
    parser.addoption("--screenshot",
                     default=os.path.join(ROOT, "build", "explore-screenshot.png"))


@pytest.fixture(scope="session")
def args(pytestconfig):
    """The options, paths made absolute."""
    get = pytestconfig.getoption
    return argparse.Namespace(
        image=os.path.abspath(get("--image")), bench=os.path.abspath(get("--bench")),
        out=os.path.abspath(get("--out")), site=os.path.abspath(get("--site") or get("--out")),
        screenshot=os.path.abspath(get("--screenshot")))
