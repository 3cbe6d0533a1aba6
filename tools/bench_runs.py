"""tools/bench's outputs as the other tools read them: a JSON file it (or
one of its modes) wrote, and a run of tools/bench itself for the
results.json of a few configurations."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "tools", "bench")


def load(path):
    """The JSON at path, or None when it is missing or does not parse."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def run(argv, out):
    """tools/bench ARGV --out OUT, its stdout discarded: (results.json's
    data, None), or (None, why not: the last line tools/bench wrote to
    stderr)."""
    p = subprocess.run([sys.executable, BENCH, "--out", out] + list(argv), cwd=ROOT,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, errors="replace")
    data = load(os.path.join(out, "results.json"))
    if p.returncode != 0 or data is None:
        why = p.stderr.strip().splitlines()
        return None, "tools/bench %s failed%s" % (" ".join(argv), ": " + why[-1] if why else "")
    return data, None
