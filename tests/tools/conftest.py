"""The options of tests/tools/'s tests that once were their own commands'
(read when a file of this folder is named on pytest's command line):
--swap for test_gdb.py's negative control (--image is tests/conftest.py's)."""


def pytest_addoption(parser):
    parser.addoption("--swap", action="store_true",
                     help="test_gdb.py: expect each platform to write the other's form, "
                          "so the 'after' tests fail (the negative control)")
