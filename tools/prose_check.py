#!/usr/bin/env python3
"""Checks what docs/ says by hand against the image; see
tools/pbtools/docs/prose_check.py."""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
from pbtools.docs.prose_check import main  # noqa: E402

sys.exit(main())
