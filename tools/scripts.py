#!/usr/bin/env python3
"""Lists the tree's shell or Python scripts for the linters; see
tools/pbtools/scripts.py."""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
from pbtools.scripts import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
