"""The options of tests/pv's tests, read when their files are named on
pytest-3's command line: the recorded expectation, and the platforms to
boot (--image is tests/conftest.py's)."""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_addoption(parser):
    parser.addoption("--expect", default=os.path.join(ROOT, "tests", "pv", "expected_sites.txt"),
                     help="test_expected_sites' expectation file")
    parser.addoption("--platform", action="append", metavar="NAME",
                     help="test_platform_sites boots only this platform (default: every one "
                          "pvsites shows)")


@pytest.fixture(scope="session")
def expect(pytestconfig):
    return pytestconfig.getoption("--expect")
