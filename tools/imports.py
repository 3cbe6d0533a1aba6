"""How the tools import what they reuse, in one place:
debian() a module that tools/setup installs from Debian's archive
(python3-pyelftools, python3-markdown), and tool() a script of tools/
without a .py name (pvsites, tour, run, ...), so its functions are called
rather than its output parsed."""

import importlib
import importlib.machinery
import importlib.util
import os
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
# Where Debian puts its Python packages; a python3 other than Debian's own
# (a pyenv build, say) does not look there.
DEBIAN_PACKAGES = "/usr/lib/python3/dist-packages"


def debian(module, package):
    """The module, or an exit naming the Debian package that provides it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if DEBIAN_PACKAGES not in sys.path:
            sys.path.append(DEBIAN_PACKAGES)
    try:
        return importlib.import_module(module)
    except ImportError:
        sys.exit("tools: %s is missing; run tools/setup (or apt-get install %s)"
                 % (package, package))


def tool(name):
    """tools/NAME as a module; its main() does not run."""
    sys.dont_write_bytecode = True  # a loaded script would leave tools/__pycache__
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(TOOLS, name))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module
