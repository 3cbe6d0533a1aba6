"""debian(): a module that tools/setup installs from Debian's archive
(python3-pyelftools, python3-markdown), found even by a python3 that is
not Debian's own."""

import importlib
import sys

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
