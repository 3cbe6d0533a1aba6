"""The options of tests/tools/'s tests that once were their own commands'
(read when a file of this folder is named on pytest's command line):
--image for test_try_it.py, --swap for test_gdb.py's negative control."""


def pytest_addoption(parser):
    parser.addoption("--image", default="build/patchbay.elf",
                     help="test_try_it.py: the image the paths' commands run on")
    parser.addoption("--swap", action="store_true",
                     help="test_gdb.py: expect each platform to write the other's form, "
                          "so the 'after' tests fail (the negative control)")
