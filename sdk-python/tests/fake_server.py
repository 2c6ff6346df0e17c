"""A fake Sluice server for the wmill.worker unit tests: it records every request and answers
from a handler the test gives. The real server is exercised by the conformance suite
(test/conformance/); this one lets a test script exact answers (a LEASE_LOST, a claim with a
chosen journal) that a real server produces only by racing processes.

``POST /api/worker/batch`` is answered as the real server does: each write is handed to the
handler as a request to its own route (``/api/worker/runs/{runId}/{op}``, recorded as such) and
answered with that status and body, in order; the batch itself is recorded in ``batches``.
``batch=False`` makes it a server from before the batch route (404 ``NOT_FOUND``);
``slow_first_batch``: seconds the first batch takes (so that writes made meanwhile queue up).
``connections`` counts the TCP connections the server accepted; ``direct`` lists the paths
requested on their own (not as writes of a batch)."""
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeServer:
    def __init__(self, answer, batch=True, slow_first_batch=0.0):
        self.requests = []
        self.connections = 0
        self.direct = []
        self.slow_first_batch = slow_first_batch
        self.batches = []
        self.answer = answer
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                super().setup()
                with outer.lock:
                    outer.connections += 1

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"null")
                with outer.lock:
                    outer.direct.append(self.path)
                if self.path == "/api/worker/batch":
                    status, out = outer.batch(body) if batch else (404, {"error": {"code": "NOT_FOUND", "message": "no route"}})
                else:
                    with outer.lock:
                        outer.requests.append((self.path, body))
                    status, out = answer(self.path, body)
                data = json.dumps(out).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the worker hung up mid-poll (its stop() cuts a claim)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def batch(self, body):
        with self.lock:
            self.batches.append(body["writes"])
            first = len(self.batches) == 1
        if first:
            time.sleep(self.slow_first_batch)
        results = []
        for w in body["writes"]:
            path = f"/api/worker/runs/{w['runId']}/{w['op']}"
            with self.lock:
                self.requests.append((path, w["body"]))
            status, out = self.answer(path, w["body"])
            results.append({"status": status, "body": out})
        return 200, {"results": results}

    def paths(self):
        with self.lock:
            return [p for p, _ in self.requests]

    def bodies(self, suffix):
        with self.lock:
            return [b for p, b in self.requests if p.endswith(suffix)]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
