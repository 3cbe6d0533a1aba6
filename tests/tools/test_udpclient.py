"""tools/udpclient, the peer of the guest's UDP echo, against small echo
services played here on 127.0.0.1: a faithful echo passes with every
datagram received; an echo that changes one byte of every fifth
datagram, or its length, or answers with a datagram never sent, must be
counted wrong (status 1); one that drops every tenth must be counted lost;
no echo at all fails. The counts line ends with the run's elapsed_ms,
no less than the sending intervals add up to. The counters port must get the client's `end` line
with the same counts, and the client shows the answer to it. A run of
datagrams lost in a row gets one outage line;
SIGINT stops the sending early and the run ends as usual. Bad
arguments get one line and status 2."""

import os
import re
import signal
import socket
import subprocess
import threading
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CLIENT = os.path.join(ROOT, "build", "host", "udpclient")
LINE = re.compile(r"^udpclient: sent (\d+), received (\d+), wrong (\d+), lost (\d+), "
                  r"rtt min/median/max (\d+)/(\d+)/(\d+) us, elapsed_ms (\d+)$", re.M)


def uptime():
    """/proc/uptime's seconds, the clock the client stamps outages with."""
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


class Peer:
    """An echo port and a counters port; change(i, data) says what the
    i-th datagram's echo is (None: no echo)."""

    def __init__(self, change):
        self.echo = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.echo.bind(("127.0.0.1", 0))
        self.counters = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.counters.bind(("127.0.0.1", 0))
        self.change, self.ends = change, []
        self.echo.settimeout(0.2)
        self.counters.settimeout(0.2)
        self.stop = False
        self.threads = [threading.Thread(target=self.serve_echo),
                        threading.Thread(target=self.serve_counters)]
        for t in self.threads:
            t.start()

    def serve_echo(self):
        i = 0
        while not self.stop:
            try:
                data, addr = self.echo.recvfrom(2048)
            except socket.timeout:
                continue
            out = self.change(i, data)
            i += 1
            if out is not None:
                self.echo.sendto(out, addr)

    def serve_counters(self):
        while not self.stop:
            try:
                data, addr = self.counters.recvfrom(2048)
            except socket.timeout:
                continue
            self.ends.append(data.decode(errors="replace"))
            self.counters.sendto(b"net: rx 1 frames, tx 1, dropped: none\n", addr)

    def run(self, *extra, interrupt_after=None):
        args = [CLIENT, "127.0.0.1", str(self.echo.getsockname()[1]),
                "--end-port", str(self.counters.getsockname()[1]), "--timeout-ms", "300"]
        if interrupt_after is None:
            p = subprocess.run(args + list(extra), capture_output=True, text=True, timeout=60)
        else:
            proc = subprocess.Popen(args + list(extra), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            time.sleep(interrupt_after)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
            p = subprocess.CompletedProcess(args, proc.returncode, out, err)
        self.stop = True
        for t in self.threads:
            t.join()
        return p


def counts(p):
    m = LINE.search(p.stdout)
    return tuple(int(x) for x in m.groups()[:4]) if m else None


def flip_fifth(i, data):
    if i % 5 != 4:
        return data
    b = bytearray(data)
    b[len(b) // 2] ^= 0x20
    return bytes(b)


@pytest.fixture(scope="module", autouse=True)
def client():
    """Every test runs the built client: without it each fails, saying how to build it."""
    if not os.access(CLIENT, os.X_OK):
        pytest.fail("build/host/udpclient is built: run make build/host/udpclient")


# name: (the echo's change, the client's options, counts, status)
ECHOES = {
    "faithful echo": (lambda i, d: d, ["--count", "200", "--size", "300", "--window", "16"],
                      (200, 200, 0, 0), 0),
    "a byte changed in every fifth": (flip_fifth, ["--count", "50", "--size", "100"],
                                      (50, 40, 10, 0), 1),
    "every fifth cut short": (lambda i, d: d[:-1] if i % 5 == 4 else d, ["--count", "50"],
                              (50, 40, 10, 0), 1),
    # The garbled echo is wrong, and the datagram it stood for never came back.
    "a sequence number never sent": (lambda i, d: b"\xff\xff" + d[2:] if i == 3 else d,
                                     ["--count", "20"], (20, 19, 1, 1), 1),
    "every tenth dropped": (lambda i, d: None if i % 10 == 9 else d,
                            ["--count", "50", "--window", "4"], (50, 45, 0, 5), 0),
    "no echo at all": (lambda i, d: None, ["--count", "5"], (5, 0, 0, 5), 1),
}


@pytest.mark.parametrize("change,extra,want,status", ECHOES.values(), ids=list(ECHOES))
def test_echo(change, extra, want, status):
    peer = Peer(change)
    p = peer.run(*extra)
    got = counts(p)
    assert got == want, "counts %s: got %s; %s%s" % (want, got, p.stdout, p.stderr)
    assert p.returncode == status, "status %d, not %d" % (p.returncode, status)
    end = "end sent=%d received=%d wrong=%d lost=%d\n" % got
    assert peer.ends[:1] == [end], "the counters port got the end line: got %r" % peer.ends
    assert "udpclient: the guest's counters: net: rx 1 frames" in p.stdout, \
        "the guest's answer shown: %s" % p.stdout


def test_elapsed_ms_covers_the_intervals():
    peer = Peer(lambda i, d: d)
    p = peer.run("--count", "40", "--window", "1", "--interval-ms", "5")
    m = LINE.search(p.stdout)
    assert m is not None and int(m.group(8)) >= 39 * 5, \
        "elapsed_ms: at least the 39 intervals of 5 ms between the sendings: %s" % p.stdout


def test_ten_dropped_in_a_row_one_outage():
    peer = Peer(lambda i, d: None if 10 <= i < 20 else d)
    p = peer.run("--count", "40", "--window", "4")
    outages = re.findall(r"^udpclient: outage: (\d+) lost in a row \(datagrams (\d+)-(\d+), the "
                         r"first sent at uptime \d+\.\d\d s\), "
                         r"unanswered for \d+ ms$", p.stdout, re.M)
    assert outages == [("10", "10", "19")], \
        "ten dropped in a row: one outage line, datagrams 10-19: %s" % p.stdout


def test_last_five_dropped_outage_to_the_end():
    peer = Peer(lambda i, d: None if i >= 35 else d)
    before = uptime()
    p = peer.run("--count", "40", "--window", "4")
    after = uptime()
    end = re.search(r"^udpclient: outage: 5 lost in a row \(datagrams 35-39, the first sent at "
                    r"uptime (\d+\.\d\d) s\), to the end$", p.stdout, re.M)
    assert end is not None, "the last five dropped: an outage to the end: %s" % p.stdout
    assert before - 0.01 <= float(end.group(1)) <= after, \
        "the outage's time is on /proc/uptime's clock, within the run: %s not within " \
        "%.2f-%.2f" % (end.group(1), before, after)


def test_sigint_stops_the_sending():
    peer = Peer(lambda i, d: d)
    p = peer.run("--count", "1000000", "--interval-ms", "5", interrupt_after=1.0)
    got = counts(p)
    assert (got is not None and 0 < got[0] < 1000000 and got[1] == got[0]
            and p.returncode == 0), \
        "SIGINT: the sending stops early, every datagram sent answered, status 0: " \
        "got %s, status %d; %s%s" % (got, p.returncode, p.stdout, p.stderr)
    assert peer.ends[:1] == ["end sent=%d received=%d wrong=0 lost=0\n" % got[:2]], \
        "SIGINT: the counters port got the end line: got %r" % peer.ends


@pytest.mark.parametrize("args", [
    ["127.0.0.1"], ["localhost", "7", "--count", "1"], ["127.0.0.1", "7", "--count", "0"],
    ["127.0.0.1", "7", "--count", "1", "--size", "7"],
    ["127.0.0.1", "7", "--count", "1", "--bogus", "1"], ["127.0.0.1", "7"],
], ids=["PORT missing", "a host name", "a count of 0", "a size below 8", "an unknown option",
        "no --count"])
def test_bad_arguments_one_line(args):
    p = subprocess.run([CLIENT] + args, capture_output=True, text=True, timeout=10)
    lines = p.stderr.strip().splitlines()
    assert (p.returncode == 2 and len(lines) == 1 and lines[0].startswith("udpclient: ")
            and not p.stdout), "status %d, %r" % (p.returncode, p.stderr)
