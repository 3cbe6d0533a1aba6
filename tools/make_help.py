#!/usr/bin/env python3
"""Prints `make help`; see tools/pbtools/make_help.py."""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
from pbtools.make_help import main  # noqa: E402

sys.exit(main())
