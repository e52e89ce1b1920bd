#!/usr/bin/env bash
# The e2e tests' own tools, against what they stand in for: json()'s reader
# build/jsonq (tests/unit/jsonq.c) answers as python3 does, or hands over.
. "$(dirname "$0")/lib.sh"

# Each case: a JSON document and an expression over it.  jsonq's answer must
# be python3's: exit 0 and the same line, or exit 1 where python3 raises;
# exit 2 (python3's to answer) only where the value is not a scalar or the
# expression has another shape.  FAST cases must be answered by jsonq.
test_jsonq_is_python() {
	python3 - "$JSONQ" <<'PY'
import json, subprocess, sys
jsonq = sys.argv[1]
DOC = ('{"a": {"b": [1, 2.5, "x", null, true, false, [1], {"c": 3}]}, "s": "h\\u00e9llo \\u263a",'
       ' "a": {"b": [9, -0, 12, 1e20, "", {"k": [ {"z": "deep"} ]}]}, "n": -7, "e": {}, "l": [],'
       ' "t": true, "f": false, "z": null, "u": "line1\\nline2", "q": "it\'s"}')
FAST = ['d["a"]["b"][0]', 'd["a"]["b"][-1]["k"][0]["z"]', 'd["s"]', 'len(d["s"])', 'd["a"]["b"][1]',
        'd["n"]', 'd["t"]', 'd["f"]', 'd["z"]', 'd.get("zz")', 'd.get("zz", 3)', "d.get('n', 3)",
        'd.get("n",0)', 'len(d)', 'len(d["e"])', 'len(d["l"])', 'len(d["a"]["b"])', 'd["u"]', 'd["q"]',
        'd["a"]["b"][4]', "d['a']['b'][2]", 'len(d["a"]["b"][-1]["k"])']
RAISE = ['d["zz"]', 'd["a"]["zz"]', 'd["a"]["b"][6]', 'd["a"]["b"][-7]', 'd["s"]["x"]', 'd["n"][0]',
         'len(d["n"])', 'len(d["z"])', 'd["l"][0]']
OTHER = ['d["a"]', 'd["a"]["b"][3]', 'd["l"]', 'sorted(d)', 'd["a"]["b"][0] + 1', 'd["n"] > 0',
         '"a" in d', 'd.get("a")', 'd["a"].get("b")', 'len(d["a"]["b"]) > 2', 'd["a"]["b"][0:2]']
bad = []
path = "doc.json"
open(path, "w").write(DOC)


class Py:
    """python3's answer, as lib.sh's json() gets it (here, not a python3 a case)."""
    def __init__(self, e):
        try:
            v = eval(e, {"d": json.load(open(path))})
            self.stdout, self.returncode = "%s\n" % (v if not isinstance(v, bool) else str(v).lower()), 0
        except Exception:
            self.stdout, self.returncode = "", 1


for e in FAST + RAISE + OTHER:
    p = Py(e)
    q = subprocess.run([jsonq, path, e], capture_output=True, text=True)
    if q.returncode == 0 and (p.returncode != 0 or p.stdout != q.stdout):
        bad.append(f"{e}: jsonq {q.stdout!r}, python3 {p.stdout!r} (exit {p.returncode})")
    elif q.returncode == 1 and p.returncode == 0:
        bad.append(f"{e}: jsonq raised ({q.stderr.strip()}), python3 printed {p.stdout!r}")
    elif q.returncode not in (0, 1, 2):
        bad.append(f"{e}: jsonq exit {q.returncode}")
    elif e in FAST and q.returncode != 0:
        bad.append(f"{e}: jsonq did not answer (exit {q.returncode}: {q.stderr.strip()})")
    elif e in RAISE and q.returncode != 1:
        bad.append(f"{e}: jsonq exit {q.returncode}, want 1 (python3 raises)")
    elif e in OTHER and q.returncode != 2:
        bad.append(f"{e}: jsonq exit {q.returncode}, want 2 (python3's to print)")
# Files: none (raises), not JSON or trailing data (python3's), empty (python3's).
for name, text, want in [("missing.json", None, 1), ("bad.json", "{", 2), ("extra.json", '{"a": 1} x', 2),
                         ("empty.json", "", 2), ("nul.json", '{"a": "x\x00y"}', 2)]:
    if text is not None:
        open(name, "w").write(text)
    q = subprocess.run([jsonq, name, 'd["a"]'], capture_output=True, text=True)
    if q.returncode != want:
        bad.append(f"{name}: jsonq exit {q.returncode}, want {want}")
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# json() itself: jsonq's answers, python3's for the rest, and a raise fails.
test_json_function() {
	printf '{"k": [1, {"x": "y"}], "b": true}\n' >"$T/d.json"
	assert_eq "$(json "$T/d.json" 'd["k"][1]["x"]')" y
	assert_eq "$(json "$T/d.json" 'd["b"]')" true
	assert_eq "$(json "$T/d.json" 'len(d["k"])')" 2
	assert_eq "$(json "$T/d.json" 'd["k"][1]')" "{'x': 'y'}"
	assert_eq "$(json "$T/d.json" 'sorted(d)')" "['b', 'k']"
	! json "$T/d.json" 'd["nope"]' 2>/dev/null || fail "json of a missing key succeeded"
	! json "$T/none.json" 'd["k"]' 2>/dev/null || fail "json of a missing file succeeded"
	# python3's raise is the command's failure too (jsonq execs it).
	! json "$T/d.json" 'sorted(d["nope"])' 2>/dev/null || fail "python3's KeyError succeeded"
	# `json` is an alias here, and a function where a word runs it (wait_for).
	local via=json
	assert_eq "$("$via" "$T/d.json" 'd["k"][1]')" "{'x': 'y'}"
	wait_for 5 json "$T/d.json" 'd["b"]' >/dev/null || fail "json as wait_for's command"
	[ "$(type -t json)" = alias ] || fail "json is not an alias here (expand_aliases)"
}

# porthold (port_take's holder): hold refuses, mute accepts and never speaks,
# full never answers; a server with SO_REUSEADDR takes a held port over; the
# holder ends with the shell that started it.
test_porthold_modes() {
	local p q m fp rc=0
	port_take hold p
	! timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$p" 2>/dev/null || fail "a held port accepted"
	python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("took")' "$p" >"$T/took" ||
		fail "a server could not take the held port over"
	assert_eq "$(<"$T/took")" took
	port_take mute m
	timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$m; ! timeout 1 head -c 1 <&3 | grep -q ." ||
		fail "mute did not accept, or spoke"
	port_take full fp
	timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$fp" 2>/dev/null || rc=$?
	assert_eq $rc 124 "a connect to full was answered"
	[ "$p" != "$m" ] && [ "$m" != "$fp" ] && [ "$p" != "$fp" ] || fail "one port twice: $p $m $fp"
	# It ends with its parent (the test's shell), within a second.
	bash -c '"$1" hold "$2" & echo $! >"$3"; wait_s=0; while [ ! -s "$2" ] && [ $wait_s -lt 100 ]; do sleep 0.05; wait_s=$((wait_s + 1)); done' \
		_ "$PORTHOLD" "$T/q.port" "$T/q.pid"
	q=$(<"$T/q.pid")
	wait_for 5 gone "$q" || fail "porthold outlived its parent"
}

t jsonq_is_python test_jsonq_is_python
t json_function test_json_function
t porthold_modes test_porthold_modes
