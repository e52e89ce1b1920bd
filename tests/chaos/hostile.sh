#!/usr/bin/env bash
# Chaos: hostile input.
#
#   tests/chaos/hostile.sh [REPS [SCENARIO]]
#                                       (REPS, default 0: every hostile value
#                                        in every field; N: each value in N
#                                        fields, every field at least once;
#                                        SCENARIO values, malformed or logs:
#                                        that one only, else all three)
#   CHAOS_FIELDS=workdir,box.host ...    only these fields (to look again)
#
# chaos_hostile_values: more than 40 hostile strings (quotes, $(...), `...`,
# ; | &&, newlines, CR, control and non-UTF-8 bytes, RTL marks, emoji,
# 64 KiB, 255 and 256 bytes, leading dashes, globs, ../../etc/passwd, ~root,
# %s%n, HTML, markdown fences, table pipes, headings, ANSI escapes, a
# trailing backslash, blanks, $HOME, ${IFS}, ...) in every config field that
# reaches a shell, a log, a file name or markdown (core/config.c's key
# tables: run, profile, workdir, session, results, dri, box.*, chain[].stage,
# run, log, done_when, marker, wait.log, progress, checkpoints.*, notify[].*,
# transfer.*, patrol.schedule, platform.*) and in the config file's own path.
# Each config goes through `onbox status`, `handbook`, `patrol --once`
# against the suite's sshd (the probe built and run on the box), `onbox run`
# where running it is safe (the workdir kept under the test's directory), and
# for the schedule and the config path `patrol --install-cron` (the
# installed cron command is then run as cron would).  Invariants:
#   - the exit status is 0 or a documented one; a rejection (78) names the
#     file and the line;
#   - no crash: no signal, no sanitizer report;
#   - no injection: the values that would run `touch $T/PWNED` never do,
#     on this machine or on the box (the same machine, over ssh);
#   - HANDBOOK.md stays well-formed: every fence closed, no heading but the
#     handbook's own, table rows of one width, no newline of a value starting
#     a line of its own outside a fence, every ```sh block valid sh;
#   - patrol's report gets exactly one line per tick;
#   - a webhook URL (a secret) appears in no output and no file.
# chaos_malformed_configs: a valid config cut at every 7th byte, and broken
# ones (binary garbage, NULs, nesting 100000 deep, unclosed comments, a BOM,
# huge numbers, a 1 MB key): exit 78 naming the file and a line, never a crash,
# for onbox, patrol, sentinel and handbook.
# chaos_hostile_logs: a stage printing a 10 MB line without a newline, binary
# garbage (NULs included) and ANSI escapes: onbox keeps running with bounded
# memory (VmHWM), the stage succeeds or fails as it should, status and the
# marker stay readable.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/../e2e/sshd.sh"
. "$(dirname "$0")/lib_chaos.sh"
PATROL="$TOP/$BUILD/patrol"
SENTINEL="$TOP/$BUILD/sentinel"
HANDBOOK="$TOP/$BUILD/handbook"

REPS=${1:-0}
ONLY=${2:-}
case $ONLY in '' | values | malformed | logs) ;;
*) echo "usage: tests/chaos/hostile.sh [REPS [values|malformed|logs]]" >&2; exit 64 ;;
esac
[ "$CHAOS_SLOW" = 1 ] && { [ "$REPS" = 0 ] || [ "$REPS" -gt 1 ]; } && REPS=1

# The driver: python, so that a value reaches the config file byte for byte.
hostile_driver() {
	ONBOX="$ONBOX" PATROL="$PATROL" HANDBOOK="$HANDBOOK" SENTINEL="$SENTINEL" \
	CHAOS_FIELDS="${CHAOS_FIELDS:-}" WRAP="${ONBOX_WRAP:-}" REPS="$REPS" SEED="$CHAOS_SEED" CRASH_RE="$CHAOS_CRASH_RE" \
	python3 - "$@" <<'PY'
import glob, json, os, random, re, shlex, subprocess, sys, time

T = os.environ["T"]
ONBOX, PATROL, HANDBOOK, SENTINEL = (os.environ[k] for k in ("ONBOX", "PATROL", "HANDBOOK", "SENTINEL"))
WRAP = shlex.split(os.environ.get("WRAP", ""))
SSH_CFG = os.environ["SSH_CFG"]
CRASH_RE = re.compile(os.environ["CRASH_RE"].encode())
rng = random.Random(int(os.environ["SEED"]))
C = T + "/PWNED"
GUARD = 120 if WRAP else 60
STATE = os.environ["XDG_STATE_HOME"]
SECTIONS = ["Run contract", "First command on reconnect", "Current status", "The chain",
            "Marker paths", "Resume", "Decision table", "Cron", "Sentinel", "Triage table", "Logbook", "Run record"]
DOC_EXIT = {"status": {0, 1, 74, 78}, "handbook": {0, 74, 78}, "patrol": {0, 1, 2, 78},
            "run": {0, 1, 74, 78}, "cron": {0, 1, 74, 78}, "sentinel": {0, 1, 2, 3, 74, 78}}
errors = []
stats = {"configs": 0, "runs": 0, "rejected": 0, "handbooks": 0, "ticks": 0, "cron": 0, "onbox_runs": 0}


class Raw(bytes):
    """A value written into the JSON string as raw bytes (not UTF-8)."""


def values():
    v = [
        ("empty", ""), ("spaces", "   "), ("squote", "'"), ("dquote", '"'),
        ("quotes", "it's \"quoted\""), ("subst", "$(touch %s)" % C), ("backtick", "`touch %s`" % C),
        ("semicolon", "; touch %s" % C), ("pipe", "| touch %s" % C), ("and", "&& touch %s" % C),
        ("newline", "x\ntouch %s\n" % C), ("cr", "a\rtouch %s\r" % C),
        ("all", "$(touch %s) `touch %s` ; touch %s | touch %s && touch %s" % (C, C, C, C, C)),
        ("sq-breakout", "'; touch %s; '" % C), ("sq-breakout2", "'\"'\"'; touch %s #" % C),
        ("escaped-subst", "\\$(touch %s)" % C), ("bs-quote", "\\'$(touch %s)\\'" % C),
        ("dashrf", "-rf"), ("help", "--help"), ("proxycmd", "-oProxyCommand=touch %s" % C),
        ("glob", "*"), ("dotdot", "../../etc/passwd"), ("tilde", "~root"), ("fmt", "%s%n%x%p%%"),
        ("html", "<script>alert(1)</script><!--"), ("fence", "```\n# WKHEAD fenced\n```"),
        ("tildefence", "~~~\n# WKHEAD tilde\n"), ("cells", "|a|b|"), ("heading", "# WKHEAD heading"),
        ("nlheading", "text\n## WKHEAD second"), ("list", "x\n- [ ] WKHEAD item"),
        ("ansi", "\x1b[31mred\x1b[0m\x1b]0;title\x07\x1b[2J"), ("backslash", "trailing\\"),
        ("home", "$HOME"), ("ifs", "${IFS}touch${IFS}%s" % C), ("id", "`id`"), ("bsn", "a\\nb"),
        ("emoji", "🔥💥 run"), ("rtl", "\u202eevil\u202c.sh"), ("ls", "a\u2028b\u2029c"),
        ("long64k", "A" * 65536), ("name255", "n" * 255), ("name256", "n" * 256),
        ("ctrl", "\x01\x02\x07\x08\x0b\x0c\x1f\x7f"), ("latin1", "\u0080\u00ff\u00e9"),
        ("tab", "a\tb c"), ("onlynl", "\n"), ("dot", "."), ("dotdot2", ".."), ("slash", "/"),
        ("arith", "${PWD}$((1+1))"), ("braces", "[[ ]] { } ( ) < > >>"),
        ("raw", Raw(b"\xff\xfe\xc3(\x80")),
    ]
    return v


def cfg_base(tag):
    return {
        "run": "t1", "workdir": "%s/hw/%s" % (T, tag), "detach": "nohup", "heartbeat_s": 1,
        "box": {"host": "box", "ssh_config": SSH_CFG, "config": "%s/h/wk.json" % T, "connect_timeout_s": 3},
        "chain": [{"stage": "a", "run": "echo done a"}, {"stage": "b", "run": "echo done b"}],
    }


def set_in(d, path, v):
    keys = path.split(".")
    for k in keys[:-1]:
        d = d[int(k)] if isinstance(d, list) else d.setdefault(k, {})
    if isinstance(d, list):
        d[int(keys[-1])] = v
    else:
        d[keys[-1]] = v


# field name -> (extra setup, path of the value, run onbox run?, secret?)
def f_simple(path, run=False, setup=None, secret=False):
    return (setup, path, run, secret)


def s_ckpt(c):
    c["checkpoints"] = {"dir": "ckpt", "pattern": "^step-(\\d+)$"}
    c["chain"][0]["run"] = "echo {checkpoint} > ck.out; echo done a"


def s_notify(kind):
    def f(c):
        n = {"type": kind}
        if kind == "telegram":
            n.update({"token_env": "WK_CHAOS_TOKEN", "chat_id": 1})
        elif kind == "command":
            n["command"] = "cat >/dev/null"
        else:
            n["url"] = "http://127.0.0.1:9/hook"
        c["notify"] = [n]
        c["outbox"] = {"timeout_s": 1, "connect_timeout_s": 1}
    return f


def s_transfer(c):
    c["transfer"] = {"local": T + "/tl", "remote": "out", "resume": "true"}


def s_wait(c):
    c["chain"][0] = {"stage": "a", "wait": {"log": "train.log", "pattern": "done", "timeout_s": 1}}


def s_progress(c):
    c["progress"] = {"pattern": "step (\\d+)"}


def s_platform(c):
    c["platform"] = {"notes": "n", "persistent": "/data"}


FIELDS = {
    "run": f_simple("run"),
    "profile": f_simple("profile"),
    "workdir": f_simple("workdir", run=True),
    "session": f_simple("session", run=True),
    "results": f_simple("results", run=True),
    "dri": f_simple("dri", run=True),
    "box.host": f_simple("box.host"),
    "box.user": f_simple("box.user"),
    "box.config": f_simple("box.config"),
    "box.ssh_config": f_simple("box.ssh_config"),
    "box.identity": f_simple("box.identity"),
    "box.known_hosts": f_simple("box.known_hosts"),
    "chain[].stage": f_simple("chain.0.stage", run=True),
    "chain[].run": f_simple("chain.0.run"),
    "chain[].log": f_simple("chain.0.log", run=True),
    "chain[].done_when": f_simple("chain.0.done_when", run=True),
    "chain[].marker": f_simple("chain.0.marker", run=True),
    "chain[].wait.log": f_simple("chain.0.wait.log", run=True, setup=s_wait),
    "progress.pattern": f_simple("progress.pattern", run=True, setup=s_progress),
    "checkpoints.dir": f_simple("checkpoints.dir", run=True, setup=s_ckpt),
    "checkpoints.pattern": f_simple("checkpoints.pattern", run=True, setup=s_ckpt),
    "checkpoints.complete_file": f_simple("checkpoints.complete_file", run=True, setup=s_ckpt),
    "checkpoints.none": f_simple("checkpoints.none", run=True, setup=s_ckpt),
    "notify[].url": f_simple("notify.0.url", run=True, setup=s_notify("generic"), secret=True),
    "notify[].url_env": f_simple("notify.0.url_env", setup=s_notify("slack")),
    "notify[].token_env": f_simple("notify.0.token_env", setup=s_notify("telegram")),
    "notify[].chat_id": f_simple("notify.0.chat_id", setup=s_notify("telegram")),
    "notify[].command": f_simple("notify.0.command", setup=s_notify("command")),
    "transfer.local": f_simple("transfer.local", setup=s_transfer),
    "transfer.remote": f_simple("transfer.remote", setup=s_transfer),
    "transfer.resume": f_simple("transfer.resume", setup=s_transfer),
    "patrol.schedule": f_simple("patrol.schedule"),
    "platform.notes": f_simple("platform.notes", setup=s_platform),
    "platform.persistent": f_simple("platform.persistent", setup=s_platform),
}


def encode(cfg, v):
    """The config as bytes with the placeholder replaced by v's JSON text."""
    text = json.dumps(cfg, indent=1, ensure_ascii=False).encode()
    if isinstance(v, Raw):
        lit = b'"' + bytes(v) + b'"'
    else:
        lit = json.dumps(v, ensure_ascii=False).encode()
    return text.replace(b'"@@V@@"', lit, 1)


def err(ctx, msg):
    errors.append("%s: %s" % (ctx, msg))


# Fields whose value is a command by design, and the program that runs it here.
BY_DESIGN = {"notify[].command": {"patrol", "run"}, "chain[].run": {"run"}, "transfer.resume": set()}
FIELD = [None]


def canary(ctx, kind=None):
    if os.path.lexists(C):
        os.remove(C)
        if kind not in BY_DESIGN.get(FIELD[0], set()):
            err(ctx, "INJECTION: %s ran %s" % (kind or "something", C))


def run(ctx, kind, argv, cfgpath, cwd=None):
    stats["runs"] += 1
    try:
        p = subprocess.run(WRAP + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=GUARD, cwd=cwd or T, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        err(ctx, "%s: not done within %d s (the guard stopped it)" % (kind, GUARD))
        return None, b"", b""
    rc, out, e = p.returncode, p.stdout, p.stderr
    if rc < 0 or rc >= 128 or CRASH_RE.search(e) or CRASH_RE.search(out):
        err(ctx, "%s CRASHED (exit %d): %r" % (kind, rc, e[-1500:]))
    elif rc not in DOC_EXIT[kind]:
        err(ctx, "%s: undocumented exit %d: %r" % (kind, rc, (out + e)[-600:]))
    if rc == 78:
        stats["rejected"] += 1
        if not re.search(re.escape(cfgpath.encode()) + rb"(:[0-9]+: |: key )", e):
            err(ctx, "%s: config error naming neither file:line nor file and key: %r" % (kind, e[-600:]))
    canary(ctx, kind)
    return rc, out, e


def md_check(ctx, text, v, run_name="t1"):
    lines = text.split("\n")
    fence = None
    cols = None
    for i, line in enumerate(lines, 1):
        m = re.match(r"^ {0,3}(`{3,}|~{3,})(.*)$", line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= fence[1] and m.group(2).strip() == "":
                fence = None
            continue
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = (m.group(1)[0], len(m.group(1)))
            cols = None
            continue
        h = re.match(r"^ {0,3}(#{1,6})(\s|$)", line)
        if h:
            ok = (line == "# Handbook: " + run_name or line in ["## " + s for s in SECTIONS]
                  or re.match(r"^### [0-9]+\. [A-Za-z0-9._-]+$", line))
            if not ok:
                err(ctx, "HANDBOOK.md:%d: a heading that is not the handbook's: %r" % (i, line[:200]))
        if line.startswith("|"):
            n = len(re.findall(r"(?<!\\)\|", line))
            if cols is None:
                cols = n
            elif n != cols:
                err(ctx, "HANDBOOK.md:%d: a table row of %d cells among rows of %d: %r" % (i, n, cols, line[:200]))
        else:
            cols = None
        if isinstance(v, str) and "\n" in v:
            for seg in v.split("\n")[1:]:
                if seg.strip() and line.strip().startswith(seg.strip()):
                    err(ctx, "HANDBOOK.md:%d: the value's newline starts a line: %r" % (i, line[:200]))
    if fence is not None:
        err(ctx, "HANDBOOK.md: a fence %r is never closed" % (fence[0] * fence[1]))
    # Every ```sh block is valid sh (never run: sh -n only parses).
    for blk in re.findall(r"^(`{3,})sh\n(.*?)\n\1$", text, re.S | re.M):
        body = blk[1]
        sv = v.decode("utf-8", "replace") if isinstance(v, Raw) else v
        if sv.strip() and sv.strip() in body:
            continue	# a command of the config's (a stage's, transfer.resume), shown as written
        p = subprocess.run(["sh", "-n"], input=body.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            err(ctx, "HANDBOOK.md: a sh block does not parse: %r: %r" % (body[:300], p.stderr[:200]))


def report_lines(run_name):
    try:
        with open("%s/watchkeeper/%s/report.log" % (STATE, run_name), "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return 0


def crontab_reset():
    try:
        os.remove(T + "/crontab.txt")
    except OSError:
        pass


def crontab_check(ctx):
    try:
        tab = open(T + "/crontab.txt", "rb").read()
    except OSError:
        return
    jobs = [l for l in tab.split(b"\n") if l.strip() and not l.lstrip().startswith(b"#")]
    for l in jobs:
        if not l.rstrip().endswith(b"# watchkeeper:t1"):
            err(ctx, "INJECTION: a crontab line that is not patrol's: %r" % l[:300])
    return jobs


def done_without_marker(ctx, workdir):
    """A stage_done event (sent to the webhooks too) means its marker is there."""
    wk = os.path.join(workdir, ".watchkeeper")
    try:
        lines = open(os.path.join(wk, "events.jsonl"), "rb").read().splitlines()
    except OSError:
        return
    for l in lines:
        try:
            ev = json.loads(l)
        except ValueError:
            continue
        if ev.get("event") == "stage_done" and not os.path.exists(os.path.join(wk, "markers", ev.get("marker", ""))):
            err(ctx, "stage_done for %s, but its marker %r was never written" % (ev.get("stage"), ev.get("marker", "")[:60]))


def one(field, name, v, tag):
    setup, path, can_run, secret = FIELDS[field]
    t0 = time.time()
    token = ("WKSECRET" + tag).encode()
    if secret:
        # The secret must be findable whatever else the value looks like.
        v = Raw(bytes(v) + token) if isinstance(v, Raw) else v + token.decode()
    ctx = "%s=%s" % (field, name)
    FIELD[0] = field
    run_name = v if field == "run" and isinstance(v, str) and re.match(r"^[A-Za-z0-9._-]+$", v) and v not in (".", "..") else "t1"
    stats["configs"] += 1
    cfgdir = "%s/h/%s" % (T, tag)
    os.makedirs(cfgdir, exist_ok=True)
    cfgpath = cfgdir + "/wk.json"
    cfg = cfg_base(tag)
    if setup:
        setup(cfg)
    set_in(cfg, path, "@@V@@")
    with open(cfgpath, "wb") as f:
        f.write(encode(cfg, v))
    outs = []
    rc, o, e = run(ctx, "status", [ONBOX, "-c", cfgpath, "status"], cfgpath)
    outs += [o, e]
    hb = cfgdir + "/HANDBOOK.md"
    rc, o, e = run(ctx, "handbook", [HANDBOOK, "-c", cfgpath, "-o", hb], cfgpath)
    outs += [o, e]
    if rc == 0:
        stats["handbooks"] += 1
        data = open(hb, "rb").read()
        outs.append(data)
        md_check(ctx, data.decode("utf-8", "replace"), v, run_name)
    before = report_lines(run_name)
    rc, o, e = run(ctx, "patrol", [PATROL, "-c", cfgpath, "--once"], cfgpath)
    outs += [o, e]
    if rc in (0, 1, 2):
        stats["ticks"] += 1
        after = report_lines(run_name)
        if after != before + 1:
            err(ctx, "patrol: the report log got %d lines for one tick" % (after - before))
        if not re.match(rb"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z " + re.escape(run_name.encode()) + rb" [A-Z_]+( |$)", o):
            err(ctx, "patrol: the report line is not <time> <run> <VERDICT>: %r" % o[:300])
    if field == "patrol.schedule":
        crontab_reset()
        rc, o, e = run(ctx, "cron", [PATROL, "-c", cfgpath, "--install-cron"], cfgpath)
        outs += [o, e]
        stats["cron"] += 1
        jobs = crontab_check(ctx) or []
        if rc == 0 and len(jobs) != 1:
            err(ctx, "install-cron: %d crontab lines, not 1" % len(jobs))
        run(ctx, "cron", [PATROL, "-c", cfgpath, "--uninstall-cron"], cfgpath)
    if can_run:
        wd = T + "/wd/a/b/c/"
        cfg = cfg_base(tag)
        cfg["workdir"] = "%s/hw/%s/run" % (T, tag)
        if setup:
            setup(cfg)
        rv = v
        if field == "workdir":
            rv = Raw(wd.encode() + bytes(v)) if isinstance(v, Raw) else wd + v
        set_in(cfg, path, "@@V@@")
        with open(cfgpath, "wb") as f:
            f.write(encode(cfg, rv))
        os.makedirs(T + "/wd/a/b/c", exist_ok=True)
        stats["onbox_runs"] += 1
        rc, o, e = run(ctx, "run", [ONBOX, "-c", cfgpath, "run"], cfgpath)
        outs += [o, e]
        done_without_marker(ctx, cfg["workdir"])
        if rc == 0:
            rc2, o, e = run(ctx, "status", [ONBOX, "-c", cfgpath, "status", "--json"], cfgpath)
            try:
                d = json.loads(o)
                if d.get("done") is not True:
                    err(ctx, "status --json after a clean run does not say done: %r" % o[:300])
            except ValueError as x:
                err(ctx, "status --json is not JSON after a run (%s): %r" % (x, o[:300]))
    if secret:
        where = [k for k, o in zip(range(len(outs)), outs) if token in o]
        for root, _, files in os.walk(T):
            for fn in files:
                f = os.path.join(root, fn)
                try:
                    if f != cfgpath and os.path.getmtime(f) >= t0 - 1 and token in open(f, "rb").read(16 << 20):
                        where.append(f)
                except OSError:
                    pass
        if where:
            err(ctx, "SECRET: the webhook URL appears in %s" % where[:5])


def config_path_case(name, v, tag):
    """The config file itself at a hostile path: patrol's cron line and handbook."""
    if isinstance(v, Raw) or not v or "/" in v or v in (".", "..") or len(v.encode()) > 255:
        return False
    ctx = "config path=%s" % name
    FIELD[0] = None
    stats["configs"] += 1
    d = "%s/cp/%s/%s" % (T, tag, v)
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as x:
        return False
    cfgpath = d + "/wk.json"
    cfg = cfg_base(tag)
    with open(cfgpath, "w") as f:
        json.dump(cfg, f)
    crontab_reset()
    rc, o, e = run(ctx, "cron", [PATROL, "-c", cfgpath, "--install-cron"], cfgpath)
    stats["cron"] += 1
    jobs = crontab_check(ctx) or []
    if rc == 0:
        if len(jobs) != 1:
            err(ctx, "install-cron: %d crontab lines, not 1: %r" % (len(jobs), jobs))
        else:
            # What cron would run: the command after the five fields, by sh.
            cmd = jobs[0].split(None, 5)[5].replace(b"\\%", b"%")
            try:
                p = subprocess.run(["sh", "-c", cmd], timeout=GUARD, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                if p.returncode not in DOC_EXIT["patrol"]:
                    err(ctx, "the cron command exited %d: %r" % (p.returncode, p.stderr[-300:]))
            except subprocess.TimeoutExpired:
                err(ctx, "the cron command did not end within %d s" % GUARD)
            canary(ctx, "cron")
    run(ctx, "cron", [PATROL, "-c", cfgpath, "--uninstall-cron"], cfgpath)
    hb = d + "/HANDBOOK.md"
    rc, o, e = run(ctx, "handbook", [HANDBOOK, "-c", cfgpath, "-o", hb], cfgpath)
    if rc == 0:
        md_check(ctx, open(hb, "rb").read().decode("utf-8", "replace"), v)
    return True


def main():
    vals = values()
    fields = list(FIELDS)
    if os.environ.get("CHAOS_FIELDS"):
        fields = [f for f in fields if f in os.environ["CHAOS_FIELDS"].split(",")]
    reps = int(os.environ["REPS"])
    pairs = []
    if reps <= 0 or reps >= len(fields):
        pairs = [(f, i) for i in range(len(vals)) for f in fields]
    else:
        off = rng.randrange(len(fields))
        for r in range(reps):
            for i in range(len(vals)):
                pairs.append((fields[(i * reps + r + off) % len(fields)], i))
        covered = {f for f, _ in pairs}
        for f in fields:
            if f not in covered:
                pairs.append((f, rng.randrange(len(vals))))
    rng.shuffle(pairs)
    for n, (f, i) in enumerate(pairs):
        name, v = vals[i]
        one(f, name, v, "c%d" % n)
    paths = 0
    for i, (name, v) in enumerate(vals):
        paths += config_path_case(name, v, "p%d" % i)
    for e in errors:
        print("VIOLATION " + e[:2000], file=sys.stderr)
    # Grouped, so that the end of the log says what kinds of violation there were.
    kinds = {}
    for e in errors:
        k = re.sub(r"^[^:]*: ", "", e)
        k = re.sub(r"[0-9]+", "N", k)[:70]
        kinds.setdefault(k, []).append(e)
    for k, v in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        print("%4d x %s\n       e.g. %s" % (len(v), k, v[0][:400]), file=sys.stderr)
    summ = "%d values x %d fields: %d configs, %d runs (%d rejected, named by file:line), %d handbooks, %d ticks, %d onbox runs, %d cron installs, %d config paths" % (
        len(vals), len(set(f for f, _ in pairs)), stats["configs"], stats["runs"], stats["rejected"],
        stats["handbooks"], stats["ticks"], stats["onbox_runs"], stats["cron"], paths)
    print(summ)
    sys.exit(1 if errors else 0)


main()
PY
}

test_hostile_values() {
	local out
	box
	mkdir -p "$T/h" "$T/hw" "$T/tl"
	export WK_CHAOS_TOKEN="123:chaos-token"
	out=$(hostile_driver)
	echo "$out"
	summary "$(echo "$out" | tail -n 1)"
}

# Malformed configs: cut at every 7th byte, and broken in other ways.
malformed_driver() {
	ONBOX="$ONBOX" PATROL="$PATROL" HANDBOOK="$HANDBOOK" SENTINEL="$SENTINEL" \
	WRAP="${ONBOX_WRAP:-}" CRASH_RE="$CHAOS_CRASH_RE" SEED="$CHAOS_SEED" SLOW="$CHAOS_SLOW" python3 - <<'PY'
import os, random, re, shlex, subprocess, sys

T = os.environ["T"]
WRAP = shlex.split(os.environ.get("WRAP", ""))
CRASH_RE = re.compile(os.environ["CRASH_RE"].encode())
rng = random.Random(int(os.environ["SEED"]))
GUARD = 120 if WRAP else 60
TOOLS = {
    "onbox": lambda c: [os.environ["ONBOX"], "-c", c, "status"],
    "patrol": lambda c: [os.environ["PATROL"], "-c", c, "--once"],
    "sentinel": lambda c: [os.environ["SENTINEL"], "-c", c, "--marker", "A_DONE", "--interval", "1", "--max-ticks", "1"],
    "handbook": lambda c: [os.environ["HANDBOOK"], "-c", c, "-o", T + "/m/HB.md"],
}
GOOD = ("{\n  // a comment, as configs may have\n  \"run\": \"t1\",\n  \"workdir\": \"%s/m/work\",\n"
        "  \"detach\": \"nohup\", /* inline */ \"heartbeat_s\": 5,\n"
        "  \"box\": {\"host\": \"box\", \"ssh_config\": \"%s\", \"connect_timeout_s\": 3},\n"
        "  \"progress\": {\"pattern\": \"step (\\\\d+)/(\\\\d+)\", \"max\": 100},\n"
        "  \"notify\": [{\"type\": \"generic\", \"url\": \"http://127.0.0.1:9/x\", \"events\": [\"stage_done\"]}],\n"
        "  \"chain\": [\n    {\"stage\": \"a\", \"run\": \"echo a; echo 'done a'\", \"done_when\": \"done a\"},\n"
        "    {\"stage\": \"b\", \"run\": \"echo b\", \"marker\": \"B_DONE\"}\n  ]\n}\n") % (T, os.environ["SSH_CFG"])
errors = []
n = {"cuts": 0, "broken": 0, "runs": 0}


def check(name, data, want_line):
    path = "%s/m/%s.json" % (T, name)
    with open(path, "wb") as f:
        f.write(data)
    tools = list(TOOLS.items())
    if os.environ.get("SLOW") == "1":
        # Under valgrind: one program per input, in turn.
        tools = [tools[(n["cuts"] + n["broken"]) % len(tools)]]
    for tool, argv in tools:
        n["runs"] += 1
        try:
            p = subprocess.run(WRAP + argv(path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, timeout=GUARD)
        except subprocess.TimeoutExpired:
            errors.append("%s: %s did not end within %d s" % (name, tool, GUARD))
            continue
        e = p.stderr
        if p.returncode < 0 or p.returncode >= 128 or CRASH_RE.search(e):
            errors.append("%s: %s CRASHED (exit %d): %r" % (name, tool, p.returncode, e[-1000:]))
        elif p.returncode != 78:
            errors.append("%s: %s exited %d, not 78: %r" % (name, tool, p.returncode, (p.stdout + e)[-400:]))
        elif not re.search(re.escape(path.encode()) + (rb":[0-9]+: " if want_line else rb":"), e):
            errors.append("%s: %s: the error names no %s: %r" % (name, tool, "file:line" if want_line else "file", e[-400:]))
    os.remove(path)


os.makedirs(T + "/m/work", exist_ok=True)
good = GOOD.encode()
# The whole one is good: every tool accepts it (so that what follows tests the cuts).
path = T + "/m/good.json"
open(path, "wb").write(good)
p = subprocess.run(WRAP + TOOLS["onbox"](path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
if p.returncode != 0:
    errors.append("the uncut config is rejected: %r" % p.stderr)
end = good.rindex(b"}")
for k in range(0, end, 7):
    n["cuts"] += 1
    check("cut%d" % k, good[:k], True)
junk = bytes(rng.randrange(256) for _ in range(4096))
BROKEN = {
    "empty": b"", "blank": b"  \n\t\n", "open": b"{", "null": b"null", "array": b"[]",
    "string": b'"wk"', "number": b"1e999", "garbage": junk, "nul-in-string": good.replace(b'"echo b"', b'"echo b\0; touch %s"' % (T + "/PWNED").encode()),
    "deep-array": b"[" * 100000, "deep-object": b'{"run": ' + b'{"a": ' * 50000,
    "unclosed-comment": b"/* " + good, "comment-only": b"// nothing\n", "trailing-comma": good[:end].rstrip() + b",\n}",
    "bad-escape": good.replace(b'"echo b"', b'"echo \\x b"'), "lone-surrogate": good.replace(b'"echo b"', b'"\\ud800"'),
    "huge-key": b'{"' + b"k" * (1 << 20) + b'": 1}', "huge-number": good.replace(b'"heartbeat_s": 5', b'"heartbeat_s": 1e308'),
    "fraction": good.replace(b'"heartbeat_s": 5', b'"heartbeat_s": 1.5'), "negative": good.replace(b'"heartbeat_s": 5', b'"heartbeat_s": -5'),
    "no-chain": good.replace(b'"chain"', b'"chane"'), "empty-chain": good[:good.index(b'"chain"')] + b'"chain": []}\n',
    "wrong-types": good.replace(b'"t1"', b'["t1"]').replace(b'"nohup"', b"true"),
    "many-stages": b'{"run": "t1", "workdir": "/tmp", "chain": [' + b",".join(b'{"stage": "s%d", "run": "true"}' % i for i in range(1500)) + b"]}",
}
for name, data in BROKEN.items():
    n["broken"] += 1
    # A document that is not an object, or no document: the file is named, a line need not be.
    check(name, data, name not in ("empty", "blank", "garbage", "null", "array", "string", "number"))
for e in errors:
    print("VIOLATION " + e[:1500], file=sys.stderr)
print("%d cuts at every 7th byte and %d broken configs through onbox, patrol, sentinel and handbook: %d runs, all exit 78 naming the file (and the line)" % (n["cuts"], n["broken"], n["runs"]))
sys.exit(1 if errors else 0)
PY
}

test_malformed_configs() {
	local out
	box
	out=$(malformed_driver)
	echo "$out"
	summary "$out"
}

# A stage whose output is a 10 MB line, binary garbage (NULs too) and ANSI
# escapes, written to its stdout and to its own log.
garbage_stage() {
	mkdir -p "$T/bin"
	cat >"$T/bin/garbage.sh" <<'SH'
#!/bin/sh
how=$1 go=$2 await=$3
emit() {
	head -c 10485760 /dev/zero | tr '\0' 'x'
	head -c 1048576 /dev/urandom
	printf '\033[2J\033]0;pwned\007\r\n'
	printf '\nstep 5/10\n'
}
emit
emit >>train.log
"$await" 60 "$go" || :
if [ "$how" = ok ]; then echo "Training completed"; echo "Training completed" >>train.log; exit 0; fi
echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB" >&2
exit 1
SH
	chmod +x "$T/bin/garbage.sh"
}

# The onbox's peak memory in kB.
vmhwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

test_hostile_logs() {
	local how rc hwm limit=102400 peaks=""
	garbage_stage
	# ASan's shadow memory and quarantine are not the program's: a looser bound there.
	grep -qa __asan_init "$ONBOX" && limit=409600
	for how in ok fail; do
		rm -rf "$T/work"
		conf '"progress": {"pattern": "step (\\d+)/(\\d+)"},' \
			"[{\"stage\": \"g\", \"run\": \"$T/bin/garbage.sh $how $T/go.$how $AWAIT\", \"log\": \"train.log\", \"done_when\": \"Training completed\"}]"
		bg_onbox run
		wait_for 120 grep -q '~5/10' "$W/state.json"
		# Still running, still answering, in whole JSON.
		kill -0 "$LAST_PID"
		onbox status >"$T/status.$how" 2>&1
		onbox status --json >"$T/status.$how.json"
		python3 -c 'import json,sys; json.loads(open(sys.argv[1], "rb").read())' "$T/status.$how.json" ||
			fail "onbox status --json is not JSON after garbage"
		json_whole "$W" live >/dev/null
		if [ "$CHAOS_SLOW" = 0 ]; then
			hwm=$(vmhwm "$LAST_PID")
			peaks="$peaks $((hwm / 1024))"
			[ "$hwm" -lt "$limit" ] || fail "onbox peaked at $hwm kB reading a 10 MB line (bound $limit kB)"
		fi
		touch "$T/go.$how"
		rc=0; wait "$LAST_PID" || rc=$?
		json_whole "$W" >/dev/null
		if [ "$how" = ok ]; then
			assert_eq "$rc" 0 "onbox after a garbage-printing stage that succeeded"
			assert_eq "$(json "$W/markers/G_DONE" 'd["exit_code"]')" 0
		else
			assert_eq "$rc" 1 "onbox after a garbage-printing stage that failed"
			assert_eq "$(json "$W/markers/G_DONE.FAILED" 'd["class"]')" cuda_oom
			assert_no_file "$W/markers/G_DONE"
		fi
	done
	summary "10 MB lines and 1 MB of binary garbage, twice per attempt, a success and a cuda_oom failure; peak RSS (MB):${peaks:- not measured under valgrind}"
}

chaos_banner hostile "reps $REPS${ONLY:+, $ONLY only}"
want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }
if want values; then ct chaos_hostile_values test_hostile_values; fi
if want malformed; then ct chaos_malformed_configs test_malformed_configs; fi
if want logs; then ct chaos_hostile_logs test_hostile_logs; fi
