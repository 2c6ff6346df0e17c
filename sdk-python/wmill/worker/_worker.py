"""The worker: registers the workflows, claims their runs (long-poll), runs each claim on a
thread of its pool, sends the claims' writes together through the outbox, heartbeats the leases,
and drains on SIGTERM (docs/PROTOCOL.md)."""
import http.client
import json
import math
import os
import queue
import signal
import socket
import sys
import threading
import time
import traceback

from ..client import error_fields
from ._context import WorkflowContext
from ._errors import BailError, FailError, LeaseLost, Parked, SluiceAPIError, TaskTimeout
from ._execution import Execution, backoff_delay
from ._http import client_from_env, interrupt
from ._outbox import Outbox
from ._registry import registered


PARK_BYTES = 512 * 1024


def park_chunks(children, budget=PARK_BYTES):
    """Splits a park's children into chunks of at most ``budget`` bytes of JSON each (at least
    one child per chunk; always at least one chunk), so every request stays under the server's
    1 MiB body limit: all but the last are sent as ``children`` writes, the last with the park."""
    chunks, current, size = [], [], 0
    for c in children:
        n = len(json.dumps(c, separators=(",", ":"))) + 1
        if current and size + n > budget:
            chunks.append(current)
            current, size = [], 0
        current.append(c)
        size += n
    chunks.append(current)
    return chunks


class Worker:
    """Claims and runs the registered workflows' runs.

    ``concurrency``: runs at once, one thread each (default 100, or SLUICE_WORKER_CONCURRENCY;
    the threads are kept and reused for later claims);
    ``lease``: seconds a claim is held without a heartbeat (default 30; heartbeats every third);
    ``poll_wait``: seconds one claim request waits on the server (default 20);
    ``inline_sleep``: sleeps and step-retry delays up to this many seconds wait in the worker,
    longer ones park the run (default 30);
    ``park_bytes``: a park whose children encode to more than this many bytes is sent in parts
    (``children`` writes, then the park; default 512 KiB, under the server's 1 MiB body limit);
    ``worker_id``: the id its claims are made under (default SLUICE_WORKER_ID, which Sluice sets
    for a ``sluice.json`` worker command to end a dead process's claims at once; else python:host:pid);
    ``exit_when_idle``: seconds without a run (no claim came, none running) after which ``run``
    returns, so the program exits (scale to zero; its long-polls are cut to what is left of the
    window). Default SLUICE_EXIT_WHEN_IDLE_MS (milliseconds), which Sluice sets for a
    ``sluice.json`` worker command it runs as a scale-to-zero lane; 0 or less: never.
    """

    def __init__(self, client=None, *, concurrency=None, lease=30.0, poll_wait=20.0, inline_sleep=30.0, worker_id=None,
                 park_bytes=PARK_BYTES, exit_when_idle=None):
        if exit_when_idle is None:
            exit_when_idle = exit_when_idle_from_env()
        self.exit_when_idle = exit_when_idle if exit_when_idle and exit_when_idle > 0 else None
        self.client = client or client_from_env()
        if concurrency is None:
            concurrency = int(os.environ.get("SLUICE_WORKER_CONCURRENCY") or 100)
        self.concurrency = max(1, concurrency)
        self.lease = lease
        self.poll_wait = poll_wait
        self.inline_sleep = inline_sleep
        self.park_bytes = park_bytes
        self.worker_id = (worker_id or os.environ.get("SLUICE_WORKER_ID", "").strip()
                          or f"python:{socket.gethostname()}:{os.getpid()}")
        self.defs = {d.name: d for d in registered()}
        self.outbox = Outbox(self.client)
        self._active = {}
        self._jobs = queue.SimpleQueue()
        self._threads = 0
        self._idle = 0
        self._lock = threading.Lock()
        self._free = threading.Semaphore(self.concurrency)
        self._stop = threading.Event()
        self._drained = threading.Event()
        self._poll = None
        self._last_busy = time.monotonic()

    def stop(self):
        """Stops claiming (a long-poll in flight is cut: it claims nothing); running handlers finish."""
        self._stop.set()
        poll = self._poll
        if poll is not None:
            interrupt(poll)

    def run(self):
        """Registers the workflows, then claims and runs until ``stop``; then drains and returns."""
        if not self.defs:
            raise RuntimeError("sluice: no workflows registered: call register_workflow before run_worker")
        versions = {d.version for d in self.defs.values()}
        if len(versions) > 1:
            raise ValueError(f"sluice: a worker runs one code version, but its workflows name {sorted(map(str, versions))}: "
                             "register every workflow with the same version= (or none)")
        version = versions.pop()
        self.client.post("/api/worker/workflows", {"workflows": [d.to_json() for d in self.defs.values()]})
        beats = threading.Thread(target=self._heartbeats, name="sluice-heartbeats", daemon=True)
        beats.start()
        failures = 0
        self._poll = self.client.dedicated()
        with self._lock:
            self._last_busy = time.monotonic()
        try:
            while not self._stop.is_set():
                wait, idle = self._poll_wait()
                if idle:
                    print(f"sluice worker: no run for {self.exit_when_idle:g} s (its idle window): exiting", file=sys.stderr)
                    break
                free = self._take_slots()
                if free == 0:
                    break
                body = {"workerId": self.worker_id, "workflows": list(self.defs), "limit": free,
                        "leaseMs": round(self.lease * 1000), "waitMs": max(1, math.ceil(wait * 1000))}
                if version:
                    body["version"] = version  # only runs unpinned or pinned to this code version
                try:
                    claims = self.client.post(
                        "/api/worker/claim", body, conn=self._poll, retry_stale=lambda: not self._stop.is_set()
                    )["claims"]
                except (OSError, http.client.HTTPException, SluiceAPIError) as err:
                    self._give_back(free)
                    if self._stop.is_set():
                        break
                    if isinstance(err, SluiceAPIError) and err.status in (401, 403):
                        raise
                    failures += 1
                    delay = backoff_delay(0.25, 10.0, failures)
                    print(f"sluice worker: claim failed ({err}); retrying in {round(delay * 1000)} ms", file=sys.stderr)
                    self._stop.wait(delay)
                    continue
                failures = 0
                self._give_back(free - len(claims))
                for c in claims:
                    self._start(c)
        finally:
            self._poll.close()
            self._poll = None
        self._drain()
        self._drained.set()
        with self._lock:
            threads = self._threads
        for _ in range(threads):
            self._jobs.put(None)  # the pool's threads end
        beats.join(timeout=self.lease)
        self.client.close()

    def _poll_wait(self):
        """How long the next claim may wait on the server (seconds), and whether the worker has been
        idle for its whole window (then it stops claiming): ``poll_wait``, cut to what is left of the
        window (the whole window while a run executes, so that a run ending during the poll is
        followed by at most one more window)."""
        window = self.exit_when_idle
        if window is None:
            return self.poll_wait, False
        with self._lock:
            left = window if self._active else window - (time.monotonic() - self._last_busy)
        if left <= 0:
            return 0.0, True
        return min(self.poll_wait, left), False

    def _take_slots(self):
        """Waits for one free slot, then takes every free one; 0 once stopped."""
        while not self._free.acquire(timeout=0.25):
            if self._stop.is_set():
                return 0
        if self._stop.is_set():
            self._free.release()
            return 0
        n = 1
        while n < self.concurrency and self._free.acquire(blocking=False):
            n += 1
        return n

    def _give_back(self, n):
        for _ in range(n):
            self._free.release()

    def _start(self, claim):
        """Hands the claim to an idle thread of the pool, or to a new one (at most ``concurrency``)."""
        e = Execution(self.client, claim, self.inline_sleep, self.outbox)
        with self._lock:
            self._active[e.run_id] = e
            self._last_busy = time.monotonic()
            spawn = self._idle == 0
            if spawn:
                self._threads += 1
            else:
                self._idle -= 1
        self._jobs.put(e)
        if spawn:
            threading.Thread(target=self._serve, name=f"sluice-run-{self._threads}", daemon=True).start()

    def _serve(self):
        """A thread of the pool: runs claims until told to end (None)."""
        while True:
            e = self._jobs.get()
            if e is None:
                return
            self._execute(e)

    def _drain(self):
        while True:
            with self._lock:
                if not self._active:
                    return
            time.sleep(0.05)

    def _execute(self, e):
        try:
            self._run_claim(e)
        finally:
            with self._lock:
                self._active.pop(e.run_id, None)
                self._last_busy = time.monotonic()
                self._idle += 1  # idle before its slot is free: threads never outnumber slots
            self._free.release()

    def _handler(self, e):
        """The function a claim runs: its workflow's handler, or one of its tasks (``task``)."""
        name, task = e.claim["workflow"], e.claim.get("task")
        d = self.defs.get(name)
        if d is None:
            raise e.make_permanent(LookupError(f"sluice: this worker does not serve {name!r}"))
        if task is None:
            return d.handler
        fn = d.tasks.get(task)
        if fn is None:
            raise e.make_permanent(LookupError(
                f"sluice: workflow {name!r} has no task {task!r} in this worker (register it with "
                f"register_workflow({name!r}, …, tasks=[{task}]))"))

        def run_task(ctx, payload):
            try:
                return fn(ctx, payload)
            except Exception as err:  # a task's error is final, as in workflows as code
                raise e.make_permanent(err)
        return run_task

    def _run_claim(self, e):
        ctx = WorkflowContext(e)
        result, error = None, None
        timer = self._arm_deadline(e)
        try:
            result = self._handler(e)(ctx, e.claim.get("payload"))
        except (Parked, LeaseLost, BailError, FailError):
            pass
        except BaseException as err:  # the handler's error decides the outcome below
            error = err
            if not isinstance(err, Exception):
                e.make_permanent(err)
            e.log("error", "".join(traceback.format_exception(type(err), err, err.__traceback__)).rstrip())
        if timer is not None:
            timer.cancel()
        if not e.end():
            return  # the deadline ended the claim first
        e.end_logs()
        if e.is_lost():
            print(f"sluice worker: run {e.run_id}: lost its lease; another claim owns it now", file=sys.stderr)
            return
        if e.park is not None and e.outcome is None:
            body = {"token": e.token, "wakeAfterMs": e.park["wakeAfterMs"]}
            if e.park["steps"]:
                body["steps"] = e.park["steps"]
            if e.park["awaitChildren"]:
                chunks = park_chunks(e.park["children"], self.park_bytes)
                for chunk in chunks[:-1]:  # a large fan-out: children written first, under the fence
                    if not self._write(e, "children", {"token": e.token, "children": chunk}):
                        return
                body["children"] = chunks[-1]
                body["awaitChildren"] = True
            self._write(e, "park", body)
            return
        if isinstance(e.outcome, BailError):
            body = {"outcome": "cancelled", "reason": e.outcome.reason}
        elif isinstance(e.outcome, FailError):
            inner = e.outcome.error
            body = {"outcome": "failed", "error": error_fields(inner if isinstance(inner, BaseException) else Exception(str(inner)))}
        elif error is None:
            body = {"outcome": "succeeded", "result": result}
        elif error is e.permanent:
            body = {"outcome": "failed", "error": error_fields(error)}
        else:
            body = {"outcome": "retry", "error": error_fields(error)}
        body["token"] = e.token
        try:
            self._write(e, "finish", body)
        except TypeError as err:  # a result that is not JSON
            self._write(e, "finish", {"token": e.token, "outcome": "failed", "error": error_fields(err)})

    def _arm_deadline(self, e):
        """A task with a ``timeout`` fails at its ``deadline`` (server clock, from its first start),
        whether or not its function returns: the claim ends there, later writes are dropped."""
        deadline = e.claim.get("deadline")
        if deadline is None:
            return None

        def expire():
            if not e.end():
                return
            err = TaskTimeout(e.claim.get("timeoutMs") or 0)
            e.log("error", f"timed out: {err}")
            e.end_logs()
            e.mark_lost()
            self._write(e, "finish", {"token": e.token, "outcome": "failed", "error": error_fields(err)})

        timer = threading.Timer(max(0.0, (deadline - e.now_ms()) / 1000), expire)
        timer.daemon = True
        timer.start()
        return timer

    def _write(self, e, op, body):
        """A fenced write of the claim; False (reported on stderr) when it did not land."""
        try:
            e.write(op, body)
            return True
        except LeaseLost:
            print(f"sluice worker: run {e.run_id}: lost its lease; another claim owns it now", file=sys.stderr)
        except (OSError, http.client.HTTPException, SluiceAPIError) as err:
            print(f"sluice worker: run {e.run_id}: could not {op} ({err}); it is retried when its lease expires", file=sys.stderr)
        return False

    def _heartbeats(self):
        while not self._drained.wait(self.lease / 3):
            with self._lock:
                leases = [{"runId": e.run_id, "token": e.token} for e in self._active.values()]
            if not leases:
                continue
            try:
                out = self.client.post("/api/worker/heartbeat", {"leases": leases, "leaseMs": round(self.lease * 1000)})
            except (OSError, http.client.HTTPException, SluiceAPIError) as err:
                print(f"sluice worker: heartbeat failed ({err})", file=sys.stderr)
                continue
            with self._lock:
                for run_id in out.get("lost") or []:
                    e = self._active.get(run_id)
                    if e is not None:
                        e.mark_lost()


def exit_when_idle_from_env():
    """SLUICE_EXIT_WHEN_IDLE_MS in seconds, or None when unset; a bad value raises ValueError naming it."""
    raw = os.environ.get("SLUICE_EXIT_WHEN_IDLE_MS", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) <= 0:
        raise ValueError("sluice: SLUICE_EXIT_WHEN_IDLE_MS must be a positive whole number of milliseconds "
                         f"(the idle window after which the worker exits), got {raw!r}")
    return int(raw) / 1000


def run_worker(**options):
    """Serves the registered workflows on the server named by SLUICE_URL (and SLUICE_TOKEN) until
    SIGTERM or Ctrl-C; then stops claiming, lets running handlers finish (heartbeating their
    leases) and returns. Options: see Worker."""
    worker = Worker(**options)
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, lambda *_: worker.stop())
    try:
        worker.run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return worker
