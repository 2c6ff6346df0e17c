"""The outbox: the fenced writes of all the worker's claims (checkpoints, children, parks,
finishes, logs) sent together to ``POST /api/worker/batch`` (docs/PROTOCOL.md), as the Go SDK's
outbox does.

One batch is in flight at a time. A write made while the outbox is idle is sent at once, by the
writing thread itself, as a batch of one; writes made while a batch is in flight wait, and when
it is answered the first of them is woken to send all of them (up to ``MAX_WRITES`` writes and
``MAX_BYTES`` of bodies) as the next batch. So 100 claims finishing at once cost a few round
trips and server transactions instead of 100, and no thread sends more than one batch. Nothing
is acknowledged early: each write returns (or raises) its own answer from the batch, after the
server committed it, so a step still returns to the workflow only once its checkpoint is durable.
A refused write (409 ``LEASE_LOST``, 400 …) raises only for its own claim. A write whose body is
over half of ``MAX_BYTES`` (a park's chunk of children) goes alone to its own route, and so does
every write once a server without the batch route answered 404.
"""
import http.client
import threading

from ._errors import SluiceAPIError
from ._http import api_error, encode

#: The most writes one batch carries (the server takes up to 1000).
MAX_WRITES = 500
#: Bodies per batch, well under the server's 1 MiB body limit.
MAX_BYTES = 512 * 1024


class _Write:
    __slots__ = ("op", "run_id", "raw", "done", "result", "error", "batch", "alone")

    def __init__(self, op, run_id, raw):
        self.op, self.run_id, self.raw = op, run_id, raw
        self.done = threading.Event()
        self.result = self.error = self.batch = None
        self.alone = False

    def entry(self):
        return b'{"op":"%s","runId":%s,"body":%s}' % (self.op.encode(), encode(self.run_id), self.raw)


class Outbox:
    """Sends fenced writes of many claims in shared batch requests over ``client``."""

    def __init__(self, client):
        self.client = client
        self.batches = 0  # batch requests sent (for tests and curiosity)
        self._lock = threading.Lock()
        self._busy = False
        self._pending = []
        self._no_batch = False

    def send(self, op, run_id, body):
        """Writes ``body`` as run ``run_id``'s ``op`` (as ``POST /api/worker/runs/{id}/{op}``
        would) and returns the answer; raises SluiceAPIError for a refused write, OSError or
        http.client.HTTPException when the batch did not get through, TypeError for a body
        that is not JSON."""
        w = _Write(op, run_id, encode(body))
        if len(w.raw) > MAX_BYTES // 2 or self._no_batch:
            return self._single(w)
        with self._lock:
            lead = not self._busy
            if lead:
                self._busy = True
            else:
                self._pending.append(w)
        if lead:
            self._flush([w])
        else:
            w.done.wait()
            if w.batch is not None:  # woken to send the next batch, this write among them
                self._flush(w.batch)
        if w.alone:
            return self._single(w)
        if w.error is not None:
            raise w.error
        return w.result

    def _single(self, w):
        return self.client.post_raw(f"/api/worker/runs/{w.run_id}/{w.op}", w.raw)

    def _flush(self, batch):
        """Sends one batch, hands the next one to its first writer, then answers this one's writes."""
        try:
            self._exchange(batch)
        except BaseException as err:  # no write of the batch may return as if it had landed
            for w in batch:
                w.error = w.error or OSError(f"sluice: a batch of writes was not sent ({err!r})")
            raise
        finally:
            with self._lock:
                if self._no_batch:  # the writes queued meanwhile go to their own routes too
                    for w in self._pending:
                        w.alone = True
                    batch, self._pending = batch + self._pending, []
                nxt = self._take()
                if nxt is None:
                    self._busy = False
            if nxt is not None:
                nxt[0].batch = nxt
                nxt[0].done.set()
            for w in batch:
                w.done.set()

    def _take(self):
        """The next batch of pending writes (under the lock), or None."""
        if not self._pending:
            return None
        n, size = 0, 0
        while n < len(self._pending) and n < MAX_WRITES and (n == 0 or size + len(self._pending[n].raw) <= MAX_BYTES // 2):
            size += len(self._pending[n].raw)
            n += 1
        out, self._pending = self._pending[:n], self._pending[n:]
        return out

    def _exchange(self, batch):
        data = b'{"writes":[' + b",".join(w.entry() for w in batch) + b"]}"
        self.batches += 1
        try:
            out = self.client.post_raw("/api/worker/batch", data)
            results = out["results"]
            if len(results) != len(batch):
                raise SluiceAPIError(502, "BAD_BATCH_ANSWER",
                                     f"the server answered {len(results)} results for a batch of {len(batch)} writes")
        except SluiceAPIError as err:
            if err.status == 404 and err.code == "NOT_FOUND":
                self._no_batch = True  # a server from before the batch route: one request per write
                for w in batch:
                    w.alone = True
                return
            for w in batch:
                w.error = err
            return
        except (OSError, http.client.HTTPException, ValueError, KeyError, TypeError) as err:
            for w in batch:
                w.error = err if isinstance(err, (OSError, http.client.HTTPException)) else OSError(
                    f"sluice: unreadable answer to a batch of writes ({err})")
            return
        for w, r in zip(batch, results):
            status = r.get("status", 0)
            if 200 <= status <= 299:
                w.result = r.get("body")
            else:
                w.error = api_error(status, r.get("body"))
