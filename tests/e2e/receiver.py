#!/usr/bin/env python3
"""A webhook receiver for the end-to-end tests, on 127.0.0.1 only.

Every request is logged as one JSON line (method, path, headers, body, the
status answered).  What it answers is read from --mode-file on each request,
so a test can change it while the receiver runs:
  200 / 404 / 500 ...   answer that status ("ok" body; feishu/dingtalk/wecom
                        paths get their JSON success body)
  hang:N                hold the request N seconds before answering 200
  json:STATUS:BODY      answer STATUS with BODY as application/json
The bound port is written to --port-file.  The test stops it by its pid
(SIGTERM: the requests in progress are answered first).
With --tls-cert and --tls-key it speaks HTTPS (TLS 1.2+) instead.
"""
import argparse
import json
import os
import signal
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

lock = threading.Lock()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--mode-file", required=True)
    ap.add_argument("--tls-cert")
    ap.add_argument("--tls-key")
    args = ap.parse_args()

    def mode():
        try:
            with open(args.mode_file) as f:
                return f.read().strip() or "200"
        except OSError:
            return "200"

    def record(entry):
        with lock, open(args.log, "a") as f:
            f.write(json.dumps(entry) + "\n")
            f.flush()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n).decode("utf-8", "replace")
            m = mode()
            status, payload, ctype = 200, b"ok", "text/plain"
            if m.startswith("hang:"):
                record({"t": time.time(), "method": "POST", "path": self.path,
                        "headers": dict(self.headers), "body": body, "status": "hung"})
                time.sleep(float(m.split(":", 1)[1]))
                status = 200
            elif m.startswith("json:"):
                _, code, text = m.split(":", 2)
                status, payload, ctype = int(code), text.encode(), "application/json"
            else:
                status = int(m)
                if any(k in self.path for k in ("feishu", "lark")):
                    payload, ctype = b'{"code":0,"msg":"success"}', "application/json"
                elif any(k in self.path for k in ("dingtalk", "wecom")):
                    payload, ctype = b'{"errcode":0,"errmsg":"ok"}', "application/json"
            if not m.startswith("hang:"):
                record({"t": time.time(), "method": "POST", "path": self.path,
                        "headers": dict(self.headers), "body": body, "status": status})
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    # SIGTERM (the test's stop) ends it gracefully: no new connection is
    # accepted and every request already taken gets its whole answer, so a
    # request logged as answered was answered (a sender that saw its
    # connection cut mid-answer would send it again, and the test would see
    # a duplicate that no sender made by itself).
    ThreadingHTTPServer.daemon_threads = False
    ThreadingHTTPServer.block_on_close = True
    ThreadingHTTPServer.allow_reuse_address = True
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    signal.signal(signal.SIGTERM,
                  lambda *a: threading.Thread(target=srv.shutdown, daemon=True).start())
    if args.tls_cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(args.tls_cert, args.tls_key)
        # Handshake in the handler's thread: a client that rejects the
        # certificate must not stall or kill the accept loop.
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True,
                                     do_handshake_on_connect=False)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    srv.server_close()	# waits for the requests in progress
    return 0


if __name__ == "__main__":
    sys.exit(main())
