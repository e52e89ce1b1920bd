#!/usr/bin/env python3
"""Take a TCP port on 127.0.0.1 race-free and hold it for a test's whole life.

    ports.py MODE PORT_FILE

The kernel picks the port (bind to port 0), so no two holders, and no other
bind(0) or outgoing connection on this machine, can get the same one; the
port is written to PORT_FILE (atomically) and held until this process is
killed or the shell that started it (the test) has ended.  The socket has
SO_REUSEADDR and, in mode "hold", never listens: Linux then lets a server that also sets SO_REUSEADDR (sshd, slurmctld,
slurmd) bind and listen on it, so the port is handed over to that server
(bind, then hand over; never probe-then-use), and when the server stops,
the port is still held: a connection to it is refused, and no other test's
server can take it.  The other modes are servers of their own:

    hold   bound, not listening: refused (or the port a server takes over)
    full   listening with its one-slot backlog filled: a connect gets no
           answer (the kernel drops the SYN), a hanging connect without
           iptables
    mute   accepts every connection and never sends a byte (no SSH banner)
"""
import os
import socket
import sys
import time


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("hold", "full", "mute"):
        sys.stderr.write("usage: ports.py hold|full|mute PORT_FILE\n")
        return 64
    mode, path = sys.argv[1], sys.argv[2]
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    held = []
    if mode == "full":
        s.listen(0)
        held.append(socket.create_connection(("127.0.0.1", port)))
        b = socket.socket()
        b.setblocking(False)
        b.connect_ex(("127.0.0.1", port))
        held.append(b)
    elif mode == "mute":
        s.listen(8)
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, path)
    # Held while the test that took it runs (its shell is this process's
    # parent: reparented, it has ended), and an hour at most.
    parent = os.getppid()
    deadline = time.monotonic() + 3600
    s.settimeout(1)
    while time.monotonic() < deadline and os.getppid() == parent:
        if mode != "mute":
            time.sleep(1)
            continue
        try:
            c, _ = s.accept()
            held.append(c)
        except socket.timeout:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
