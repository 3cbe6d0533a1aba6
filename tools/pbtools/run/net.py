"""tools/run --net: a network card, and the host's own client as the peer.
With --linux the guest is Debian's Linux, whose virtio-net the benchmark
program's bench.net mode brings up with the same words.

Natively the guest gets a modern virtio-net PCI device on QEMU's user
network, with two UDP ports of 127.0.0.1 (free ones, chosen here)
forwarded to the guest's echo port (7) and counters port (9). The door
adds net=on and net.ip=10.0.2.15 (QEMU's user network gives the guest
that address) to the kernel command line unless it sets them, and a
net.timeout that ends the guest's wait before the door's own time-out
(under --icount, the longest the kernel takes: see net_words).
Once the guest says its card is up, tools/udpclient sends its datagrams
through the echo port, checks every one that comes back, prints its line
(shown on the console) and tells the guest its counts through the
counters port; the guest's verdict, which carries them, ends the run.
"""

import os
import re
import selectors
import socket
import subprocess
import sys

from pbtools.paths import build_dir, tool
from pbtools.run.common import cmdline_sets, fail

NET_ID = "pbnet"
GUEST_IP = "10.0.2.15"  # QEMU's user network: the first address it hands out
ECHO_PORT, COUNTERS_PORT = 7, 9
# The client's datagrams: --net-count, --net-size (payload bytes: its
# header up to what fills a 1500-byte IP packet, so a frame of 1514) and
# --net-window (datagrams in flight), as tools/udpclient takes them.
COUNT = 200
SIZE, SIZES = 64, (8, 1472)
WINDOW, WINDOWS = 8, (1, 4096)
# --net-interval-ms: the client's wait between sendings; without it the
# door's own (none natively, run_domu's under --domu).
INTERVALS_MS = (0, 60000)
# The guest's line once its card can send and receive (kernel/net/).
NET_UP = re.compile(rb"^net: \S+ up at ", re.MULTILINE)
# Either peer's counts line, which says it finished.
COUNTS_LINE = re.compile(rb"^(udpclient|netpeer): sent ", re.MULTILINE)
# --net-peer: the host's UDP client through QEMU's user network, or the
# Ethernet-level peer (tools/netpeer.py) on a socket of QEMU's: its plans.
PEERS = ("udpclient", "frames", "flood")
# The guest gives up waiting for the client's end this long before the
# door's time-out would kill it, so the run ends with the guest's verdict.
TIMEOUT_MARGIN = 10
NET_TIMEOUT_MAX = 86400  # the kernel's bound for net.timeout (kernel/net_workload.c)
NET_DOORS = "natively and with --domu, patchbay or --linux"  # what --net supports, for the refusal


def udpclient_path():
    """Where the Makefile builds the host's client (tools/udpclient.c)."""
    return os.path.join(build_dir(), "host", "udpclient")


def check_net_args(p, args):
    """--net once, on a door that has it; the client's options only with
    it, each in the range the client takes, their defaults filled in."""
    mine = [(name, getattr(args, attr), default, lo, hi)
            for name, attr, default, lo, hi in (("--net-count", "net_count", COUNT, 1, 10 ** 8),
                                                ("--net-size", "net_size", SIZE, *SIZES),
                                                ("--net-window", "net_window", WINDOW, *WINDOWS),
                                                ("--net-interval-ms", "net_interval_ms", None,
                                                 *INTERVALS_MS))]
    if not args.net:
        given = [name for name, value, _, _, _ in mine if value is not None]
        given += ["--net-peer"] if args.net_peer is not None else []
        if given:
            p.error("%s appl%s to --net only" % (" and ".join(given),
                                                 "ies" if len(given) == 1 else "y"))
        return
    if args.net_peer is None:
        args.net_peer = "udpclient"
    if args.net > 1:
        p.error("--net given %d times: the guest has one network card" % args.net)
    others = [flag for flag, on in (("--iso", args.iso), ("--xen", args.xen)) if on]
    if others:
        p.error("--net is not supported with %s (only %s)" % (" ".join(others), NET_DOORS))
    if args.linux and args.net_peer != "udpclient":
        p.error("--net-peer %s checks patchbay's own stack: --linux takes the UDP client only"
                % args.net_peer)
    if args.domu and args.net_peer != "udpclient":
        p.error("--net-peer %s needs the native door: under --domu the peers are dom0's"
                % args.net_peer)
    for name, value, default, lo, hi in mine:
        if value is not None and not lo <= value <= hi:
            p.error("%s must be from %d to %d, not %d" % (name, lo, hi, value))
        setattr(args, name[2:].replace("-", "_"), default if value is None else value)


def net_words(args, cmdline):
    """The kernel's net=, net.ip= and net.timeout=, each unless the user's
    command line (the words after --) sets it. Under --icount an idle
    guest's clock jumps to its next timer (QEMU's sleep=off), so its
    seconds pass faster than the door's while it waits for the client:
    there the guest waits as long as it may, and the door's time-out ends
    a run whose client never ends."""
    if not args.net or args.domu:
        return []
    wait = NET_TIMEOUT_MAX if args.icount else max(1, int(args.timeout) - TIMEOUT_MARGIN)
    words = []
    for key, value in (("net", "on"), ("net.ip", GUEST_IP), ("net.timeout", str(wait))):
        if not any(w.startswith(key + "=") for line in cmdline for w in line.split()):
            words.append("%s=%s" % (key, value))
    return words


def guest_ip(cmdline):
    """The address the kernel takes: the command line's last net.ip=."""
    ip = GUEST_IP
    for word in cmdline.split():
        if word.startswith("net.ip="):
            ip = word[len("net.ip="):]
    return ip


def free_udp_port():
    """A UDP port of 127.0.0.1 nothing holds now (QEMU binds it next)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare_net(args):
    """Refuses a missing client (status 2); chooses the forwarded ports.
    Nothing under --domu, whose client dom0 runs (tools/pbtools/run/domu.py)."""
    if not args.net or args.domu:
        return
    if not os.access(udpclient_path(), os.X_OK):
        fail("%s not found; build it with make udpclient (--net runs it as the guest's "
             "peer)" % udpclient_path(), 2)
    args.echo_port = free_udp_port()
    args.counters_port = free_udp_port()
    while args.counters_port == args.echo_port:
        args.counters_port = free_udp_port()
    # With the Ethernet peer the two ports are the socket's ends: QEMU's
    # (echo_port) and the peer's (counters_port).


def net_qemu_args(args):
    """QEMU's words for the card and its forwarded ports; [] without --net,
    and under --domu, whose card is Xen's (tools/pbtools/run/domu.py)."""
    if not args.net or args.domu:
        return []
    if args.net_peer != "udpclient":
        ends = "local.type=inet,local.host=127.0.0.1,local.port=%d," \
               "remote.type=inet,remote.host=127.0.0.1,remote.port=%d" % (
                   args.echo_port, args.counters_port)
        return ["-netdev", "dgram,id=%s,%s" % (NET_ID, ends),
                "-device", "virtio-net-pci,netdev=%s,disable-legacy=on" % NET_ID]
    ip = guest_ip(args.cmdline)
    fwd = ",".join("hostfwd=udp:127.0.0.1:%d-%s:%d" % (host, ip, guest)
                   for host, guest in ((args.echo_port, ECHO_PORT),
                                       (args.counters_port, COUNTERS_PORT)))
    return ["-netdev", "user,id=%s,%s" % (NET_ID, fwd),
            "-device", "virtio-net-pci,netdev=%s,disable-legacy=on" % NET_ID]


def client_command(args):
    """tools/udpclient against the forwarded echo port, its end to counters;
    or tools/netpeer.py's plan on the socket's far end."""
    if args.net_peer != "udpclient":
        return [sys.executable, tool("netpeer.py"), args.net_peer,
                "--port", str(args.counters_port), "--guest-port", str(args.echo_port),
                "--guest-ip", guest_ip(args.cmdline), "--count", str(args.net_count)]
    return [udpclient_path(), "127.0.0.1", str(args.echo_port), "--count", str(args.net_count),
            "--size", str(args.net_size), "--window", str(args.net_window),
            "--end-port", str(args.counters_port)] + (
                [] if args.net_interval_ms is None else ["--interval-ms", str(args.net_interval_ms)])


class NetClient:
    """The host's client during a run: started when the guest's card is
    up, its output shown on the console whole lines at a time, between the
    guest's lines, and stopped with QEMU."""

    def __init__(self, args, console):
        self.args, self.console = args, console
        self.proc = None
        self.tail = b""
        self.out = b""      # the client's output not yet shown
        self.said = False   # its own line was shown

    def guest_wrote(self, data, sel):
        """After the guest's bytes: start the client on the up line, and
        show what it wrote once the guest's line is whole."""
        if self.proc is None:
            self.tail = (self.tail + data)[-4096:]
            if NET_UP.search(self.tail):
                self.start(sel)
        self.show()

    def start(self, sel):
        try:
            self.proc = subprocess.Popen(client_command(self.args), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except OSError as e:
            self.proc = False
            self.out += b"udpclient: cannot run %s: %s\n" % (
                udpclient_path().encode(), e.strerror.encode())
            return
        sel.register(self.proc.stdout, selectors.EVENT_READ, "client")

    def read(self, sel):
        """The client's output; at its end, its status if it said nothing."""
        data = os.read(self.proc.stdout.fileno(), 65536)
        if data:
            self.out += data
        else:
            sel.unregister(self.proc.stdout)
            status = self.proc.wait()
            if self.out and not self.out.endswith(b"\n"):
                self.out += b"\n"
            if not COUNTS_LINE.search(self.out) and not self.said:
                self.out += b"udpclient: exited with status %d without its counts\n" % status
        self.show()

    def show(self, force=False):
        """Whole lines of the client's, where the console is at a line's end."""
        data = self.console.data
        if not (force or not data or data.endswith(b"\n")):
            return
        cut = len(self.out) if force else self.out.rfind(b"\n") + 1
        if cut:
            if force and data and not data.endswith(b"\n"):
                self.console.write(b"\n")
            shown, self.out = self.out[:cut], self.out[cut:]
            self.said = self.said or bool(COUNTS_LINE.search(shown))
            self.console.write(shown)

    def stop(self):
        """Ends a client still running when QEMU is done; shows the rest."""
        if self.proc:
            if self.proc.poll() is None:
                self.proc.kill()
                if self.out and not self.out.endswith(b"\n"):
                    self.out += b"\n"
                if not self.said:
                    self.out += b"udpclient: still running when the run ended, stopped\n"
            self.proc.wait()
            self.proc.stdout.close()
        if self.out:
            self.show(force=True)


# --domu --net: the guest's card is a vif on a bridge in dom0 (netback,
# xl's vif-bridge hotplug script), and the kernel is told net=on with its
# address (NET_GUEST); dom0's /init pings it and runs the UDP client
# (tools/udpclient.c, built static, in the run's archive) against it once
# it is up, and shows their lines behind NET_PREFIX (tools/pbtools/run/domu.py).
# dom0's address on its bridge xenbr0, the guest's and its MAC (Xen's
# OUI, 00:16:3e). The client
# sends --net-count datagrams NET_INTERVAL_MS apart; under a plan up to
# NET_PLAN_COUNT NET_PLAN_INTERVAL_MS apart, until the plan is through;
# --net-interval-ms sets the pace instead (0: a flood, for the benchmarks).
NET_HOST = "10.0.0.1"
NET_GUEST = "10.0.0.2"
NET_MAC = "00:16:3e:0a:00:02"
NET_PREFIX = b"net-door: "
# --net-detach's and --net-flood's too: the stream runs until the guest
# stops, or the flood is over.
NET_PLAN_COUNT = 1000000
NET_FLOOD_MAX = 1000000  # --net-flood's pings
NET_INTERVAL_MS = 10
NET_PLAN_INTERVAL_MS = 20
# Under a plan the window (unless --net-window says otherwise) outlasts
# the client's 1 s time-out at NET_PLAN_INTERVAL_MS: while the guest is
# away the client keeps its pace instead of waiting for slots to expire,
# so an outage's datagrams are those sent meanwhile and its length is
# measured to one interval.
NET_PLAN_WINDOW = 64


def net_interval_ms(args):
    """The client's wait between sendings: --net-interval-ms, else the
    door's pace (a plan's slower, so its stream lasts the plan)."""
    given = getattr(args, "net_interval_ms", None)
    if given is not None:
        return given
    return NET_PLAN_INTERVAL_MS if args.lifecycle else NET_INTERVAL_MS


def domu_net_words(args, cmdline):
    """--domu --net's words for the kernel: net=on and net.ip=NET_GUEST
    unless the command line (the words after --) sets them, and under a
    lifecycle plan net.timeout, the run's time-out: the client's end comes
    only once the plan is through. tools/pbtools/run/net.py checks the options."""
    if not args.net:
        return []
    ours = ["net=on", "net.ip=" + NET_GUEST]
    if args.lifecycle:
        ours.append("net.timeout=%d" % args.timeout)
    return [w for w in ours if not cmdline_sets(cmdline, w.split("=")[0])]
