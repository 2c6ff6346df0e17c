"""``python3 -m wmill._wac_worker``: seed 000's Python ``@workflow`` files on the worker protocol.

Started by ``sluice dev`` (``SLUICE_PYTHON_HOST=protocol``) with ``SLUICE_URL`` (and
``SLUICE_TOKEN``), in the project folder. Sluice inspects and registers the files itself (names,
parameters, code versions by content hash); this process claims their runs over HTTP
(docs/PROTOCOL.md) like any worker of the protocol: workflows, their ``@task`` children and plain
scripts. The names to claim arrive on stdin, one JSON line ``{"workflows": [...]}`` per change;
stdin closing (Sluice is gone) stops the process. A claim's code is the version it is pinned to,
fetched once (``POST /api/worker/code``) and compiled once, ``__mod/`` modules included.

The event loop (this process's main thread) runs every claim's code; ``_wac_claim.Claim`` answers
the ``wmill`` calls from the claim's journal. The writes of all claims (checkpoints, children,
parks, finishes, logs) go to ``POST /api/worker/batch`` from one sender thread (``_wac_outbox``);
claims are long-polled by a thread of their own, heartbeats by another. A claim's log lines (what
its code prints) carry the time they were printed and are sent while it runs, within a second of
the first, the rest before its park or finish. A watchdog thread (``_wac_watchdog``) fails tasks
past their timeout while code blocks the loop, and stops that code.
"""
import asyncio
import concurrent.futures
import http.client
import inspect
import json
import os
import signal
import socket
import sys
import threading
import time
import traceback

from . import _host, _runtime
from ._wac_claim import Claim, Final
from ._wac_code import Code
from ._wac_logs import ClaimLogs, LogWrites
from ._wac_outbox import Outbox
from ._wac_watchdog import Watchdog, stop_thread
from .client import SluiceError, error_fields
from .worker._errors import SluiceAPIError
from .worker._execution import backoff_delay
from .worker._http import client_from_env, interrupt
from .worker._worker import park_chunks

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def error_info(err):
    """``{name, message, code?}`` of an exception, and its traceback (the user's frames only)."""
    info = error_fields(err)
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if not os.path.abspath(f.filename).startswith(_PACKAGE + os.sep)]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames)]
    text = "".join(lines + traceback.format_exception_only(type(err), err))
    return info, text


def refused_for_run(error):
    """The run's error when a write of its claim was refused for what the run itself sent (a value
    that is not JSON, over the size limit, a bad field): sending it again cannot succeed, so the
    run fails with this cause at once. None for the rest (a lost lease, storage or transport
    trouble, a bad token), which a later attempt may not meet."""
    if isinstance(error, (TypeError, ValueError)):
        return {"name": "TypeError", "message": f"a write of the run is not JSON ({error})", "code": "INVALID_PAYLOAD"}
    if isinstance(error, SluiceAPIError) and error.status in (400, 404, 413, 422) and error.code != "RUN_NOT_FOUND":
        return {"name": "SluiceError", "message": error.message or str(error), "code": error.code}
    return None


class WacWorker(LogWrites, _host.Host):
    """Claims the runs of the project's Python files and runs them on this event loop."""

    def __init__(self, loop, client, root, concurrency=100, lease=30.0, poll_wait=20.0):
        super().__init__(loop)
        self.client = client
        self.code = Code(client, root)
        self.outbox = Outbox(client)
        self.io = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="sluice-io")
        self.stdout = ClaimLogs("info", sys.stdout)
        self.stderr = ClaimLogs("error", sys.stderr)
        self.lease = lease
        self.poll_wait = poll_wait
        # Set by the supervisor (`sluice dev`), which releases this id's claims when the process exits.
        self.worker_id = os.environ.get("SLUICE_WORKER_ID") or f"python-wac:{socket.gethostname()}:{os.getpid()}"
        self.cond = threading.Condition()
        self.free = max(1, concurrency)
        self.workflows = []
        self.names_seen = 0  # changes of `workflows` so far (a poll with older names is cut short)
        self.stopping = False
        self.poll = None
        self.leases = {}  # run id -> token, for heartbeats (read by their thread)
        self.ending = set()  # run ids whose last lines are being sent before their park or finish
        self.watchdog = Watchdog(self)

    # -- claims ---------------------------------------------------------------------------

    def set_workflows(self, names):
        if sorted(names) != sorted(self.workflows):
            print(f"sluice python worker {os.getpid()}: claiming {len(names)} workflow(s) from {self.client.base_url}",
                  file=sys.__stderr__)
        with self.cond:
            changed = sorted(names) != sorted(self.workflows)
            self.workflows = list(names)
            if changed:
                self.names_seen += 1
            self.cond.notify_all()
        if changed and self.poll is not None:
            interrupt(self.poll)  # poll again with the new names

    def claim_loop(self):
        self.poll = self.client.dedicated()
        failures = 0
        while True:
            with self.cond:
                while not self.stopping and (self.free == 0 or not self.workflows):
                    self.cond.wait(0.5)
                if self.stopping:
                    break
                n = min(self.free, 500)
                self.free -= n
            seen = None
            try:
                # Connected before the names are read: a change of names from now on finds the
                # socket and cuts the poll (set_workflows), which then is not sent again as it
                # was (a stale connection's one retry) but asked again with the new names. Sent
                # again, a new workflow's runs waited for the old poll's end (up to 20 s).
                if self.poll.sock is None:
                    self.poll.connect()
                with self.cond:
                    names, seen = list(self.workflows), self.names_seen
                body = {"workerId": self.worker_id, "workflows": names, "limit": n,
                        "leaseMs": round(self.lease * 1000), "waitMs": round(self.poll_wait * 1000)}
                claims = self.client.post(
                    "/api/worker/claim", body, conn=self.poll,
                    retry_stale=lambda: not self.stopping and self.names_seen == seen)["claims"]
            except (OSError, http.client.HTTPException, SluiceAPIError) as err:
                self.give_back(n)
                self.poll.close()
                if self.stopping:
                    break
                if seen is not None and seen != self.names_seen:
                    continue  # cut on purpose: ask again at once, with the new names
                failures += 1
                if isinstance(err, OSError) and failures == 1:
                    continue  # a stale connection: ask again at once
                delay = backoff_delay(0.25, 10.0, failures)
                print(f"sluice python worker: claim failed ({err}); retrying in {round(delay * 1000)} ms", file=sys.__stderr__)
                time.sleep(delay)
                continue
            failures = 0
            self.give_back(n - len(claims))
            ready = []
            for c in claims:
                try:
                    self.code.fetch(c.get("version"))
                except (OSError, http.client.HTTPException, SluiceAPIError, SluiceError, ValueError) as err:
                    c["codeError"] = err
                ready.append(c)
            if ready:
                self.loop.call_soon_threadsafe(self.start_claims, ready)
        self.poll.close()

    def give_back(self, n):
        if n <= 0:
            return
        with self.cond:
            self.free += n
            self.cond.notify_all()

    def start_claims(self, claims):
        for c in claims:
            self.start_claim(c)

    def start_claim(self, c):
        try:
            if c.get("codeError") is not None:
                raise c["codeError"]
            ex = Claim(self, c, self.code)
        except Exception as err:  # noqa: BLE001 - a claim this worker cannot run fails clearly
            info, _ = error_info(err)
            self.leases[c["runId"]] = c["token"]
            self.give_back(1)
            self.outbox.submit("finish", c["runId"], {"token": c["token"], "outcome": "retry", "error": info},
                               lambda r, e: self.last_write_done(c["runId"], c["token"], "finish", e))
            return
        self.execs[ex.id] = ex
        self.leases[ex.id] = ex.token
        token = _runtime.current.set(ex)
        try:
            ex.task = self.loop.create_task(self.run_claim(ex))
        finally:
            _runtime.current.reset(token)
        deadline = c.get("deadline")
        if deadline is not None:
            self.loop.call_later(max(0.0, (deadline - ex.now_ms()) / 1000), self.expire, ex)
        self.mark(ex)

    async def run_claim(self, ex):
        try:
            header = self.code.header(ex.claim)
            payload = ex.claim.get("payload")
            if payload is None:
                args = {}
            elif isinstance(payload, (list, dict)):
                args = payload
            else:
                args = [payload]
            msg = {"file": header["file"], "fn": ex.claim.get("task"), "args": args}
            value = _host.encode_value(await self.invoke(ex, msg), _host.result_what(ex.id, ex.claim.get("task")))
        except asyncio.CancelledError:
            return
        except Final as f:
            return self.fail(ex, f.error, traceback_too=False)
        except BaseException as err:  # noqa: BLE001 - every error of user code is the run's error
            return self.fail(ex, err)
        self.finish(ex, {"outcome": "succeeded", "result": value})

    def load(self, msg):
        ex = _runtime.current.get()
        return self.code.module(ex.claim)

    def expire(self, ex, off_loop=False):
        """A task past its ``deadline`` fails (TASK_TIMEOUT); its function is cancelled, or stopped
        in its thread (a sync one) or on the loop (``_wac_watchdog``: code that blocks the loop),
        and what it returns later is dropped. ``off_loop``: called by the watchdog, while the loop
        is blocked. True if this call ended the claim."""
        with self.end_lock:
            if ex.ended or getattr(ex, "timed_out", False):
                return False
            ex.timed_out = True
        seconds = (ex.claim.get("timeoutMs") or 0) / 1000
        err = SluiceError(
            f"the task ran longer than its timeout of {seconds:g} s and was stopped: raise the timeout or make the task faster",
            "TASK_TIMEOUT")
        ex.log("error", f"timed out: {err}")
        self.fail(ex, err, traceback_too=False, name="TaskTimeout", off_loop=off_loop)
        stop_thread(ex)
        return True

    # -- the end of a claim ---------------------------------------------------------------

    def close_claim(self, ex, off_loop=False):
        """Ends the claim here (once): no more calls are answered; its code is cancelled. From
        another thread (``off_loop``) what only the loop may touch is left to the loop."""
        with self.end_lock:
            if ex.ended:
                return False
            ex.ended = True
        if off_loop:
            self.loop.call_soon_threadsafe(self.forget, ex)
        else:
            self.forget(ex)
        self.stdout.flush_claim(ex)
        self.stderr.flush_claim(ex)
        # Its code is done: the slot takes the next claim while the last writes are sent (the
        # lease is still heartbeated until they are answered).
        self.give_back(1)
        return True

    def forget(self, ex):
        """The loop's part of ending a claim: it is no longer run or answered."""
        self.execs.pop(ex.id, None)
        self.dirty.discard(ex)
        if ex.task is not None and not ex.task.done() and ex.task is not asyncio.current_task(self.loop):
            ex.task.cancel()

    def fail(self, ex, err, traceback_too=True, name=None, off_loop=False):
        info, text = error_info(err)
        if name:
            info["name"] = name
        if traceback_too and not ex.ended:
            ex.log("error", text.rstrip(), force=True)
        self.finish(ex, {"outcome": "failed", "error": info}, off_loop=off_loop)

    def finish(self, ex, body, off_loop=False):
        """Ends the claim with ``body`` (its outcome), written once its last lines are (``end_logs``)."""
        if not self.close_claim(ex, off_loop):
            return
        body["token"] = ex.token
        self.end_logs(ex, lambda: self.outbox.submit(
            "finish", ex.id, body,
            lambda r, e: self.last_write_done(ex.id, ex.token, "finish", e, failing=body["outcome"] == "failed")))

    def park(self, ex):
        """Parks the claim with every deferred call. A park that starts runs of other workflows
        (``task_script``/``task_flow``) keeps the claim until it is answered: one the server
        refuses because such a workflow is unknown fails those calls in the workflow (a
        ``TaskError`` it may catch) and the code runs on (``refused_children``)."""
        named = any("workflow" in c for c in ex.deferred["children"])
        if named:
            if ex.ended or ex.parking:
                return
            ex.parking = True
        elif not self.close_claim(ex):
            return
        if named:  # as close_claim does: a line printed without its newline yet is sent too
            self.stdout.flush_claim(ex)
            self.stderr.flush_claim(ex)
        body, children = ex.park_body()
        chunks = park_chunks(children) if children else [[]]

        def refused(what, error):
            if not named:
                return self.last_write_done(ex.id, ex.token, what, error)
            self.loop.call_soon_threadsafe(self.park_refused, ex, what, error)

        def written(chunk):
            # Children written ahead of the park are the run's now: pending in its journal.
            keys = {c["key"] for c in chunk}
            ex.deferred["children"] = [c for c in ex.deferred["children"] if c["key"] not in keys]
            ex.deferred["await"] = True

        def send(i):
            if i < len(chunks) - 1:
                def after_children(r, e):
                    if e is not None:
                        return refused("write children", e)
                    if named:
                        self.loop.call_soon_threadsafe(written, chunks[i])
                    send(i + 1)

                self.outbox.submit("children", ex.id, {"token": ex.token, "children": chunks[i]}, after_children)
                return
            if chunks[-1]:
                body["children"] = chunks[-1]

            def after_park(r, e):
                if e is not None:
                    return refused("park", e)
                if named:
                    self.loop.call_soon_threadsafe(self.close_claim, ex)
                self.release_id(ex.id)

            self.outbox.submit("park", ex.id, body, after_park)

        self.end_logs(ex, lambda: send(0))  # its last lines first

    def park_refused(self, ex, what, error):
        """A park that kept its claim was refused (on the loop). An unknown workflow fails the calls
        that asked for it, in the workflow; anything else ends the claim as a refused last write."""
        ex.parking = False
        if ex.ended:
            return self.release_id(ex.id)
        if not (isinstance(error, SluiceAPIError) and error.code == "UNKNOWN_WORKFLOW" and ex.refused_children(error)):
            self.close_claim(ex)
            return self.last_write_done(ex.id, ex.token, what, error)
        self.mark(ex)  # the code runs on with the TaskError; what it defers still parks

    def last_write_done(self, run_id, token, what, error, failing=False):
        """The claim's last write (finish or park) is answered (on the sender thread). One refused
        for what the run sent fails the run with that cause at once (unless it was that failure)."""
        info = refused_for_run(error) if error is not None and not failing else None
        if info is None:
            return self.release_id(run_id, error, what)
        info["message"] = f"could not {what}: {info['message']}"
        self.outbox.submit("finish", run_id, {"token": token, "outcome": "failed", "error": info},
                           lambda r, e: self.release_id(run_id, e, "finish"))

    def release_id(self, run_id, error=None, what=None):
        """The claim's last write is answered (on the sender thread): its lease is no longer heartbeated."""
        if error is not None and not (isinstance(error, SluiceAPIError) and error.code == "LEASE_LOST"):
            print(f"sluice python worker: run {run_id}: could not {what} ({error}); it is retried when its lease expires",
                  file=sys.__stderr__)
        self.leases.pop(run_id, None)

    def lose(self, run_id):
        """The lease is gone (heartbeat, LEASE_LOST): stop the claim's work, write nothing more."""
        ex = self.execs.get(run_id)
        if ex is not None:
            ex.lose()
        if ex is not None and self.close_claim(ex):
            self.leases.pop(run_id, None)

    # -- the turns of the event loop ------------------------------------------------------

    def turn(self, ex):
        if ex.ended:
            return
        calls, ex.calls = ex.calls, []
        try:
            for call in calls:
                ex.perform(call)
        except Final as f:
            self.fail(ex, f.error, traceback_too=False)
            return
        self.settle(ex)

    def settle(self, ex):
        """Parks the claim once its code waits only for deferred calls (nothing in flight)."""
        if ex.ended or ex.parking or ex.inflight or not ex.has_deferred():
            return
        if ex.fresh:  # answers given in this turn: let the code run on them first
            ex.fresh = False
            self.mark(ex)
            return
        self.park(ex)

    def run_step(self, ex, cid, key, pos, attempt):
        body = ex.bodies.get(cid)
        ex.inflight += 1
        started = ex.now_ms()

        async def go():
            try:
                value = body()
                if inspect.isawaitable(value):
                    value = await value
                _host.encode_value(value, _host.step_what(key))
            except asyncio.CancelledError:
                return
            except BaseException as err:  # noqa: BLE001 - the step's error is the caller's
                ex.inflight -= 1
                ex.answer_error(cid, err)
                self.mark(ex)
                return
            step = {"key": key, "kind": "step", "status": "done", "position": pos, "value": value,
                    "attempts": attempt, "startedAt": started}
            self.checkpoint(ex, step, cid, value, counted=True)

        token = _runtime.current.set(ex)
        try:
            self.loop.create_task(go())
        finally:
            _runtime.current.reset(token)

    def checkpoint(self, ex, step, cid, value, counted=False):
        """Writes ``step`` and answers the call ``cid`` with ``value`` once it is committed."""
        if not counted:
            ex.inflight += 1

        def after(error):
            ex.inflight -= 1
            if ex.ended:
                return
            if error is not None:
                refused = refused_for_run(error)
                if refused is None:
                    return self.write_failed(ex, error)
                # Refused for its value (over the size limit, …): the call fails, as a step
                # whose value is not JSON does; the workflow may catch it.
                ex.answer_error(cid, SluiceError(f"could not save {step['kind']} {json.dumps(step['key'])}: "
                                                 f"{refused['message']}", refused["code"]))
                self.mark(ex)
                return
            ex.journal[step["key"]] = step
            ex.answer(cid, value)
            self.mark(ex)

        self.outbox.submit("steps", ex.id, {"token": ex.token, "steps": [step]},
                           lambda r, e: self.loop.call_soon_threadsafe(after, e))

    def request(self, ex, op, body, cid):
        """A call that writes nothing (``resume-urls``), answered with the server's reply."""
        ex.inflight += 1

        def call():
            return self.client.post(f"/api/worker/runs/{ex.id}/{op}", body)

        def after(fut):
            ex.inflight -= 1
            if ex.ended:
                return
            err = fut.exception()
            if err is not None:
                if isinstance(err, SluiceAPIError) and err.code == "LEASE_LOST":
                    return self.lose(ex.id)
                ex.answer_error(cid, SluiceError(str(err), getattr(err, "code", "SLUICE_ERROR")))
            else:
                ex.answer(cid, fut.result())
            self.mark(ex)

        fut = self.io.submit(call)
        fut.add_done_callback(lambda f: self.loop.call_soon_threadsafe(after, f))

    def write_failed(self, ex, error):
        if isinstance(error, SluiceAPIError) and error.code == "LEASE_LOST":
            return self.lose(ex.id)
        print(f"sluice python worker: run {ex.id}: a checkpoint failed ({error}); it is retried when its lease expires",
              file=sys.__stderr__)
        self.lose(ex.id)

    def asset_call(self, ex, op, args):
        """An asset helper of a claim (``wmill.write_s3_file``, …): blocks its caller until answered."""
        try:
            out = self.client.post(f"/api/worker/runs/{ex.id}/asset", {"token": ex.token, "op": op, "args": args})
        except SluiceAPIError as err:
            raise SluiceError(str(err), err.code) from None
        if out.get("ok"):
            return out.get("value")
        err = out.get("error") or {}
        raise SluiceError(err.get("message", "asset call failed"), err.get("code", "ASSET_CALL_FAILED"))

    # -- heartbeats, control, stop ---------------------------------------------------------

    def heartbeats(self):
        while True:
            time.sleep(self.lease / 3)
            leases = [{"runId": r, "token": t} for r, t in list(self.leases.items())]
            if not leases:
                continue
            try:
                out = self.client.post("/api/worker/heartbeat", {"leases": leases, "leaseMs": round(self.lease * 1000)})
            except (OSError, http.client.HTTPException, SluiceAPIError) as err:
                print(f"sluice python worker: heartbeat failed ({err})", file=sys.__stderr__)
                continue
            for run_id in out.get("lost") or []:
                self.loop.call_soon_threadsafe(self.lose, run_id)

    def control(self, stream):
        """Reads Sluice's messages on stdin; its end (Sluice is gone or stopping) stops this worker."""
        for line in stream:
            line = line.strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                print(f"sluice python worker: unreadable control line {line[:200]!r}", file=sys.__stderr__)
                continue
            if isinstance(msg.get("workflows"), list):
                self.set_workflows([str(n) for n in msg["workflows"]])
        self.loop.call_soon_threadsafe(self.stop)

    def stop(self, drain_s=None):
        """Stops claiming; running claims get ``drain_s`` to end (default ``SLUICE_WORKER_DRAIN_MS``,
        the drain of the Sluice command that started this process, else 5 s), then the process exits."""
        if drain_s is None:
            drain_s = int(os.environ.get("SLUICE_WORKER_DRAIN_MS") or 5000) / 1000
        if self.stopping:
            return
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
        if self.poll is not None:
            interrupt(self.poll)
        until = time.monotonic() + drain_s

        def check():
            if (self.execs or self.ending) and time.monotonic() < until:
                self.loop.call_later(0.05, check)
                return
            self.outbox.close(timeout=2.0)
            self.loop.stop()

        check()


def main():
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    # Sync tasks and scripts run in threads: allow many at once (the default is cores + 4).
    loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(max_workers=64, thread_name_prefix="sluice-task"))
    concurrency = int(os.environ.get("SLUICE_WORKER_CONCURRENCY") or 100)
    worker = WacWorker(loop, client_from_env(), os.getcwd(), concurrency=concurrency)
    sys.stdout = worker.stdout
    sys.stderr = worker.stderr
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, worker.stop)
    worker.watchdog.start()
    control = sys.__stdin__
    threading.Thread(target=worker.control, args=(control,), name="sluice-control", daemon=True).start()
    threading.Thread(target=worker.claim_loop, name="sluice-claims", daemon=True).start()
    threading.Thread(target=worker.heartbeats, name="sluice-heartbeats", daemon=True).start()
    loop.run_forever()
    sys.__stdout__.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
