"""What every pytest test of tests/ shares: the tools' package (pbtools)
importable, so a test calls the tools' functions rather than parsing a
command's output, and no __pycache__ left in tests/."""

import os
import sys

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
