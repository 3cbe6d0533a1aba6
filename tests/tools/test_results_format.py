#!/usr/bin/env python3
"""The benchmarks' result files (tools/pbtools/bench/runs.py): written with their
format, read back; a missing file is no record; a corrupt one, or one in
another format, is an error naming it, never "no record"; the committed
records docs/*-run.json carry the current format."""

import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from report import check, summary  # noqa: E402
from pbtools.bench import runs as bench_runs  # noqa: E402


def raises(path):
    try:
        bench_runs.load(path)
    except bench_runs.ResultsError as e:
        return str(e)
    return None


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "results.json")
        check("a missing file is no record", bench_runs.load(path) is None)
        bench_runs.save(path, {"conditions": {"date": "today"}})
        data = bench_runs.load(path)
        check("saved with its format, read back",
              data == {"conditions": {"date": "today"}, "format": bench_runs.FORMAT}, data)
        with open(path, "w") as f:
            f.write('{"conditions": ')
        why = raises(path)
        check("a truncated file is an error naming it", why and "results.json" in why, why)
        with open(path, "w") as f:
            f.write('{"conditions": {}}')
        why = raises(path)
        check("a file without a format is an error", why and "format None" in why, why)
        with open(path, "w") as f:
            f.write('{"format": 0, "conditions": {}}')
        check("an older format is an error", raises(path) is not None)
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "bench_report.py"), tmp],
                           capture_output=True, text=True)
        check("bench_report on it: exit 1, one line naming the file",
              p.returncode == 1 and p.stderr.strip().count("\n") == 0
              and "results.json" in p.stderr, repr((p.returncode, p.stderr[-300:])))
    for name in ("lifecycle-run.json", "host-run.json", "ping-run.json"):
        record = os.path.join(ROOT, "docs", name)
        check("docs/%s carries format %d" % (name, bench_runs.FORMAT),
              raises(record) is None and bench_runs.load(record) is not None)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
