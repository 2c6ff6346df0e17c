"""The writes of every claim of the ``@workflow`` host, sent together to ``POST /api/worker/batch``.

Like ``wmill.worker``'s outbox (one batch in flight, the writes made meanwhile in the next one,
each answered on its own after its commit), but nothing waits in a thread: a write is queued
with a callback, and one sender thread sends the queue as batches (up to ``MAX_WRITES`` writes,
``MAX_BYTES`` of bodies; a larger body alone to its own route) and calls each write's callback
with ``(answer, None)`` or ``(None, error)`` in order. Two writes of one claim keep their order.
Transport failures are retried while the lease could still hold; then the writes fail.
"""
import http.client
import sys
import threading
import time

from .worker._errors import SluiceAPIError
from .worker._execution import backoff_delay
from .worker._http import api_error, encode
from .worker._outbox import MAX_BYTES, MAX_WRITES

#: How long a batch that does not get through is retried (a claim's lease is 30 s).
RETRY_S = 20.0


class Outbox:
    def __init__(self, client):
        self.client = client
        self.batches = 0
        self._cond = threading.Condition()
        self._pending = []
        self._busy = False
        self._closed = False
        threading.Thread(target=self._run, name="sluice-outbox", daemon=True).start()

    def submit(self, op, run_id, body, done):
        """Queues ``body`` as run ``run_id``'s ``op`` write; ``done(answer, error)`` is called on
        the sender thread once it is answered (a TypeError for a body that is not JSON, at once)."""
        try:
            raw = encode(body)
        except (TypeError, ValueError) as err:
            done(None, err)
            return
        with self._cond:
            self._pending.append((op, run_id, raw, done))
            self._cond.notify()

    def close(self, timeout):
        """Waits up to ``timeout`` seconds for the queued writes to be sent."""
        until = time.monotonic() + timeout
        with self._cond:
            while (self._pending or self._busy) and time.monotonic() < until:
                self._cond.wait(0.05)
            self._closed = True

    def _take(self):
        n, size = 0, 0
        while n < len(self._pending) and n < MAX_WRITES:
            s = len(self._pending[n][2])
            if n > 0 and size + s > MAX_BYTES // 2:
                break
            size += s
            n += 1
        out, self._pending = self._pending[:n], self._pending[n:]
        return out

    def _run(self):
        while True:
            with self._cond:
                while not self._pending:
                    self._busy = False
                    self._cond.notify_all()
                    self._cond.wait()
                self._busy = True
                batch = self._take()
            if len(batch) == 1 and len(batch[0][2]) > MAX_BYTES // 2:
                op, run_id, raw, done = batch[0]
                answers = [self._single(op, run_id, raw)]
            else:
                answers = self._exchange(batch)
            for (_op, _run_id, _raw, done), (result, error) in zip(batch, answers):
                try:
                    done(result, error)
                except Exception as err:  # noqa: BLE001 - one callback's bug must not stop the sender
                    print(f"sluice python worker: a write's callback failed: {err!r}", file=sys.__stderr__)

    def _single(self, op, run_id, raw):
        try:
            return self._retrying(lambda: self.client.post_raw(f"/api/worker/runs/{run_id}/{op}", raw)), None
        except (SluiceAPIError, OSError, http.client.HTTPException) as err:
            return None, err

    def _exchange(self, batch):
        data = b'{"writes":[' + b",".join(
            b'{"op":"%s","runId":%s,"body":%s}' % (op.encode(), encode(run_id), raw) for op, run_id, raw, _ in batch
        ) + b"]}"
        self.batches += 1
        try:
            results = self._retrying(lambda: self.client.post_raw("/api/worker/batch", data))["results"]
        except (SluiceAPIError, OSError, http.client.HTTPException, KeyError, TypeError) as err:
            return [(None, err)] * len(batch)
        out = []
        for r in results:
            status = r.get("status", 0)
            out.append((r.get("body"), None) if 200 <= status <= 299 else (None, api_error(status, r.get("body"))))
        return out

    def _retrying(self, send):
        until = time.monotonic() + RETRY_S
        attempt = 0
        while True:
            try:
                return send()
            except SluiceAPIError as err:
                if err.status != 503 or time.monotonic() > until:
                    raise
            except (OSError, http.client.HTTPException):
                if time.monotonic() > until or self._closed:
                    raise
            attempt += 1
            time.sleep(backoff_delay(0.1, 2.0, attempt))
