#!/usr/bin/env python3
"""One MCP tools/call through a fresh `patrol mcp` on a pipe (tests/e2e/test_mcp_read.sh).

    mcp_call.py [--progress] [--cancel-when FILE] SERVER_CMD... -- TOOL ARGS_JSON

Starts SERVER_CMD, initializes (2025-06-18), calls TOOL with ARGS_JSON and
prints one JSON object: {"result", "error", "progress": [params...],
"cancelled"}.  With --progress the call carries a progressToken; with
--cancel-when, once FILE exists the call is cancelled
(notifications/cancelled) and no answer is awaited.  Every wait is bounded.
Standard library only.
"""
import json
import os
import select
import subprocess
import sys
import time

LIMIT_S = 900


def main():
    argv = sys.argv[1:]
    progress = False
    cancel_when = None
    while argv and argv[0].startswith("--") and argv[0] != "--":
        if argv[0] == "--progress":
            progress = True
            argv = argv[1:]
        elif argv[0] == "--cancel-when":
            cancel_when = argv[1]
            argv = argv[2:]
        else:
            break
    sep = argv.index("--")
    cmd, (tool, args) = argv[:sep], argv[sep + 1:]
    srv = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    buf = b""
    deadline = time.monotonic() + LIMIT_S

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

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "mcp_call.py", "version": "1"}}})
    init = recv(60)
    assert init and init.get("id") == 1 and "result" in init, init
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    params = {"name": tool, "arguments": json.loads(args)}
    if progress:
        params["_meta"] = {"progressToken": "p1"}
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
    out = {"result": None, "error": None, "progress": [], "cancelled": False}
    while time.monotonic() < deadline:
        if cancel_when and os.path.exists(cancel_when):
            send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 2, "reason": "test"}})
            out["cancelled"] = True
            # the server answers nothing for it; a ping proves it still serves
            send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
            while time.monotonic() < deadline:
                m = recv(1)
                if m and m.get("id") == 3:
                    break
                if m and m.get("id") == 2:
                    out["result"] = m.get("result")
            break
        m = recv(0.2)
        if m is None:
            continue
        if m.get("method") == "notifications/progress":
            out["progress"].append(m["params"])
        elif m.get("id") == 2:
            out["result"] = m.get("result")
            out["error"] = m.get("error")
            break
    srv.stdin.close()
    srv.wait(timeout=60)
    print(json.dumps(out))


main()
