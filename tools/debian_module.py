"""Imports a Python module that tools/setup installs from Debian's archive
(python3-pyelftools, python3-markdown). Debian puts them in
/usr/lib/python3/dist-packages, where a python3 other than Debian's own (a
pyenv build, say) does not look: look there too before giving up."""

import importlib
import sys

DEBIAN_PACKAGES = "/usr/lib/python3/dist-packages"


def load(module, package):
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
