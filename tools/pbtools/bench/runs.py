"""tools/bench's outputs as the other tools read and write them: a JSON
file it (or one of its modes) wrote, carrying the format it was written
in, and a run of tools/bench itself for the results.json of a few
configurations. A missing file is "no record"; a file that does not
parse, or was written in another format, is an error that names it."""

import json
import os
import subprocess
import sys

from pbtools.paths import ROOT

BENCH = os.path.join(ROOT, "tools", "bench")


FORMAT = 1  # raise it when a reader could misread an older file


def shown(path):
    """path as a message gives it: from the top of the tree when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


class ResultsError(Exception):
    """A results file that exists but cannot be used."""


def save(path, data):
    """Writes data as JSON to path (whole, or not at all), with its format."""
    data = dict(data, format=FORMAT)
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


def load(path):
    """The JSON at path, or None when there is none; ResultsError when it
    does not parse or carries another format."""
    try:
        with open(path) as f:
            data = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise ResultsError("%s: unreadable (%s); run the benchmark again or delete it"
                           % (shown(path), e)) from e
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ResultsError("%s: format %r, not %d; run the benchmark again"
                           % (shown(path),
                              data.get("format") if isinstance(data, dict) else None, FORMAT))
    return data


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


def index(data):
    """{config id: {benchmark name: result}} for every measured result."""
    idx = {}
    for run in data["configs"]:
        for r in run["results"]:
            if "min" in r:
                idx.setdefault(r["config"], {})[r["name"]] = r
    return idx


def measured(idx):
    return {name for results in idx.values() for name in results}


def value(idx, column, tags, name):
    r = idx.get(column + ("+" + tags if tags else ""), {}).get(name)
    return r["min"] if r else None


def unit_of(idx):
    """The run's unit, in words: instructions under icount."""
    units = {r.get("unit") for results in idx.values() for r in results.values()}
    return "TSC ticks" if "tsc_ticks" in units else "instructions"
