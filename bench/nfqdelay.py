#!/usr/bin/env python3
"""A kernel-level one-way delay for make bench: tc netem is not built into this
kernel (CONFIG_NET_SCH_NETEM is not set, and there are no modules), but
netfilter's NFQUEUE is.  An iptables rule in a network namespace of the
bench's own sends each packet to queue Q; this program holds every queued
packet D ms from the moment it arrives here and then lets it go on
(NF_ACCEPT), in arrival order, so the delay is the same for every packet and
TCP never sees reordering.  On loopback each packet passes OUTPUT once, so a
rule on OUTPUT delays both directions by D ms: a round trip costs 2 D.

It speaks nfnetlink_queue directly over a netlink socket (python3's standard
library only: Debian has no python3 binding for libnetfilter_queue).  It
copies packet metadata only (NFQNL_COPY_META), never payload.

usage: nfqdelay.py QUEUE_NUM DELAY_MS READY_FILE
READY_FILE is written once the queue is bound, so the caller knows packets
are being held rather than bypassed (the rule uses --queue-bypass, so if this
program dies, traffic flows undelayed instead of hanging: the caller checks
the delay it measures).  SIGTERM ends it after releasing every held packet."""
import collections
import errno
import os
import select
import signal
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2
NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2
NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFQA_CFG_QUEUE_MAXLEN = 3
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2
NLMSG_DONE = 3
NF_ACCEPT = 1
AF_UNSPEC = 0


def attr(kind, payload):
    """One netlink attribute, padded to 4 bytes."""
    n = 4 + len(payload)
    return struct.pack("=HH", n, kind) + payload + b"\0" * ((4 - n % 4) % 4)


class Queue:
    def __init__(self, num):
        self.num = num
        self.seq = 0
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind((0, 0))

    def send(self, msg, attrs, flags=0):
        self.seq += 1
        body = struct.pack("!BBH", AF_UNSPEC, 0, self.num) + b"".join(attrs)
        hdr = struct.pack("=IHHII", 16 + len(body), (NFNL_SUBSYS_QUEUE << 8) | msg,
                          NLM_F_REQUEST | flags, self.seq, 0)
        self.sock.send(hdr + body)

    def configure(self, attrs):
        """A config message, acknowledged: a refusal (e.g. the queue already has a
        listener) is an error here rather than a silent lack of delay."""
        self.send(NFQNL_MSG_CONFIG, attrs, NLM_F_ACK)
        data = self.sock.recv(65536)
        length, kind = struct.unpack_from("=IH", data, 0)
        if kind == NLMSG_ERROR:
            err = struct.unpack_from("=i", data, 16)[0]
            if err != 0:
                raise OSError(-err, "nfnetlink_queue config: " + os.strerror(-err))

    def bind(self):
        self.configure([attr(NFQA_CFG_CMD, struct.pack("!BxH", NFQNL_CFG_CMD_BIND, socket.AF_INET))])
        self.configure([attr(NFQA_CFG_PARAMS, struct.pack("!IB", 0, NFQNL_COPY_META))])
        self.configure([attr(NFQA_CFG_QUEUE_MAXLEN, struct.pack("!I", 65536))])

    def accept(self, packet_id):
        self.send(NFQNL_MSG_VERDICT, [attr(NFQA_VERDICT_HDR, struct.pack("!II", NF_ACCEPT, packet_id))])

    def packets(self):
        """The packet ids in what one recv() returned."""
        data = self.sock.recv(1 << 20)
        out, off = [], 0
        while off + 16 <= len(data):
            length, kind = struct.unpack_from("=IH", data, off)
            if length < 16:
                break
            if kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
                a = off + 20  # nlmsghdr + nfgenmsg
                while a + 4 <= off + length:
                    alen, akind = struct.unpack_from("=HH", data, a)
                    if alen < 4:
                        break
                    if akind & 0x3fff == NFQA_PACKET_HDR:
                        out.append(struct.unpack_from("!I", data, a + 4)[0])
                    a += (alen + 3) & ~3
            elif kind == NLMSG_ERROR:
                # A verdict the kernel refused (its packet already gone): nothing to hold.
                err = struct.unpack_from("=i", data, off + 16)[0]
                if err != 0:
                    sys.stderr.write("nfqdelay: verdict refused: %s\n" % os.strerror(-err))
            off += (length + 3) & ~3
        return out


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: nfqdelay.py QUEUE_NUM DELAY_MS READY_FILE\n")
        return 64
    num, delay, ready = int(sys.argv[1]), int(sys.argv[2]) / 1000.0, sys.argv[3]
    q = Queue(num)
    q.bind()
    held = collections.deque()  # (due, packet id), due times non-decreasing
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    with open(ready + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(ready + ".tmp", ready)
    while not stop:
        now = time.monotonic()
        while held and held[0][0] <= now:
            q.accept(held.popleft()[1])
        wait = max(0.0, held[0][0] - now) if held else 1.0
        try:
            r, _, _ = select.select([q.sock], [], [], wait)
        except InterruptedError:
            continue
        if r:
            now = time.monotonic()
            try:
                got = q.packets()
            except OSError as e:
                if e.errno != errno.ENOBUFS:
                    raise
                # Netlink messages were lost (their packets stay queued, TCP resends them).
                sys.stderr.write("nfqdelay: ENOBUFS\n")
                got = []
            for pid in got:
                held.append((now + delay, pid))
    while held:
        q.accept(held.popleft()[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
