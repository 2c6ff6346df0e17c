"""The Python side of Sluice: one process per Sluice worker, started by it.

Sluice's worker claims Python runs like any other and drives them here over three pipes (fd 3:
messages from Sluice, fd 4: messages to it, fd 5: the answers to asset calls), one JSON object
per line:

    -> {"t": "start", "id", "seq", "kind": "workflow"|"task"|"script", "file", "fn"?, "args",
        "traceparent"?, "tracestate"?, "timeLeftMs"?}     timeLeftMs: until a task's timeout passes
    -> {"t": "resolve", "id", "seq", "results": [{"cid", "ok", "value"?, "error"?}]}
    -> {"t": "step_body", "id", "seq", "cid"}
    -> {"t": "drop", "id"}
    <- {"t": "asset", "id", "rid", "op", "args"}          an asset helper (wmill.write_s3_file, ...)
    => {"rid", "ok", "value"?, "error"?}                    its answer, on fd 5
    <- {"t": "turn", "id", "seq", "calls": [{"cid", "op", ...}]}   the loop went idle
    <- {"t": "step_done", "id", "cid", "ok", "value"?, "error"?}
    <- {"t": "done", "id", "ok", "value"?, "error"?}
    <- {"t": "log", "id", "level", "text"}

The engine keeps keys, checkpoints, replay and suspension: a workflow's durable calls are
forwarded to the worker's workflows-as-code host in call order, and every call made before
this event loop goes idle travels in one ``turn`` message (one suspend for a ``gather``).

Sluice fails a task past its timeout itself (TASK_TIMEOUT) and drops it here; this process stops
its code, as the worker protocol's does (``_wac_watchdog``): a sync task (or a script's sync
``main`` called with a timeout) runs on a thread of its own, stopped when it is dropped or its timeout passes, and a watchdog thread stops
an async one that blocks this event loop past its timeout (where the ``drop`` cannot be read).
"""
import asyncio
import concurrent.futures
import contextvars
import inspect
import json
import os
import re
import sys
import threading
import time
import traceback
import types

from . import _runtime
from ._modules import PinnedModules, read_companions
from ._wac_watchdog import TaskStopped, Watchdog, stop_thread
from .client import SluiceError, TaskError, error_fields

_write_lock = threading.Lock()
_HOST_FILE = os.path.abspath(__file__)
_OUT_FD = 4
_IN_FD = 3
_ANSWER_FD = 5


def send(msg):
    data = (json.dumps(msg, default=_json_default, allow_nan=False) + "\n").encode()
    with _write_lock:
        view = memoryview(data)
        while view:
            n = os.write(_OUT_FD, view)
            view = view[n:]


def _json_default(value):
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def error_of(err):
    out = error_fields(err)
    # The user's frames only: the host's own frames say nothing about the error.
    frames = [f for f in traceback.extract_tb(err.__traceback__) if os.path.abspath(f.filename) != _HOST_FILE]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames)]
    out["traceback"] = "".join(lines + traceback.format_exception_only(type(err), err))
    return out


def not_json(what, err, verb="is"):
    """The error of a value that is not plain JSON (a TypeError with code ``INVALID_PAYLOAD``,
    as TypeScript's ``InvalidPayloadError``)."""
    out = TypeError(
        f"{what} {verb} not JSON-serialisable ({err}): keep payloads and results to plain JSON data "
        "(dict, list, str, int, float, bool, None; e.g. list(a_set), a_datetime.isoformat())"
    )
    out.code = "INVALID_PAYLOAD"
    return out


def result_what(run_id, fn=None):
    """How a run's result is named in its error: ``result of run …`` (``of task 'f' (run …)``)."""
    return f"result of task {fn!r} (run {run_id})" if fn else f"result of run {run_id}"


def step_what(name):
    return f"value of step {json.dumps(name)}" if name is not None else "value of a step"


def encode_value(value, what="the result"):
    """The value, checked to be plain JSON, as the engine stores it and as TypeScript checks
    (``core/serde.ts``): a set, a datetime or NaN fails here with a clear message, on both hosts
    alike, instead of being converted on one and refused by the other."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as err:
        raise not_json(what, err) from None
    return value


class _LogRouter:
    """``sys.stdout``/``sys.stderr``: lines printed by a run become that run's log lines."""

    def __init__(self, level, fallback):
        self.level = level
        self.fallback = fallback
        self.buffers = {}
        self.lock = threading.Lock()

    def write(self, text):
        ex = _runtime.current.get()
        if ex is None:
            return self.fallback.write(text)
        with self.lock:
            buf = self.buffers.get(ex.id, "") + text
            *lines, rest = buf.split("\n")
            self.buffers[ex.id] = rest
        for line in lines:
            send({"t": "log", "id": ex.id, "level": self.level, "text": line})
        return len(text)

    def flush_run(self, run_id):
        with self.lock:
            rest = self.buffers.pop(run_id, "")
        if rest:
            send({"t": "log", "id": run_id, "level": self.level, "text": rest})

    def flush(self):
        self.fallback.flush()

    def isatty(self):
        return False

    @property
    def encoding(self):
        return "utf-8"


class Execution:
    """One run (workflow, task or script) the host is executing for Sluice."""

    def __init__(self, host, run_id, kind):
        self.host = host
        self.id = run_id
        self.kind = kind
        self.seq = 0
        self.calls = []
        self.futures = {}
        self.bodies = {}
        # A step body's own exception, by call: the workflow gets it back as itself (not a
        # SluiceError carrying its message), as on the worker protocol host and in Windmill.
        self.body_errors = {}
        self.step_names = {}  # a step call's name, by call (its value's error names it)
        self.next_cid = 0
        self.task = None
        self.trace = None
        # A task's timeout: when it passes (time.monotonic()), None without one; set once Sluice
        # or the watchdog ends the run for it. ``thread``: the thread of its own a sync task with a
        # timeout runs on, guarded by ``thread_lock`` (``stop_thread``).
        self.deadline = None
        self.timed_out = False
        self.thread = None
        self.thread_lock = threading.Lock()

    def has_deadline(self):
        """True for a run with a timeout (its sync code runs on a thread of its own, to be stopped)."""
        return self.deadline is not None

    def overdue(self, grace):
        """True once the timeout has passed by ``grace`` seconds and the run is not ended yet."""
        return self.deadline is not None and not self.timed_out and time.monotonic() >= self.deadline + grace

    def log(self, level, text, force=False):
        """A log line of the run (from any thread)."""
        send({"t": "log", "id": self.id, "level": level, "text": text})

    def call(self, op, fields, body=None):
        """Registers a durable call; returns the future its result resolves."""
        if threading.current_thread() is not threading.main_thread():
            raise SluiceError(f"wmill {op} calls must be made from the workflow's event loop, not a thread")
        try:
            json.dumps(fields, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as err:
            raise not_json(f"the arguments of this {op} call", err, "are") from None
        cid = self.next_cid
        self.next_cid += 1
        fut = self.host.loop.create_future()
        self.futures[cid] = fut
        if body is not None:
            self.bodies[cid] = body
            self.step_names[cid] = fields.get("name")
        self.calls.append({"cid": cid, "op": op, **fields})
        self.host.mark(self)
        return fut

    def asset_call(self, op, args):
        """An asset helper of this run (``wmill.write_s3_file``, ...): waits for Sluice's answer."""
        return _answers.call(self.id, op, args)

    def resolve(self, result):
        fut = self.futures.pop(result["cid"], None)
        self.bodies.pop(result["cid"], None)
        self.step_names.pop(result["cid"], None)
        raised = self.body_errors.pop(result["cid"], None)
        if fut is None or fut.done():
            return
        if not result.get("ok") and raised is not None:
            fut.set_exception(raised)
            fut.add_done_callback(lambda f: f.exception())
            return
        if result.get("ok"):
            fut.set_result(result.get("value"))
            return
        err = result.get("error") or {}
        task = err.get("task")
        if task is not None:
            fut.set_exception(
                TaskError(err.get("message", "task failed"), task.get("step_key"), task.get("child_job_id"), task.get("result"))
            )
        else:
            fut.set_exception(SluiceError(err.get("message", "failed"), err.get("code", "SLUICE_ERROR")))
        # A failed call nobody awaits must not print "exception was never retrieved".
        fut.add_done_callback(lambda f: f.exception())


class _AssetAnswers:
    """Asset calls wait for their answer on fd 5, read by a thread of its own: a call made
    from the event loop's thread (sync helper in async code) or from a task's thread both
    block only themselves, never the loop that reads Sluice's other messages."""

    def __init__(self):
        self.lock = threading.Lock()
        self.next = 0
        self.waiting = {}

    def call(self, run_id, op, args):
        done = threading.Event()
        box = {}
        with self.lock:
            rid = self.next
            self.next += 1
            self.waiting[rid] = (done, box)
        try:
            send({"t": "asset", "id": run_id, "rid": rid, "op": op, "args": args})
        except BaseException:
            with self.lock:
                self.waiting.pop(rid, None)
            raise
        done.wait()
        answer = box["answer"]
        if answer.get("ok"):
            return answer.get("value")
        err = answer.get("error") or {}
        raise SluiceError(err.get("message", "asset call failed"), err.get("code", "ASSET_CALL_FAILED"))

    def read_forever(self):
        """Reads the answers on fd 5 (one JSON line each) and wakes the call each one answers;
        ends the process when Sluice closes the pipe."""
        parts = []  # the unfinished line, in pieces (a large object's answer spans many reads)
        while True:
            chunk = os.read(_ANSWER_FD, 1 << 20)
            if not chunk:
                # Sluice is gone: nothing will answer.
                os._exit(0)
            parts.append(chunk)
            if b"\n" not in chunk:
                continue
            lines = b"".join(parts).split(b"\n")
            parts = [lines.pop()]
            for line in lines:
                if not line.strip():
                    continue
                answer = json.loads(line)
                with self.lock:
                    waiter = self.waiting.pop(answer.get("rid"), None)
                if waiter is not None:
                    waiter[1]["answer"] = answer
                    waiter[0].set()


_answers = _AssetAnswers()


class Host:
    def __init__(self, loop):
        self.loop = loop
        self.execs = {}
        self.dirty = set()
        self.check_scheduled = False
        self.modules = {}
        self.partial = b""
        self.stdout = _LogRouter("info", sys.stdout)
        self.stderr = _LogRouter("error", sys.stderr)
        # Ending a run for its timeout happens once, on the loop or on the watchdog's thread.
        self.end_lock = threading.Lock()

    # -- idle detection ---------------------------------------------------------------

    def mark(self, ex):
        self.dirty.add(ex)
        if not self.check_scheduled:
            self.check_scheduled = True
            self.spins = 0
            self.loop.call_soon(self.idle_check)

    def idle_check(self):
        # Report once nothing else is runnable: every call of this turn has been made.
        ready = getattr(self.loop, "_ready", None)
        if ready is not None and len(ready) > 0 and self.spins < 10000:
            self.spins += 1
            self.loop.call_soon(self.idle_check)
            return
        self.check_scheduled = False
        dirty, self.dirty = self.dirty, set()
        for ex in dirty:
            self.turn(ex)

    def turn(self, ex):
        """Reports the calls `ex` made in the turn that just ended (the protocol host answers them itself)."""
        if self.execs.get(ex.id) is not ex:
            return
        calls, ex.calls = ex.calls, []
        send({"t": "turn", "id": ex.id, "seq": ex.seq, "calls": calls})

    # -- messages ----------------------------------------------------------------------

    def on_readable(self):
        try:
            chunk = os.read(_IN_FD, 1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            # Sluice is gone: nothing can be written for any run any more.
            os._exit(0)
        lines = (self.partial + chunk).split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            if line.strip():
                self.dispatch(json.loads(line))

    def dispatch(self, msg):
        t = msg["t"]
        if t == "start":
            self.start(msg)
            return
        ex = self.execs.get(msg["id"])
        if ex is None:
            return
        if t == "drop":
            self.drop(ex)
            return
        ex.seq = max(ex.seq, msg.get("seq", 0))
        if t == "resolve":
            for r in msg["results"]:
                ex.resolve(r)
        elif t == "step_body":
            self.run_body(ex, msg["cid"])
        self.mark(ex)

    def drop(self, ex):
        self.execs.pop(ex.id, None)
        self.dirty.discard(ex)
        if ex.task is not None and not ex.task.done():
            ex.task.cancel()
        # Sluice ended the run (its timeout, a lost lease): a sync task's own thread stops too.
        stop_thread(ex)

    def expire(self, ex, off_loop=False):
        """The watchdog found ``ex`` past its timeout while the loop could not read Sluice's ``drop``
        (code blocking it): Sluice has failed the run (TASK_TIMEOUT); its code is stopped here and
        whatever it returns is dropped. True if this call ended it."""
        with self.end_lock:
            if ex.timed_out or self.execs.get(ex.id) is not ex:
                return False
            ex.timed_out = True
        stop_thread(ex)
        return True

    def start(self, msg):
        ex = Execution(self, msg["id"], msg["kind"])
        ex.seq = msg.get("seq", 0)
        if msg.get("timeLeftMs") is not None:
            ex.deadline = time.monotonic() + msg["timeLeftMs"] / 1000
        if msg.get("traceparent"):
            ex.trace = {"traceparent": msg["traceparent"], "tracestate": msg.get("tracestate")}
        self.execs[ex.id] = ex
        token = _runtime.current.set(ex)
        try:
            ex.task = self.loop.create_task(self.run(ex, msg))
        finally:
            _runtime.current.reset(token)
        self.mark(ex)

    async def run(self, ex, msg):
        try:
            value = await self.invoke(ex, msg)
            out = {"t": "done", "id": ex.id, "ok": True, "value": encode_value(value, result_what(ex.id.split(":")[0], msg.get("fn")))}
        except asyncio.CancelledError:
            return
        except BaseException as err:  # noqa: BLE001 - every error of user code is the run's error
            out = {"t": "done", "id": ex.id, "ok": False, "error": error_of(err)}
        self.stdout.flush_run(ex.id)
        self.stderr.flush_run(ex.id)
        if self.execs.get(ex.id) is ex:
            self.execs.pop(ex.id, None)
            self.dirty.discard(ex)
            if not ex.timed_out:  # else Sluice has failed it for its timeout already
                send(out)

    async def invoke(self, ex, msg):
        module = self.load(msg)
        args = msg.get("args")
        pos, kw = (args, {}) if isinstance(args, list) else ([], args or {})
        if ex.kind == "task":
            fn = getattr(module, msg["fn"], None)
            fn = getattr(fn, "fn", fn)
            if not callable(fn):
                raise SluiceError(
                    f"{msg['file']} has no top-level @task function {msg['fn']!r} for this task: define it at the top level of the module",
                    "TASK_FUNCTION_MISSING",
                )
        else:
            fn = getattr(module, "main", None)
            fn = getattr(fn, "fn", fn)
            if not callable(fn):
                raise SluiceError(f"{msg['file']} has no main function", "MAIN_MISSING")
        if inspect.iscoroutinefunction(fn):
            return await fn(*pos, **kw)
        if ex.has_deadline():  # a task, or a script or flow called with a timeout
            result = await self.on_own_thread(ex, fn, pos, kw)
        else:
            result = await asyncio.to_thread(fn, *pos, **kw)
        if inspect.isawaitable(result):
            result = await result
        return result

    async def on_own_thread(self, ex, fn, pos, kw):
        """Runs a sync task (or script ``main``) with a timeout on a thread of its own, which ``stop_thread`` can stop
        (the pool's threads are shared, this one is not)."""
        done = self.loop.create_future()
        context = contextvars.copy_context()

        def settle(ok, value):
            if not done.done():
                done.set_result(value) if ok else done.set_exception(value)

        def target():
            try:
                with ex.thread_lock:
                    ex.thread = threading.get_ident()
                try:
                    value, ok = context.run(fn, *pos, **kw), True
                except BaseException as err:  # noqa: BLE001 - the task's error, or its stop
                    value, ok = err, False
                finally:
                    with ex.thread_lock:
                        ex.thread = None
                self.loop.call_soon_threadsafe(settle, ok, value)
            except TaskStopped:
                pass  # stopped just as it ended: the run is over either way
            except RuntimeError:
                pass  # the loop is closed: this process is ending

        threading.Thread(target=target, name=f"sluice-task-{ex.id}", daemon=True).start()
        return await done

    def run_body(self, ex, cid):
        body = ex.bodies.get(cid)

        async def go():
            try:
                value = body()
                if inspect.isawaitable(value):
                    value = await value
                out = {"t": "step_done", "id": ex.id, "cid": cid, "ok": True,
                       "value": encode_value(value, step_what(ex.step_names.get(cid)))}
            except asyncio.CancelledError:
                return
            except BaseException as err:  # noqa: BLE001
                ex.body_errors[cid] = err
                out = {"t": "step_done", "id": ex.id, "cid": cid, "ok": False, "error": error_of(err)}
            self.stdout.flush_run(ex.id)
            if self.execs.get(ex.id) is ex:
                send(out)
                self.mark(ex)

        if body is None:
            send({"t": "step_done", "id": ex.id, "cid": cid, "ok": False, "error": {"message": "unknown step body"}})
            return
        token = _runtime.current.set(ex)
        try:
            self.loop.create_task(go())
        finally:
            _runtime.current.reset(token)

    def load(self, msg):
        """The module of a code version: compiled once from the source Sluice sends with the first
        run of that version (runs stay on the version they started with, whatever the file holds now)."""
        file, version = msg["file"], msg.get("version")
        if version is None:
            return import_file(file)
        module = self.modules.get(version)
        if module is not None:
            return module
        source = msg.get("source")
        if source is None:
            raise SluiceError(f"code version {version} of {file} was not sent to this Python process", "CODE_VERSION_MISSING")
        module = import_source(file, source, version, msg.get("modules"))
        self.modules[version] = module
        return module


def module_name(file):
    return "sluice_user_" + re.sub(r"\W", "_", os.path.abspath(file))


def import_file(file):
    """Imports the file at ``file`` as a fresh module (its folder on ``sys.path``, its ``__mod/``
    modules read from disk now)."""
    with open(file, encoding="utf-8") as f:
        source = f.read()
    return import_source(file, source, None, read_companions(file))


def import_source(file, source, version, modules=None):
    """Runs ``source`` as a fresh module whose ``__file__`` is ``file`` (tracebacks name its lines);
    ``modules`` are its ``__mod/`` companions at the same version (``{relative path: source}``)."""
    folder = os.path.dirname(os.path.abspath(file))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = module_name(file) if version is None else f"{module_name(file)}_{version[:16]}"
    module = types.ModuleType(name)
    module.__file__ = file
    PinnedModules(file, modules).globals_for(module)
    sys.modules[name] = module
    try:
        exec(compile(source, file, "exec"), module.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def main():
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    # Sync tasks and scripts run in threads: allow many at once (the default is cores + 4).
    loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(max_workers=64, thread_name_prefix="sluice-task"))
    host = Host(loop)
    sys.stdout = host.stdout
    sys.stderr = host.stderr
    threading.Thread(target=_answers.read_forever, name="sluice-asset-answers", daemon=True).start()
    Watchdog(host, who="sluice python host").start()
    os.set_blocking(_IN_FD, False)
    loop.add_reader(_IN_FD, host.on_readable)
    send({"t": "ready", "pid": os.getpid()})
    loop.run_forever()


if __name__ == "__main__":
    main()
