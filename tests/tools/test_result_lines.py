#!/usr/bin/env python3
"""tools/pbtools/result_lines.py, the one reader of result lines, without booting:
it types what it reads (whole numbers, decimals, quoted strings that stay
strings), picks the lines of one tag and first key out of a console and
leaves the free-text lines of the same tag alone, and refuses, naming the
line, one that is not key=value fields (free text, a doubled space, an
empty value, a key twice). Then every printf format in the tree that
starts a result line is filled in with sample values and must parse: a
field written as free text fails here, not in a benchmark run. A format
that macros make (a tag such as "mmstats:" alone, the rest from a list)
is read from the file as the C preprocessor leaves it. net_row() makes a
network bench row of the net-stats: line and the peers' lines (patchbay's
and Linux's with its `-` for what it cannot count, dom0's behind
net-door: with ping's summary), and refuses a console without exactly
one of each or with nothing echoed."""

import os
import re
import subprocess

import pytest
from pbtools import result_lines

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The starts of the lines result_lines reads, as tools/ asks for them.
STARTS = ("bench: name=", "bench: detail=", "mmcounts: name=", "mmstats: ", "linux-bench: release=",
          "net-stats: ")
C_DIRS = ["arch", "bench", "kernel", "linux-user", "mm", "pv", "xen"]
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
ADJACENT = re.compile(r'"(?:[^"\\\n]|\\.)*"(?:\s*"(?:[^"\\\n]|\\.)*")*')
CONVERSION = re.compile(r"%[-0-9.]*(?:l|ll|z)?([dusxc])")
SAMPLE = {"d": "7", "u": "7", "s": "word", "x": "1f", "c": "c"}

CONSOLE = """\
cmdline: "bench=lock_contended bench.reps=2"
bench: 1 selected, config native-patched+smp2, 2 repetitions each
bench: unknown benchmark 'bogus' (known: all, irq)
bench: detail=lock_contended rep=1 per_acq=480 unit=instructions acquisitions=1000\r
bench: detail=lock_contended threads=2 cpus=2 lock="native ticket" mean=480 unit=instructions
bench: detail=other rep=1 per_acq=1
bench: name=loop_overhead config=native-patched+smp2 iters=100000 reps=2 min=3.00 median=3.00 \
unit=instructions
bench: name=lock_contended config=native-patched+smp2 iters=500 reps=2 min=480.18 \
median=480.18 unit=instructions
bench: name=xen_hypercall config=native-patched+smp2 skipped="runs on xen only"
mmstats: ptes=12 hypercalls=0 mc_entries_mean=0.00
patchbay: PASS
"""


def refused(line, why):
    """records() raises ResultLineError for a console with the line,
    naming the line and why."""
    try:
        got = result_lines.records(CONSOLE + line + "\n", "bench", "name")
    except result_lines.ResultLineError as e:
        return line in str(e) and why in str(e), str(e)
    return False, "parsed as %s" % got


def test_fields_types():
    r = result_lines.fields('name=save_fl iters=100000 min=4.00 unit=tsc_ticks failed="3 of 7"')
    assert r == dict(name="save_fl", iters=100000, min=4.0, unit="tsc_ticks", failed="3 of 7") \
        and type(r["iters"]) is int and type(r["min"]) is float, \
        "fields: whole numbers, decimals, words and quoted strings: %s" % r


def test_fields_quoted_number_stays_a_string():
    assert result_lines.fields('why="12"') == {"why": "12"}


def test_fields_in_the_lines_order():
    assert list(result_lines.fields("b=1 a=2 c=x")) == ["b", "a", "c"]


def test_fields_version_is_a_word():
    assert result_lines.fields("release=6.1.0-28-amd64 v=1.2.3") == dict(
        release="6.1.0-28-amd64", v="1.2.3"), "fields: a version is a word, not a number"


def test_results_name_lines_only():
    found = result_lines.results(CONSOLE)
    assert [r["name"] for r in found] == ["loop_overhead", "lock_contended", "xen_hypercall"] \
        and found[1]["min"] == 480.18 and found[2]["skipped"] == "runs on xen only", \
        "results: the name= lines only, in order, a trailing space or \\r ignored: %s" % found


def test_details_of_one_benchmark():
    mine = result_lines.details(CONSOLE, "lock_contended")
    assert [d.get("rep") for d in mine] == [1, None] and mine[0]["acquisitions"] == 1000 \
        and mine[1]["lock"] == "native ticket", \
        "details: one benchmark's detail lines, not another's: %s" % mine


def test_records_every_line_of_a_tag():
    stats = result_lines.records(CONSOLE, "mmstats")
    assert stats == [dict(ptes=12, hypercalls=0, mc_entries_mean=0.0)], \
        "records: every line of a tag, with no first key"


def test_records_none_without_them():
    assert result_lines.results("patchbay: PASS\n") == []


REFUSED = [
    ("free text after the fields",
     "bench: name=x min=4.00 instructions per op", "no key=value at 'instructions"),
    ("two spaces", "bench: name=x  min=4.00", "no key=value at ' min"),
    ("an empty value", "bench: name=x unit= min=4.00", "no key=value at 'unit="),
    ("a key twice", "bench: name=x min=1.00 min=2.00", "min given twice"),
    ("an unclosed quote", 'bench: name=x failed="lost', "no key=value at 'failed"),
    ("a quote inside a word", 'bench: name=x"y"', "no space after a value")]


@pytest.mark.parametrize("line,why", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_refused_naming_the_line(line, why):
    ok, detail = refused(line, why)
    assert ok, detail


NET_NATIVE = """\
net: eth0 up at 10.0.2.15: UDP echo on port 7, counters on port 9, ping; waiting 50 s
udpclient: sent 500, received 500, wrong 0, lost 0, rtt min/median/max 40/52/900 us, elapsed_ms 250
net: client sent 500, received 500, wrong 0, lost 0
net-stats: echoed=500 rx_frames=502 tx_frames=503 notifications=50 interrupts=400 grant_ops=0 \
busy_ns=1500000 cpus=1
patchbay: PASS
"""
NET_XEN_LINUX = """\
net-door: ping: round-trip min/avg/max = 0.210/0.305/1.020 ms
net-door: udpclient: sent 100, received 99, wrong 0, lost 1, rtt min/median/max 80/95/400 us, \
elapsed_ms 40
net-stats: echoed=100 rx_frames=104 tx_frames=104 notifications=- interrupts=120 grant_ops=- \
busy_ns=3000000 cpus=2
"""


def row_refused(console, why):
    """net_row() raises ResultLineError saying why."""
    try:
        got = result_lines.net_row(console, "net_echo_w1")
    except result_lines.ResultLineError as e:
        return why in str(e), str(e)
    return False, "made %s" % got


def test_net_row_native():
    r = result_lines.net_row(NET_NATIVE, "net_echo_w1", config="native-patched+net", icount=True)
    assert r == {
        "name": "net_echo_w1", "config": "native-patched+net", "net": {
            "packets": 500, "rtt_us": [40, 52, 900], "pps": 2000.0, "busy_ns_per_packet": 3000.0,
            "notifications_per_packet": 0.1, "interrupts_per_packet": 0.8,
            "grant_ops_per_packet": 0.0, "ping_ms": None, "icount": True}}, \
        "net_row: patchbay natively, every figure per echoed packet"


def test_net_row_linux_under_xen():
    r = result_lines.net_row(NET_XEN_LINUX, "net_ping", config="linux-domu+net")
    assert r["net"] == {
        "packets": 100, "rtt_us": [80, 95, 400], "pps": 2475.0, "busy_ns_per_packet": 30000.0,
        "notifications_per_packet": None, "interrupts_per_packet": 1.2,
        "grant_ops_per_packet": None, "ping_ms": [0.21, 0.305, 1.02], "icount": False}, \
        "net_row: Linux under Xen, - as null, dom0's lines and ping's summary"


STATS = NET_NATIVE.splitlines()[3]
OLD_CLIENT = "udpclient: sent 5, received 5, wrong 0, lost 0, rtt min/median/max 1/2/3 us\n"
ROW_REFUSED = [
    ("no net-stats: line", "\n".join(NET_NATIVE.splitlines()[:3]), "0 net-stats: lines"),
    ("two net-stats: lines", NET_NATIVE + STATS + "\n", "2 net-stats: lines"),
    ("a udpclient line without elapsed_ms", OLD_CLIENT + STATS + "\n",
     "0 udpclient counts lines"),
    ("nothing echoed", NET_NATIVE.replace("echoed=500", "echoed=0"), "echoed=0"),
    ("a field missing", NET_NATIVE.replace(" cpus=1", ""), "not echoed"),
    ("- where a count must be", NET_NATIVE.replace("busy_ns=1500000", "busy_ns=-"),
     "busy_ns=- is not a count")]


@pytest.mark.parametrize("console,why", [r[1:] for r in ROW_REFUSED],
                         ids=[r[0] for r in ROW_REFUSED])
def test_net_row_refuses(console, why):
    ok, detail = row_refused(console, why)
    assert ok, detail


def c_files():
    for d in C_DIRS:
        for dirpath, _, names in os.walk(os.path.join(ROOT, d)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.join(dirpath, n)


def literals(source):
    """(offset, text) of each string literal, adjacent ones joined."""
    for m in ADJACENT.finditer(source):
        text = "".join(STRING.findall(m.group(0)))
        yield m.start(), text.replace('\\"', '"').replace("\\n", "\n")


def preprocessed(path):
    """The kernel source file as the C preprocessor leaves it."""
    return subprocess.run(["gcc", "-E", "-P", "-I", ROOT, "-DHOST_TEST",
                           "-D__XEN_INTERFACE_VERSION__=__XEN_LATEST_INTERFACE_VERSION__", path],
                          capture_output=True, text=True, check=True).stdout


def formats():
    """Every string literal (adjacent ones joined, a macro's across its
    backslashes) in the tree's C that starts a result line: (where, text)."""
    tags = {start.split(" ")[0] for start in STARTS}
    for path in c_files():
        with open(path) as f:
            source = f.read().replace("\\\n", " ")
        found, made_at = [], None
        for offset, text in literals(source):
            where = "%s:%d" % (os.path.relpath(path, ROOT), source.count("\n", 0, offset) + 1)
            if text.startswith(STARTS):
                found.append(text)
                yield where, text
            elif text in tags:  # the rest comes from macros
                made_at = made_at or where
        if made_at:
            yield from ((made_at, t) for _, t in literals(preprocessed(path))
                        if t.startswith(STARTS) and t not in found)


def filled(text):
    """A format with each conversion replaced by a sample value."""
    return CONVERSION.sub(lambda m: SAMPLE[m.group(1)], text).rstrip("\n")


FORMATS = list(formats())


def parses(text):
    """The error reading a format filled in as a result line, or None."""
    line = filled(text)
    try:
        result_lines.records(line, line.split(": ", 1)[0])
    except result_lines.ResultLineError as e:
        return e
    return None


@pytest.mark.parametrize("text", [t for _, t in FORMATS], ids=[w for w, _ in FORMATS])
def test_printer_prints_a_result_line(text):
    error = parses(text)
    assert error is None, "prints a result line: %s" % error


@pytest.mark.parametrize("start", STARTS)
def test_tree_prints_lines_of(start):
    seen = [filled(t).split("=", 1)[0] for _, t in FORMATS if parses(t) is None]
    assert any(s.startswith(start.split("=")[0]) for s in seen), \
        "the tree prints %s... lines: %s" % (start, seen)
