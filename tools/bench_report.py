#!/usr/bin/env python3
"""Re-renders a benchmark run's report; see tools/pbtools/bench/report.py."""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
from pbtools.bench.report import main  # noqa: E402

sys.exit(main())
