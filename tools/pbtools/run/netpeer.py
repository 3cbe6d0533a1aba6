"""The guest's peer at the Ethernet layer, for tools/run --net-peer: QEMU's
card sends its frames over a UDP socket (-netdev dgram) here, so frames no
IP stack would send can reach the guest's. Two plans:

  frames  ARP for the guest's address, pings and UDP echoes, each reply
          checked byte for byte; then one of each malformed frame (short,
          another MAC, another EtherType, bad ARP, ARP for another
          address, a bad IP header, a bad IP checksum, options, fragments,
          a total length past what arrived, another address, another
          protocol, bad ICMP and UDP checksums, a bad UDP length, a closed
          port, a request the counters service does not know): none may be
          answered, and the guest's counters (asked with `stats`) must show
          each in its own reason.
  flood   COUNT UDP echoes back to back, without waiting for any; then a
          ping and `stats` must still be answered.

Either way it ends like tools/udpclient: one "netpeer: sent N, received N,
wrong N, lost N" line (a failed check counts as wrong), the same counts in
an `end` to the counters port, status 0 when nothing was wrong and
something came back."""

import argparse
import re
import select
import socket
import struct
import time

PEER_MAC = bytes.fromhex("52550a000202")
BCAST = b"\xff" * 6
PEER_IP = socket.inet_aton("10.0.2.2")
WAIT = 2.0  # seconds for a reply the guest should send
QUIET = 0.5  # seconds in which no reply may come


def inet_sum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


class Peer:
    def __init__(self, args):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # A flood's echoes come back while it is still sending.
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind(("127.0.0.1", args.port))
        self.guest = ("127.0.0.1", args.guest_port)
        self.ip = socket.inet_aton(args.guest_ip)
        self.mac = None
        self.sent = self.received = self.wrong = self.lost = 0
        self.ipid = 0

    def say(self, line):
        print("netpeer: " + line, flush=True)

    def send(self, frame):
        self.sock.sendto(frame, self.guest)

    def frames(self, seconds):
        """Every frame the guest sends within seconds."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                return
            yield self.sock.recv(65536)

    def expect(self, match, seconds=WAIT):
        """The first frame for which match(frame) is true, or None."""
        for f in self.frames(seconds):
            if match(f):
                return f
        return None

    # ---- Building frames

    def eth(self, payload, etype, dst=None):
        return (dst or self.mac) + PEER_MAC + struct.pack("!H", etype) + payload

    def arp(self, op, tpa, dst=BCAST, hlen=6):
        body = (struct.pack("!HHBBH", 1, 0x0800, hlen, 4, op) + PEER_MAC + PEER_IP + b"\0" * 6
                + tpa)
        return self.eth(body + b"\0" * 18, 0x0806, dst)

    def ipv4(self, proto, l4, dst=None, flags=0x4000, opts=b"", total=None, version=4,
             bad_sum=False):
        self.ipid += 1
        ihl = (20 + len(opts)) // 4
        h = (bytes([version << 4 | ihl, 0]) + struct.pack("!HHH", total or 4 * ihl + len(l4),
                                                          self.ipid, flags)
             + bytes([64, proto]) + b"\0\0" + PEER_IP + (dst or self.ip) + opts)
        s = inet_sum(h) ^ (0x0100 if bad_sum else 0)
        return self.eth(h[:10] + struct.pack("!H", s) + h[12:] + l4, 0x0800)

    def udp(self, port, data, bad_sum=False, length=None):
        u = struct.pack("!HHHH", 40000, port, length or 8 + len(data), 0) + data
        pseudo = PEER_IP + self.ip + struct.pack("!BBH", 0, 17, len(u))
        s = (inet_sum(pseudo + u) or 0xffff) ^ (0x0100 if bad_sum else 0)
        return self.ipv4(17, u[:6] + struct.pack("!H", s) + u[8:])

    def ping(self, seq, data, bad_sum=False, icmp_type=8):
        m = struct.pack("!BBHHH", icmp_type, 0, 0, 0xbeef, seq) + data
        s = inet_sum(m) ^ (0x0100 if bad_sum else 0)
        return self.ipv4(1, m[:2] + struct.pack("!H", s) + m[4:])

    # ---- What comes back

    def is_ipv4_reply(self, f, proto):
        if len(f) < 34 or f[:6] != PEER_MAC or f[6:12] != self.mac or f[12:14] != b"\x08\x00":
            return False
        ip = f[14:34]
        return ip[9] == proto and ip[12:16] == self.ip and ip[16:20] == PEER_IP

    def echo_right(self, f, proto, want_l4):
        """A reply's IP header and checksums right, its data want_l4's."""
        ip, l4 = f[14:34], f[34:]
        if inet_sum(ip) != 0 or struct.unpack("!H", ip[2:4])[0] != 20 + len(want_l4):
            return False
        if proto == 1:
            return inet_sum(l4) == 0 and l4[0] == 0 and l4[4:] == want_l4[4:]
        pseudo = self.ip + PEER_IP + struct.pack("!BBH", 0, 17, len(l4))
        return (inet_sum(pseudo + l4) == 0 and l4[:2] == want_l4[2:4] and l4[2:4] == want_l4[:2]
                and l4[8:] == want_l4[8:])

    def exchange(self, frame, proto, key):
        """Sends an echo request, counts its reply right, wrong or lost."""
        self.sent += 1
        self.send(frame)
        f = self.expect(lambda f: self.is_ipv4_reply(f, proto) and key(f[34:]))
        if f is None:
            self.lost += 1
        elif self.echo_right(f, proto, frame[34:]):
            self.received += 1
        else:
            self.wrong += 1

    def check(self, ok, line):
        """A check of the plan's own: a failure counts as wrong."""
        if not ok:
            self.wrong += 1
        self.say(("" if ok else "FAIL ") + line)
        return ok

    # ---- The plans' pieces

    def find_guest(self):
        """ARP for the guest's address; its reply gives its MAC."""
        self.mac = BCAST
        for _ in range(5):
            self.send(self.arp(1, self.ip))
            f = self.expect(lambda f: len(f) >= 42 and f[12:14] == b"\x08\x06"
                            and f[20:22] == b"\x00\x02" and f[28:32] == self.ip
                            and f[32:38] == PEER_MAC and f[38:42] == PEER_IP)
            if f:
                self.mac = f[22:28]
                self.say("ARP: the guest answered for %s with %s" % (
                    socket.inet_ntoa(self.ip), ":".join("%02x" % b for b in self.mac)))
                return True
        self.check(False, "ARP: no answer for %s" % socket.inet_ntoa(self.ip))
        return False

    def echoes(self, count):
        before = (self.received, self.wrong, self.lost)
        for seq in range(count):
            data = bytes((seq * 7 + i) & 0xff for i in range(56))
            self.exchange(self.ping(seq, data), 1, lambda l4, s=seq: l4[6:8] == struct.pack(
                "!H", s))
            data = struct.pack("!I", seq) + bytes((seq + i * 13) & 0xff for i in range(200))
            self.exchange(self.udp(7, data), 17, lambda l4, d=data: l4[8:12] == d[:4])
        got = [a - b for a, b in zip((self.received, self.wrong, self.lost), before)]
        self.say("echo: %d pings and %d UDP datagrams: %d came back right, %d wrong, %d lost" % (
            count, count, *got))

    def bad_frames(self):
        """Each malformed frame and the reason the guest must count it under."""
        ping = self.ping(1, b"x" * 16)
        ip_ping = ping[14:]
        longer = bytearray(self.ping(2, b"y" * 32))
        return [
            ("eth-short", ping[:10]),
            ("eth-not-ours", bytes.fromhex("020000000001") + ping[6:]),
            ("eth-type", ping[:12] + b"\x86\xdd" + ip_ping),
            ("arp-malformed", self.arp(1, self.ip, hlen=8)),
            ("arp-not-ours", self.arp(1, socket.inet_aton("10.0.2.99"))),
            ("ip-header", self.ping(3, b"z" * 8)[:14] + bytes([0x65]) + ip_ping[1:]),
            ("ip-checksum", self.ipv4(1, ping[34:], bad_sum=True)),
            ("ip-options", self.ipv4(1, ping[34:], opts=b"\x01\x01\x01\x00")),
            ("ip-fragment", self.ipv4(1, ping[34:], flags=0x2000)),
            ("ip-truncated", bytes(longer[:-8])),
            ("ip-not-ours", self.ipv4(1, ping[34:], dst=socket.inet_aton("10.0.2.99"))),
            ("ip-protocol", self.ipv4(6, b"\0" * 20)),
            ("icmp-checksum", self.ping(4, b"w" * 16, bad_sum=True)),
            ("icmp-type", self.ping(5, b"v" * 16, icmp_type=13)),
            ("udp-checksum", self.udp(7, b"bad sum", bad_sum=True)),
            ("udp-length", self.udp(7, b"long", length=40)),
            ("udp-port", self.udp(1234, b"closed")),
            ("udp-request", self.udp(9, b"what")),
        ]

    def stats(self):
        """The guest's counters line, asked for on the counters port."""
        for _ in range(3):
            self.send(self.udp(9, b"stats"))
            f = self.expect(lambda f: self.is_ipv4_reply(f, 17) and f[34:36] == b"\x00\x09")
            if f:
                return f[42:].decode(errors="replace").strip()
        return None

    def plan_frames(self, count):
        self.echoes(count)
        bad = self.bad_frames()
        for _, frame in bad:
            self.send(frame)
        answered = [f for f in self.frames(QUIET) if f[12:14] != b"\x08\x06" or f[20:22] ==
                    b"\x00\x02"]
        self.check(not answered, "bad frames: %d sent, %d answered" % (len(bad), len(answered)))
        line = self.stats()
        if not self.check(line is not None, "stats: %s" % (line or "no answer")):
            return
        counted = dict((k, int(v)) for k, v in re.findall(r"([a-z]+-[a-z-]+) (\d+)", line))
        wrong = ["%s %d (want 1)" % (k, counted.get(k, 0)) for k, _ in bad if counted.get(k) != 1]
        self.check(not wrong, "bad frames: each of the %d counted once under its own reason%s"
                   % (len(bad), ": " + ", ".join(wrong) if wrong else ""))

    def plan_flood(self, count):
        data = bytes(range(256)) * 4
        back = [0]

        def take(f):
            if self.is_ipv4_reply(f, 17) and f[34:36] == b"\x00\x07":
                seq = struct.unpack("!I", f[42:46])[0]
                if len(f) == 42 + 4 + len(data) and f[46:] == data and seq < count:
                    back[0] += 1
                else:
                    self.wrong += 1

        for seq in range(count):
            self.send(self.udp(7, struct.pack("!I", seq) + data))
            if seq % 64 == 63:
                for f in self.frames(0):
                    take(f)
        self.sent += count
        self.say("flood: %d UDP datagrams of %d bytes sent back to back" % (count, 4 + len(data)))
        for f in self.frames(3.0):
            take(f)
        self.received += back[0]
        self.lost += count - back[0]
        self.say("flood: %d echoed, %d not (dropped by the guest or the card, counted)" % (
            back[0], count - back[0]))
        self.echoes(1)
        line = self.stats()
        self.check(line is not None, "after the flood, stats: %s" % (line or "no answer"))

    def end(self, port):
        msg = "end sent=%d received=%d wrong=%d lost=%d\n" % (
            self.sent, self.received, self.wrong, self.lost)
        for _ in range(5):
            self.send(self.udp(port, msg.encode()))
            if self.expect(lambda f: self.is_ipv4_reply(f, 17) and f[34:36] == b"\x00\x09", 0.4):
                return


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("plan", choices=["frames", "flood"])
    p.add_argument("--port", type=int, required=True, help="this peer's UDP port")
    p.add_argument("--guest-port", type=int, required=True, help="QEMU's end of the socket")
    p.add_argument("--guest-ip", default="10.0.2.15")
    p.add_argument("--count", type=int, default=20)
    args = p.parse_args()
    peer = Peer(args)
    if peer.find_guest():
        if args.plan == "frames":
            peer.plan_frames(args.count)
        else:
            peer.plan_flood(args.count)
    peer.say("sent %d, received %d, wrong %d, lost %d" % (
        peer.sent, peer.received, peer.wrong, peer.lost))
    if peer.mac != BCAST:
        peer.end(9)
    return 0 if peer.wrong == 0 and peer.received > 0 else 1
