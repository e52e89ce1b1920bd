#!/usr/bin/env python3
"""Part of make bench (bench/patrol_bench.sh): looks at a warm box.

    warm_look.py N RUN COUNT_CMD SERVER_CMD...

Starts SERVER_CMD (`patrol mcp -c CFG`), initializes, makes one `status`
call of run RUN (it connects: the box is warm after it), then N more, each
0.5 s after the last and timed from the request written to its answer read.
COUNT_CMD (bash -c) prints the connections the box's sshd accepted so far;
it is run before and after the N timed calls.  Prints one JSON object:
{"us": [...], "conns": K} (K: the connections the N looks opened; 0 when
every look was warm).  A status that is an error fails the bench (exit 1).
Standard library only.
"""
import json
import os
import select
import subprocess
import sys
import time

LIMIT_S = 600
PAUSE_S = 0.5


def main():
    n, run, count_cmd, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    srv = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    buf = b""
    deadline = time.monotonic() + LIMIT_S

    def send(o):
        srv.stdin.write((json.dumps(o) + "\n").encode())
        srv.stdin.flush()

    def answer(i):
        nonlocal buf
        while time.monotonic() < deadline:
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                m = json.loads(line)
                if m.get("id") == i:
                    return m
            r, _, _ = select.select([srv.stdout], [], [], 1)
            if r:
                chunk = os.read(srv.stdout.fileno(), 65536)
                if not chunk:
                    raise SystemExit("warm_look: the server closed stdout")
                buf += chunk
        raise SystemExit("warm_look: no answer to request %d" % i)

    def status(i):
        t0 = time.monotonic_ns()
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": "status", "arguments": {"run": run}}})
        m = answer(i)
        t1 = time.monotonic_ns()
        res = m.get("result") or {}
        if m.get("error") is not None or res.get("isError"):
            raise SystemExit("warm_look: status failed: " + json.dumps(m)[:800])
        return (t1 - t0) // 1000

    def conns():
        return int(subprocess.check_output(["bash", "-c", count_cmd]).decode().strip() or 0)

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "warm_look.py", "version": "1"}}})
    answer(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    status(2)
    c0 = conns()
    us = []
    for i in range(n):
        # Looks seconds apart in use; a moment here lets the holder's channel
        # for the next look (opened ahead, ssh/warm-hold.c) be ready, as it is then.
        time.sleep(PAUSE_S)
        us.append(status(3 + i))
    c1 = conns()
    srv.stdin.close()
    srv.wait(timeout=60)
    print(json.dumps({"us": us, "conns": c1 - c0}))


main()
