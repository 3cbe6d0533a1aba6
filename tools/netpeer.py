#!/usr/bin/env python3
"""tools/run --net-peer's peer at the Ethernet layer; see
tools/pbtools/run/netpeer.py."""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in tools/
from pbtools.run.netpeer import main  # noqa: E402

sys.exit(main())
