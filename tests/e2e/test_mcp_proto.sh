#!/usr/bin/env bash
# End-to-end tests of `patrol mcp`'s protocol, straight on its pipes (a small
# python3 client, no SDK): initialize and version negotiation, ping,
# tools/list (every tool with its schemas and annotations), the JSON-RPC
# errors (malformed JSON, not an object, a bad jsonrpc, an unknown method or
# tool, a request before initialize, invalid UTF-8, a NUL), a 10 MB line
# dropped with the next ping still answered, string ids, notifications never
# answered, bad arguments as isError results, `runs` with -c and from the
# state dirs (a run added while serving appears), `handbook` (the file, and
# rendered when missing), progress notifications, a call in flight that does
# not block a ping, cancel (no answer, the child's process group gone), a
# child that dies without answering (-32603), the bound on calls in flight,
# a bad config (78, nothing served), stdin EOF (exit 0) and stdout holding
# nothing but JSON-RPC lines.  A call is kept in flight without any test hook:
# a patrol.json that is a FIFO blocks the `runs` call that opens it.
. "$(dirname "$0")/lib.sh"
PATROL="$TOP/$BUILD/patrol"
export PATROL

# The client: a Srv on `patrol mcp ARGS`, every read bounded (30 s), every
# stdout line checked to be one JSON-RPC message; close() checks exit 0.
PYLIB=$(cat <<'PY'
import json, os, select, signal, subprocess, sys, time
PATROL = os.environ["PATROL"]
T = os.environ["T"]
TOOLS = {"runs", "status", "wait", "logs", "events", "handbook", "resume", "stop"}

def check(cond, what):
    if not cond:
        print("assertion failed:", str(what)[:2000], file=sys.stderr)
        sys.exit(1)

class Srv:
    def __init__(self, args=(), env=None):
        e = dict(os.environ)
        e.update(env or {})
        self.err = open(os.path.join(T, "mcp.err"), "ab")
        self.p = subprocess.Popen([PATROL, "mcp", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.err, env=e)
        self.buf = b""
        self.lines = []
        self.nid = 100

    def send_raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, obj):
        self.send_raw(json.dumps(obj).encode() + b"\n")

    def recv(self, limit=30):
        end = time.monotonic() + limit
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            check(left > 0, "no line from the server within %ds" % limit)
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if r:
                chunk = os.read(self.p.stdout.fileno(), 65536)
                check(chunk != b"", "the server closed stdout")
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        self.lines.append(line)
        msg = json.loads(line)
        check(isinstance(msg, dict) and msg.get("jsonrpc") == "2.0", "not JSON-RPC: %r" % line)
        return msg

    def req(self, method, params=None, id=None):
        if id is None:
            self.nid += 1
            id = self.nid
        m = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)
        r = self.recv()
        check(r.get("id") == id, "answer for id %r, wanted %r: %r" % (r.get("id"), id, r))
        return r

    def init(self, version="2025-06-18"):
        r = self.req("initialize", {"protocolVersion": version, "capabilities": {},
                                    "clientInfo": {"name": "t", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def call(self, name, args=None, id=None, meta=None):
        p = {"name": name, "arguments": args if args is not None else {}}
        if meta is not None:
            p["_meta"] = meta
        return self.req("tools/call", p, id)

    def child_pids(self):
        self.err.flush()
        return [int(l.split()[-1]) for l in open(os.path.join(T, "mcp.err"))
                if " child " in l and l.startswith("patrol: call ")]

    def reaped(self, pid):
        self.err.flush()
        return any(l.startswith("patrol: child %d reaped" % pid)
                   for l in open(os.path.join(T, "mcp.err")))

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(30)
        rest = self.p.stdout.read()
        for l in (self.buf + rest).split(b"\n"):
            if l:
                self.lines.append(l)
                check(json.loads(l).get("jsonrpc") == "2.0", "not JSON-RPC: %r" % l)
        check(rc == 0, "exit %d at stdin EOF" % rc)
        return rc

def err(r, code):
    check("error" in r and r["error"]["code"] == code, "wanted error %d: %r" % (code, r))

def tool_text(r):
    return r.get("result", r)["content"][0]["text"]

def gone(pid):
    try:
        st = open("/proc/%d/stat" % pid).read()
    except OSError:
        return True
    return st.rsplit(")", 1)[1].split()[0] == "Z"

def group_empty(pgid):
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                f = open("/proc/%s/stat" % d).read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(f[2]) == pgid and f[0] != "Z":
                return False
    return True

def wait_until(fn, limit=30):
    end = time.monotonic() + limit
    while not fn():
        check(time.monotonic() < end, "timed out waiting for %s" % fn)
        time.sleep(0.02)

def state(run, doc):
    d = os.path.join(T, "state", "watchkeeper", run)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "patrol.json"), "w") as f:
        json.dump(doc, f)
    return d

def fifo_run(run):
    d = os.path.join(T, "state", "watchkeeper", run)
    os.makedirs(d, exist_ok=True)
    os.mkfifo(os.path.join(d, "patrol.json"))
PY
)
export PYLIB

# py: run the python on stdin after the client library; the state root is
# the test's own, never the user's (a run there would show in `runs`).
py() { { printf '%s\n' "$PYLIB"; cat; } >"$T/t.py"; XDG_STATE_HOME="$T/state" python3 "$T/t.py"; }

conf1() {
	conf '"box": { "host": "gpu1", "user": "me", "port": 2222 },' '[ { "stage": "train", "run": "true" } ]'
}

test_initialize() {
	py <<'PY'
s = Srv()
r = s.req("ping")
check(r["result"] == {}, "ping before initialize: %r" % r)
err(s.req("tools/list"), -32600)
r = s.req("tools/call", {"name": "runs"})
err(r, -32600)
check("not initialized" in r["error"]["message"], r)
r = s.init()["result"]
check(r["protocolVersion"] == "2025-06-18", r)
check(r["capabilities"] == {"tools": {"listChanged": False}}, r)
check(r["serverInfo"]["name"] == "watchkeeper" and r["serverInfo"]["version"], r)
check(isinstance(r["instructions"], str) and "wait" in r["instructions"], r)
tl = s.req("tools/list")["result"]["tools"]
check({t["name"] for t in tl} == TOOLS and len(tl) == 8, [t["name"] for t in tl])
for t in tl:
    check(t["inputSchema"]["type"] == "object", t)
    check(t["outputSchema"]["type"] == "object", t)
    check(t["title"] and t["description"], t)
    a = t["annotations"]
    for h in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
        check(isinstance(a[h], bool), (t["name"], h))
ro = {t["name"]: t["annotations"]["readOnlyHint"] for t in tl}
check(ro["runs"] and ro["handbook"], ro)
for t in tl:
    if t["name"] in ("runs", "handbook"):
        check(t["inputSchema"].get("additionalProperties") is False, t)
s.close()

s = Srv()
r = s.init("2025-03-26")["result"]
check(r["protocolVersion"] == "2025-03-26", r)
tl = s.req("tools/list")["result"]["tools"]
check(len(tl) == 8 and all("outputSchema" not in t and "inputSchema" in t for t in tl), tl)
r = s.call("runs")["result"]
check("structuredContent" not in r, r)
check(len(r["content"]) == 2 and "runs" in json.loads(r["content"][1]["text"]), r)
s.close()

s = Srv()
r = s.init("1999-01-01")["result"]
check(r["protocolVersion"] == "2025-06-18", r)
r = s.call("runs")["result"]
check(r["isError"] is False and r["structuredContent"]["runs"] == [], r)
s.close()
PY
}

test_errors() {
	py <<'PY'
s = Srv()
s.init()
for raw in (b"{not json", b'{"jsonrpc":"2.0","id":1,"method":"ping"} trailing',
            b'{"jsonrpc":"2.0","id":1,"method":"p\xffng"}',
            b'{"jsonrpc":"2.0","id":1,"method":"ping\x00"}'):
    s.send_raw(raw + b"\n")
    r = s.recv()
    err(r, -32700)
    check(r["id"] is None, r)
s.send_raw(b"[1,2]\n")
r = s.recv()
err(r, -32600)
check(r["id"] is None, r)
s.send({"jsonrpc": "1.0", "id": 5, "method": "ping"})
r = s.recv()
err(r, -32600)
check(r["id"] == 5, r)
s.send({"jsonrpc": "2.0", "id": 6})
err(s.recv(), -32600)
s.send({"jsonrpc": "2.0", "id": [1], "method": "ping"})
r = s.recv()
err(r, -32600)
check(r["id"] is None, r)
r = s.req("no/such/method", id=7)
err(r, -32601)
r = s.req("ping", id="a string id \u00e9")
check(r["result"] == {}, r)
r = s.req("tools/call", {"name": "no_such_tool"}, id="x")
err(r, -32602)
err(s.req("tools/call", {"arguments": {}}), -32602)
err(s.req("tools/call", {"name": "runs", "arguments": [1]}), -32602)
s.close()
PY
}

test_long_line() {
	py <<'PY'
s = Srv()
s.init()
s.send_raw(b"x" * (10 << 20) + b"\n")
r = s.recv()
err(r, -32700)
check(r["id"] is None, r)
check(s.req("ping", id=1)["result"] == {}, "ping after the long line")
big = {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"pad": "y" * (6 << 20)}}
s.send(big)
r = s.recv()
err(r, -32700)
check(s.req("ping", id=3)["result"] == {}, "ping after the long message")
s.close()
PY
}

test_notifications() {
	py <<'PY'
s = Srv()
s.init()
s.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
s.send({"jsonrpc": "2.0", "method": "notifications/no_such_one", "params": {}})
s.send({"jsonrpc": "2.0", "method": "ping"})
s.send({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "runs"}})
s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}})
s.send({"jsonrpc": "2.0", "id": 1, "result": {}})
r = s.req("ping", id=9)
check(r["result"] == {}, r)
s.close()
check(len(s.lines) == 2, "only initialize and the ping are answered: %r" % s.lines)
PY
}

test_arguments() {
	conf1
	mkdir -p "$T/state"
	XDG_STATE_HOME=$T/state py <<PY
s = Srv(["-c", "$T/wk.json"])
s.init()
r = s.call("handbook", {"run": 5})["result"]
check(r["isError"] is True and "'run'" in tool_text(r), r)
check("structuredContent" not in r, r)
r = s.call("handbook", {})["result"]
check(r["isError"] is True and "'run'" in tool_text(r), r)
r = s.call("handbook", {"run": "t1", "bogus": 1})["result"]
check(r["isError"] is True and tool_text(r) == "argument 'bogus': unknown (handbook takes run)", r)
r = s.call("runs", {"x": 1})["result"]
check(r["isError"] is True and tool_text(r) == "argument 'x': unknown (runs takes none)", r)
r = s.call("handbook", {"run": "nope"})["result"]
check(r["isError"] is True and tool_text(r) == "unknown run 'nope' (known: t1)", r)
s.close()
PY
}

test_runs() {
	conf1
	mkdir -p "$T/state"
	XDG_STATE_HOME=$T/state py <<PY
state("t1", {"run": "t1", "verdict": "TRAINING", "details": "step 5/10", "last_tick":
      "2026-01-02T03:04:05Z", "progress": 5, "progress_max": 10, "config": "$T/wk.json"})
s = Srv(["-c", "wk.json"])
s.init()
r = s.call("runs")["result"]
check(r["isError"] is False, r)
runs = r["structuredContent"]["runs"]
check(len(runs) == 1, runs)
x = runs[0]
check(x["name"] == "t1" and x["verdict"] == "TRAINING" and x["details"] == "step 5/10", x)
check(x["last_tick"] == "2026-01-02T03:04:05Z" and x["progress"] == 5 and x["progress_max"] == 10, x)
check(x["config"] == "$T/wk.json" and x["box"] == "me@gpu1:2222", x)
check(x["state_dir"] == "$T/state/watchkeeper/t1", x)
check("t1 TRAINING" in tool_text(r), r)
s.close()

# without -c: the state dirs whose patrol.json names a config
state("old", {"run": "old", "verdict": "OK"})
s = Srv()
s.init()
runs = s.call("runs")["result"]["structuredContent"]["runs"]
check([x["name"] for x in runs] == ["t1"], runs)
# a run that appears while serving is there at the next call; a config that no longer loads says so
open("$T/bad.json", "w").write("{ not json")
state("t2", {"run": "t2", "verdict": "CRASHED", "config": "$T/bad.json"})
runs = s.call("runs")["result"]["structuredContent"]["runs"]
check([x["name"] for x in runs] == ["t1", "t2"], runs)
check(runs[1]["verdict"] == "CRASHED" and "config_error" in runs[1] and runs[1]["box"] is None, runs)
r = s.call("handbook", {"run": "t2"})["result"]
check(r["isError"] and "$T/bad.json" in tool_text(r), r)
# progress notifications with a token, none without
s.send({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
        "params": {"name": "runs", "arguments": {}, "_meta": {"progressToken": "tok"}}})
got = [s.recv(), s.recv(), s.recv()]
check([m.get("method") for m in got[:2]] == ["notifications/progress"] * 2, got)
check(all(m["params"]["progressToken"] == "tok" and m["params"]["total"] == 2 for m in got[:2]), got)
check(got[2]["id"] == 50 and got[2]["result"]["isError"] is False, got)
r = s.call("runs", id=51)
check("result" in r, r)
s.close()
PY
}

test_handbook() {
	conf1
	mkdir -p "$T/state"
	XDG_STATE_HOME=$T/state py <<PY
d = state("t1", {"run": "t1", "verdict": "STALLED", "config": "$T/wk.json"})
s = Srv()
s.init()
r = s.call("handbook", {"run": "t1"})["result"]
check(r["isError"] is False, r)
sc = r["structuredContent"]
check(sc["rendered"] is True and sc["run"] == "t1" and sc["path"] == d + "/HANDBOOK.md", sc)
check("STALLED" in sc["markdown"] and "gpu1" in sc["markdown"], sc["markdown"][:400])
check(tool_text(r) == sc["markdown"], "text is the markdown")
check(not os.path.exists(d + "/HANDBOOK.md"), "the tool wrote the handbook")
open(d + "/HANDBOOK.md", "w").write("# the file\n")
sc = s.call("handbook", {"run": "t1"})["result"]["structuredContent"]
check(sc["rendered"] is False and sc["markdown"] == "# the file\n", sc)
s.close()
PY
}

test_inflight() {
	conf1
	mkdir -p "$T/state"
	XDG_STATE_HOME=$T/state py <<PY
fifo_run("blocked")
s = Srv()
s.init()
# a call that blocks (opening the FIFO) does not hold up a ping or another call
s.send({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "runs"}})
wait_until(lambda: len(s.child_pids()) == 1)
pid = s.child_pids()[0]
check(s.req("ping", id=1)["result"] == {}, "ping while a call is in flight")
r = s.call("handbook", {"run": 5}, id=2)
check(r["result"]["isError"], r)
# cancelled: no answer for it, the child and its group gone
s.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "slow", "reason": "test"}})
wait_until(lambda: gone(pid) and group_empty(pid))
check(s.req("ping", id=3)["result"] == {}, "the next line answers the ping, not the cancelled call")
# a child that dies without answering: -32603 for its id
s.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "runs"}})
wait_until(lambda: len(s.child_pids()) == 3)
os.kill(s.child_pids()[-1], signal.SIGKILL)
r = s.recv()
check(r["id"] == 4, r)
err(r, -32603)
# the bound on calls in flight (the earlier children reaped first, so that 16 are exactly the bound)
wait_until(lambda: all(s.reaped(p) for p in s.child_pids()))
for i in range(16):
    s.send({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call", "params": {"name": "runs"}})
r = s.call("runs", id=200)
check(r["result"]["isError"] and "in flight" in tool_text(r), r)
wait_until(lambda: len(s.child_pids()) == 19)
pids = s.child_pids()[-16:]
s.close()
check(all(gone(p) and group_empty(p) for p in pids), "children left after EOF")
check(len(s.lines) == 6, "no answers for the blocked calls at EOF: %r" % s.lines[-3:])
PY
}

test_stdout_gone() {
	mkdir -p "$T/state"
	XDG_STATE_HOME=$T/state py <<'PY'
# stdout closed by the client: the server ends cleanly (exit 0, a word on stderr), no SIGPIPE death
s = Srv()
s.init()
s.p.stdout.close()
for i in range(3):
    try:
        s.send({"jsonrpc": "2.0", "id": i, "method": "ping"})
    except BrokenPipeError:
        break
rc = s.p.wait(30)
check(rc == 0, "exit %d after stdout went away" % rc)
check("stdout:" in open(os.path.join(T, "mcp.err")).read(), "no word on stderr")
# SIGTERM: like EOF, the children go too
fifo_run("blocked")
s = Srv()
s.init()
s.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "runs"}})
wait_until(lambda: len(s.child_pids()) == 1)
pid = s.child_pids()[0]
s.p.send_signal(signal.SIGTERM)
rc = s.p.wait(30)
check(rc == 0 and gone(pid) and group_empty(pid), "exit %d, child left: %s" % (rc, not gone(pid)))
PY
}

test_bad_config() {
	conf1
	echo '{ "run": "x" }' >"$T/bad.json"
	set +e
	"$PATROL" mcp -c "$T/wk.json" -c "$T/bad.json" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	set -e
	assert_eq "$rc" 78
	assert_eq "$(wc -c <"$T/out" | tr -d ' ')" 0
	assert_grep 'config error' "$T/err"
	set +e
	"$PATROL" mcp -c "$T/wk.json" -c "$T/wk.json" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	set -e
	assert_eq "$rc" 78
	assert_grep "run 't1'" "$T/err"
	set +e
	"$PATROL" --json mcp </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	set -e
	assert_eq "$rc" 64
	# two good configs, then EOF at once: exit 0 and nothing on stdout
	sed 's/"t1"/"t2"/' "$T/wk.json" >"$T/wk2.json"
	"$PATROL" mcp -c "$T/wk.json" -c "$T/wk2.json" </dev/null >"$T/out"
	assert_eq "$(wc -c <"$T/out" | tr -d ' ')" 0
	"$PATROL" --help | grep -q 'patrol \[-c FILE\]\.\.\. mcp' || fail "usage lacks mcp"
}

t "mcp initialize, versions, ping, tools/list" test_initialize
t "mcp JSON-RPC errors and ids" test_errors
t "mcp 10 MB line dropped, next ping answered" test_long_line
t "mcp notifications never answered" test_notifications
t "mcp bad arguments are isError results" test_arguments
t "mcp runs (-c, state dirs, progress)" test_runs
t "mcp handbook" test_handbook
t "mcp calls in flight, cancel, child death, bound, EOF" test_inflight
t "mcp stdout gone, SIGTERM: clean end" test_stdout_gone
t "mcp bad config: 78, nothing served" test_bad_config
