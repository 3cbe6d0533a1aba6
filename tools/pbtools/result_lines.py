"""The one reader of result lines: `TAG: key=value key=value ...`.

The kernel prints its benchmarks' results as `bench: name=...`
(bench/runner.c) and a benchmark's own figures as `bench: detail=...`
(bench/lock_contended.c's repetitions), the pte update counts as
`mmstats: ...` and `mmcounts: name=...`; the benchmark program for Linux
(linux-user/bench/) prints the same `bench:` and `mmcounts:` lines. A
network run's guest prints one `net-stats: ...` line, which net_row()
joins with its peers' lines into a bench row. Every
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


# The peers' lines a network row is read from: udpclient's counts and
# busybox ping's summary (behind "net-door: " and "net-door: ping: " under
# Xen, tools/domu/init).
UDPCLIENT = re.compile(r"^(?:net-door: )?udpclient: sent (\d+), received (\d+), wrong (\d+), "
                       r"lost (\d+), rtt min/median/max (\d+)/(\d+)/(\d+) us, elapsed_ms (\d+)\s*$",
                       re.M)
PING = re.compile(r"^(?:net-door: )?(?:ping: )?round-trip min/avg/max = ([\d.]+)/([\d.]+)/"
                  r"([\d.]+) ms\s*$", re.M)
NET_STATS = ("echoed", "rx_frames", "tx_frames", "notifications", "interrupts", "grant_ops",
             "busy_ns", "cpus")


def per_packet(value, packets):
    """A count per echoed packet; None where the guest printed `-`."""
    if value == "-":
        return None
    return round(value / packets, 3)


def net_row(console_text, row_name, config=None, icount=False):
    """A network bench row from one run's console: the guest's `net-stats:`
    line, udpclient's counts line and, where the door ran one, ping's
    summary. ResultLineError naming what is missing or wrong: a run without
    a row's lines, or with more than one of each, is no row."""
    stats = records(console_text, "net-stats")
    if len(stats) != 1:
        raise ResultLineError("%s: %d net-stats: lines, not one" % (row_name, len(stats)))
    s = stats[0]
    if list(s) != list(NET_STATS):
        raise ResultLineError("%s: net-stats: has %s, not %s" % (row_name, " ".join(s),
                                                                   " ".join(NET_STATS)))
    for key in ("echoed", "rx_frames", "tx_frames", "interrupts", "busy_ns", "cpus"):
        if type(s[key]) is not int or s[key] < 0:
            raise ResultLineError("%s: net-stats: %s=%s is not a count" % (row_name, key, s[key]))
    for key in ("notifications", "grant_ops"):
        if s[key] != "-" and (type(s[key]) is not int or s[key] < 0):
            raise ResultLineError("%s: net-stats: %s=%s is neither a count nor -"
                                  % (row_name, key, s[key]))
    if s["echoed"] == 0:
        raise ResultLineError("%s: net-stats: echoed=0, nothing to divide by" % row_name)
    clients = UDPCLIENT.findall(console_text)
    if len(clients) != 1:
        raise ResultLineError("%s: %d udpclient counts lines with elapsed_ms, not one"
                              % (row_name, len(clients)))
    sent, received, wrong, lost, lo, mid, hi, elapsed_ms = map(int, clients[0])
    pings = PING.findall(console_text)
    if len(pings) > 1:
        raise ResultLineError("%s: %d ping round-trip lines, not one" % (row_name, len(pings)))
    packets = s["echoed"]
    return {"name": row_name, "config": config, "net": {
        "packets": packets,
        "rtt_us": [lo, mid, hi],
        "pps": round(received * 1000 / elapsed_ms, 1) if elapsed_ms else None,
        "busy_ns_per_packet": per_packet(s["busy_ns"], packets),
        "notifications_per_packet": per_packet(s["notifications"], packets),
        "interrupts_per_packet": per_packet(s["interrupts"], packets),
        "grant_ops_per_packet": per_packet(s["grant_ops"], packets),
        "ping_ms": [float(x) for x in pings[0]] if pings else None,
        "icount": bool(icount)}}
