"""The benchmarks' result files (tools/pbtools/bench/runs.py): written with their
format, read back; a missing file is no record; a corrupt one, or one in
another format, is an error naming it, never "no record"; the committed
records docs/*-run.json carry the current format."""

import os
import subprocess
import sys

import pytest
from pbtools.bench import runs as bench_runs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def raises(path):
    try:
        bench_runs.load(path)
    except bench_runs.ResultsError as e:
        return str(e)
    return None


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "results.json")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def test_missing_file_is_no_record(path):
    assert bench_runs.load(path) is None


def test_saved_with_its_format(path):
    bench_runs.save(path, {"conditions": {"date": "today"}})
    data = bench_runs.load(path)
    assert data == {"conditions": {"date": "today"}, "format": bench_runs.FORMAT}, \
        "saved with its format, read back"


def test_truncated_file_is_an_error_naming_it(path):
    write(path, '{"conditions": ')
    why = raises(path)
    assert why and "results.json" in why, why


def test_file_without_format_is_an_error(path):
    write(path, '{"conditions": {}}')
    why = raises(path)
    assert why and "format None" in why, why


def test_older_format_is_an_error(path):
    write(path, '{"format": 0, "conditions": {}}')
    assert raises(path) is not None


def test_bench_report_names_the_bad_file(path):
    write(path, '{"format": 0, "conditions": {}}')
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "bench_report.py"),
                        os.path.dirname(path)], capture_output=True, text=True)
    assert (p.returncode == 1 and p.stderr.strip().count("\n") == 0
            and "results.json" in p.stderr), \
        "bench_report on it: exit 1, one line naming the file: %r" % ((p.returncode,
                                                                       p.stderr[-300:]),)


@pytest.mark.parametrize("name", ["lifecycle-run.json", "host-run.json", "ping-run.json"])
def test_committed_record_carries_the_format(name):
    record = os.path.join(ROOT, "docs", name)
    assert raises(record) is None and bench_runs.load(record) is not None, \
        "docs/%s carries format %d" % (name, bench_runs.FORMAT)
