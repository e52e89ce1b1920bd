#!/usr/bin/env python3
"""Several steps through ONE `patrol mcp` on a pipe (tests/e2e/test_warm.sh).

    mcp_steps.py SERVER_CMD... -- STEP...

Each STEP is one argument:
    call:TOOL:ARGS_JSON        a tools/call; its result as one JSON line on stdout
    sh:COMMAND                 bash -c COMMAND, which must exit 0
    cancel:TOOL:ARGS_JSON:WHEN a tools/call, cancelled (notifications/cancelled)
                               once `bash -c WHEN` exits 0 (tried every 0.1 s,
                               at most 60 s); then a ping must be answered
    kill9                      SIGKILL the server (no goodbye) and stop there
Starts SERVER_CMD, initializes (2025-06-18), runs the steps in order, closes
its stdin and waits for it.  Exit 1 (with the reason on stderr) when a step
fails.  Every wait is bounded.  Standard library only.
"""
import json
import os
import select
import subprocess
import sys
import time

LIMIT_S = 300


def main():
    argv = sys.argv[1:]
    sep = argv.index("--")
    cmd, steps = argv[:sep], argv[sep + 1:]
    srv = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    buf = b""
    deadline = time.monotonic() + LIMIT_S
    ids = [10]

    def send(o):
        srv.stdin.write((json.dumps(o) + "\n").encode())
        srv.stdin.flush()

    def recv(timeout):
        nonlocal buf
        end = min(deadline, time.monotonic() + timeout)
        while b"\n" not in buf:
            left = end - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([srv.stdout], [], [], min(left, 0.05))
            if r:
                chunk = os.read(srv.stdout.fileno(), 65536)
                if not chunk:
                    raise SystemExit("server closed stdout")
                buf += chunk
        line, buf = buf.split(b"\n", 1)
        return json.loads(line)

    def answer(i, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            m = recv(0.2)
            if m is not None and m.get("id") == i:
                return m
        raise SystemExit("no answer to request %d" % i)

    def start(tool, args):
        ids[0] += 1
        send({"jsonrpc": "2.0", "id": ids[0], "method": "tools/call",
              "params": {"name": tool, "arguments": json.loads(args)}})
        return ids[0]

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "mcp_steps.py", "version": "1"}}})
    init = answer(1, 60)
    assert "result" in init, init
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for step in steps:
        kind, _, rest = step.partition(":")
        if kind == "call":
            tool, _, args = rest.partition(":")
            m = answer(start(tool, args), 120)
            print(json.dumps({"tool": tool, "result": m.get("result"), "error": m.get("error")}),
                  flush=True)
        elif kind == "sh":
            if subprocess.call(["bash", "-c", rest]) != 0:
                raise SystemExit("step failed: " + rest)
        elif kind == "cancel":
            tool, _, rest = rest.partition(":")
            # ARGS_JSON holds no ':'-free guarantee: split at the last ':' before WHEN
            args, _, when = rest.rpartition("}:")
            i = start(tool, args + "}")
            end = time.monotonic() + 60
            while subprocess.call(["bash", "-c", when]) != 0:
                if time.monotonic() > end:
                    raise SystemExit("never true: " + when)
                recv(0.1)
            send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": i, "reason": "test"}})
            ids[0] += 1
            send({"jsonrpc": "2.0", "id": ids[0], "method": "ping"})
            answer(ids[0], 60)
            print(json.dumps({"tool": tool, "cancelled": True}), flush=True)
        elif kind == "kill9":
            srv.kill()
            srv.wait(timeout=60)
            return
        else:
            raise SystemExit("unknown step " + step)
    srv.stdin.close()
    srv.wait(timeout=60)


main()
