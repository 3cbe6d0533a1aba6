"""The one reader of result lines: `TAG: key=value key=value ...`.

The kernel prints its benchmarks' results as `bench: name=...`
(bench/runner.c) and a benchmark's own figures as `bench: detail=...`
(bench/lock_contended.c's repetitions), the pte update counts as
`mmstats: ...` and `mmcounts: name=...`; the benchmark program for Linux
(linux-user/bench/) prints the same `bench:` and `mmcounts:` lines. Every
tool that reads them reads them here, so none mirrors a printf with a
regex.

A value is a word without spaces or quotes, or a quoted string without
quotes in it. A word of digits (with one decimal point at most) is a number,
an int or a float; a quoted string stays a string. A line that starts like
a record but does not parse is an error naming the line, never skipped, so
a changed printf shows up as one.
"""

import re

KEY = r"[A-Za-z_][A-Za-z0-9_]*"
FIELD = re.compile(r'(%s)=(?:"([^"]*)"|([^\s"]+))' % KEY)
INTEGER = re.compile(r"-?\d+")
DECIMAL = re.compile(r"-?\d+\.\d+")


class ResultLineError(ValueError):
    """A line that starts like a result line but is not key=value fields."""


def number(word):
    """An unquoted value: an int, a float, or the word itself."""
    if INTEGER.fullmatch(word):
        return int(word)
    if DECIMAL.fullmatch(word):
        return float(word)
    return word


def fields(text):
    """`key=value ...` as a dict in the line's order. ResultLineError unless
    the whole text is such fields, one space apart, each key once."""
    out, pos = {}, 0
    while True:
        m = FIELD.match(text, pos)
        if not m:
            raise ResultLineError("no key=value at %r" % text[pos:pos + 24])
        key, quoted, word = m.groups()
        if key in out:
            raise ResultLineError("%s given twice" % key)
        out[key] = quoted if quoted is not None else number(word)
        pos = m.end()
        if pos == len(text):
            return out
        if text[pos] != " ":
            raise ResultLineError("no space after a value at %r" % text[pos:pos + 24])
        pos += 1


def records(text, tag, first=None):
    """Every line of a console that starts `TAG: FIRST=` (with no FIRST,
    every line that starts `TAG: `), parsed, in order. ResultLineError, with
    the line, for one that does not parse."""
    start = "%s: %s" % (tag, "%s=" % first if first else "")
    out = []
    for line in text.splitlines():
        line = line.rstrip()
        if line.startswith(start):
            try:
                out.append(fields(line[len(tag) + 2:]))
            except ResultLineError as e:
                raise ResultLineError("%r: %s" % (line, e)) from None
    return out


def results(text):
    """A console's benchmark results: its `bench: name=...` lines."""
    return records(text, "bench", "name")


def details(text, name):
    """The `bench: detail=NAME ...` lines a benchmark printed of its own."""
    return [r for r in records(text, "bench", "detail") if r["detail"] == name]
