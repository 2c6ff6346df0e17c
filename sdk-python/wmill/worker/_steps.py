"""The durable operations of a run (``ctx.step``): run, sleep, wait_for, child.

Each follows docs/PROTOCOL.md, "What an SDK must do": a key per call (``name``, ``name#2``…),
looked up in the claim's journal before anything runs.
"""
import json

from ._errors import ChildError, Parked
from ._execution import backoff_delay


def _jsonable(value, what):
    try:
        json.dumps(value)
    except (TypeError, ValueError) as err:
        raise TypeError(f"sluice: {what} is not JSON-encodable: {err}") from None
    return value


class Steps:
    """``ctx.step``: the run's durable operations."""

    def __init__(self, execution):
        self._e = execution

    def run(self, name, fn, *, retries=0, backoff=(1.0, 60.0), no_retry=False):
        """Runs ``fn()`` once and checkpoints its JSON result under ``name`` (``name#n`` when the
        name repeats); on a later claim the checkpointed value is returned and ``fn`` is not called.
        ``retries``: tries after the first before the error reaches the run, ``backoff``
        (base, max) seconds between them (doubling, ±20 % jitter); ``no_retry``: an error fails
        the run without retry. At least once: a crash after ``fn`` returns but before the
        checkpoint runs it again."""
        e = self._e
        if not name:
            raise e.make_permanent(ValueError("sluice: ctx.step.run needs a stable, non-empty name (the checkpoint key)"))
        key, pos = e.next_key(name)
        rec = e.lookup(key, "step", position=pos)
        if rec is not None and rec["status"] == "done":
            return rec.get("value")
        spent = 0
        if rec is not None:
            spent = rec.get("attempts") or 0
            if rec.get("wakeAt") is not None:
                left = rec["wakeAt"] - e.now_ms()
                if left > e.inline_max * 1000:
                    e.request_park(wake_after_ms=left)
                if left > 0:
                    e.wait(left / 1000)
        started = e.now_ms()
        while True:
            if e.is_lost():
                e.wait(0)
            spent += 1
            try:
                value = fn()
            except (Parked, KeyboardInterrupt, SystemExit):
                raise
            except Exception as err:  # the step body's error: retried, or the run's
                if no_retry:
                    raise e.make_permanent(err)
                if spent > retries:
                    raise
                delay = backoff_delay(backoff[0], backoff[1], spent)
                e.log("warn", f"step {key!r} attempt {spent} failed ({err}); retrying in {round(delay * 1000)} ms", key)
                if delay > e.inline_max:
                    ms = round(delay * 1000)
                    step = {"key": key, "kind": "step", "status": "pending", "position": pos,
                            "attempts": spent, "wakeAfterMs": ms, "startedAt": started}
                    e.request_park(step, ms)
                e.wait(delay)
                continue
            try:
                _jsonable(value, f"the result of step {key!r}")
            except TypeError as err:
                raise e.make_permanent(err) from None
            e.save({"key": key, "kind": "step", "status": "done", "position": pos, "value": value,
                    "attempts": spent, "startedAt": started})
            return value

    def sleep(self, name, seconds):
        """Pauses the run durably for ``seconds`` under ``name``: up to the inline limit in this
        worker, longer by parking the run (it wakes on a later claim). The wake time survives
        worker and server restarts."""
        e = self._e
        key, pos = e.next_key(name)
        rec = e.lookup(key, "sleep", position=pos)
        if rec is not None and rec["status"] == "done":
            return None
        remaining = round(seconds * 1000)
        if rec is not None:
            remaining = rec["wakeAt"] - e.now_ms() if rec.get("wakeAt") is not None else 0
        done = {"key": key, "kind": "sleep", "status": "done", "position": pos}
        if remaining <= 0:
            e.save(done)
            return None
        if remaining <= e.inline_max * 1000:
            if rec is None:
                e.save({"key": key, "kind": "sleep", "status": "pending", "position": pos,
                        "wakeAfterMs": remaining, "startedAt": e.now_ms()})
            e.wait(remaining / 1000)
            e.save(done)
            return None
        if rec is not None:
            e.request_park(wake_after_ms=remaining)
        e.request_park({"key": key, "kind": "sleep", "status": "pending", "position": pos,
                        "wakeAfterMs": remaining}, remaining)

    def wait_for(self, event, timeout=None):
        """Parks the run until a signal named ``event`` arrives and returns its payload; with a
        ``timeout`` (seconds) and no signal by then, returns None."""
        e = self._e
        key, pos = e.next_key(event)
        rec = e.lookup(key, "wait", position=pos)
        if rec is not None and rec["status"] == "done":
            return rec.get("value")
        if rec is not None:
            if rec.get("wakeAt") is None:
                e.request_park()
            left = rec["wakeAt"] - e.now_ms()
            if left > 0:
                e.request_park(wake_after_ms=left)
            e.save({"key": key, "kind": "wait", "status": "done", "position": pos, "value": None, "event": event})
            return None
        wake = round(timeout * 1000) if timeout else None
        step = {"key": key, "kind": "wait", "status": "pending", "position": pos, "event": event}
        if wake is not None:
            step["wakeAfterMs"] = wake
        e.request_park(step, wake)

    def wait_for_approval(self, timeout=1800, form=None, self_approval=True):
        """Parks the run until a person approves or rejects it (the UI's approval page,
        ``sluice approve``, the API), or ``timeout`` seconds pass. Returns
        ``{"value", "approver", "approved"}``: ``approved`` is False when rejected or timed out."""
        e = self._e
        if not (isinstance(timeout, (int, float)) and timeout > 0):
            raise e.make_permanent(ValueError(f"sluice: wait_for_approval needs a positive timeout in seconds, got {timeout!r}"))
        key, pos = e.next_key("waitForApproval")
        rec = e.lookup(key, "approval", position=pos)
        if rec is not None and rec["status"] == "done":
            return rec.get("value")
        if rec is not None:
            if rec.get("wakeAt") is None:
                e.request_park()
            left = rec["wakeAt"] - e.now_ms()
            if left > 0:
                e.request_park(wake_after_ms=left)
            timed_out = {"value": None, "approver": None, "approved": False}
            e.save({"key": key, "kind": "approval", "status": "done", "position": pos, "value": timed_out})
            e.log("warn", f"approval {key!r} timed out after {timeout} s", key)
            return timed_out
        ms = round(timeout * 1000)
        request = {"form": form, "selfApproval": bool(self_approval), "timeout": timeout}
        e.request_park({"key": key, "kind": "approval", "status": "pending", "position": pos,
                        "value": _jsonable(request, "the approval form"), "wakeAfterMs": ms}, ms)

    def get_resume_urls(self, approver=None):
        """The signed links of the run's next ``wait_for_approval`` (seed 000's ``get_resume_urls``):
        ``{"approvalPage", "resume", "cancel"}``, valid 30 days while that wait is pending; with
        ``approver`` only that person may use them. Each call signs new links: call it inside
        ``ctx.step.run`` so a replay returns the links already sent."""
        e = self._e
        key = e.peek_key("waitForApproval")
        body = {"token": e.token, "key": key}
        if approver:
            body["approver"] = approver
        return e.request("resume-urls", body)

    def children(self, calls):
        """Runs several child runs at once. ``calls``: dicts ``{"name", "workflow" | "task",
        "payload"?, "group"?, "max_attempts"?, "concurrency_key"?, "concurrency_limit"?,
        "priority"?, "timeout"?, "cache_ttl"?}`` (``task``: a function registered with this
        workflow's ``tasks``; see ``task``). The first call starts every child not yet started in
        one park; the run is claimed again once all have finished. Returns one item per call, in
        order: the child's result, or a ChildError instance when it failed or was cancelled (like
        ``asyncio.gather(return_exceptions=True)``)."""
        e = self._e
        out, start, waiting = [], [], False
        for call in calls:
            key, pos = e.next_key(call["name"])
            task = call.get("task")
            rec = e.lookup(key, "task", task or call.get("workflow"), pos)
            if rec is not None and rec["status"] == "done":
                out.append(rec.get("value"))
            elif rec is not None and rec["status"] == "error":
                out.append(ChildError.from_journal(key, rec))
            elif rec is not None:
                waiting = True
            else:
                opts = {k: call.get(k) for k in _CHILD_OPTIONS}
                start.append(self._write(key, pos, call.get("workflow"), task, call.get("payload"), opts))
        if not start and not waiting:
            return out
        e.request_park(children=start, await_children=True)

    def child(self, name, workflow, payload=None, *, group=None, max_attempts=None,
              concurrency_key=None, concurrency_limit=None, priority=None, timeout=None, cache_ttl=None):
        """Runs the registered workflow ``workflow`` (any worker's) with ``payload`` as a child
        run under ``name`` and returns its result; raises ChildError when it failed or was
        cancelled (uncaught, that fails this run without retry). The first call parks the run
        until the child has finished. Options: see ``task``."""
        return self._one(name, workflow, None, payload, dict(
            group=group, max_attempts=max_attempts, concurrency_key=concurrency_key,
            concurrency_limit=concurrency_limit, priority=priority, timeout=timeout, cache_ttl=cache_ttl))

    def task(self, name, task, payload=None, *, group=None, max_attempts=None,
             concurrency_key=None, concurrency_limit=None, priority=None, timeout=None, cache_ttl=None):
        """Runs the function ``task`` of this run's own workflow (registered with
        ``register_workflow(…, tasks=[…])``) as a child run under ``name``, pinned to this run's
        code version, and returns its result; raises ChildError (``TaskError``, with ``child_id``
        and the child's serialized error as ``result``) when it failed. ``priority``: higher is
        claimed first; ``timeout`` (seconds): the task fails once it has run that long;
        ``cache_ttl`` (seconds): a run of the same task and payload that succeeded within that
        long answers the call at once, without a new child."""
        return self._one(name, None, task, payload, dict(
            group=group, max_attempts=max_attempts, concurrency_key=concurrency_key,
            concurrency_limit=concurrency_limit, priority=priority, timeout=timeout, cache_ttl=cache_ttl))

    def _one(self, name, workflow, task, payload, opts):
        e = self._e
        key, pos = e.next_key(name)
        rec = e.lookup(key, "task", task or workflow, pos)
        if rec is not None and rec["status"] == "done":
            return rec.get("value")
        if rec is not None and rec["status"] == "error":
            raise e.make_permanent(ChildError.from_journal(key, rec))
        if rec is not None:
            e.request_park(await_children=True)
        e.request_park(children=[self._write(key, pos, workflow, task, payload, opts)], await_children=True)

    def _write(self, key, pos, workflow, task, payload, opts):
        """The park's entry for a new child; a bad option fails the run without retry."""
        try:
            return _child_write(key, pos, workflow, task, payload, **opts)
        except (TypeError, ValueError) as err:
            raise self._e.make_permanent(err) from None


_CHILD_OPTIONS = ("group", "max_attempts", "concurrency_key", "concurrency_limit", "priority", "timeout", "cache_ttl")


def _ms(seconds, what, key):
    if seconds is None:
        return None
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds <= 0:
        raise ValueError(f"sluice: child {key!r}: {what} must be a positive number of seconds, got {seconds!r}")
    return max(1, round(seconds * 1000))


def _child_write(key, pos, workflow, task, payload, group=None, max_attempts=None, concurrency_key=None,
                 concurrency_limit=None, priority=None, timeout=None, cache_ttl=None):
    if not workflow and not task:
        raise ValueError(f"sluice: child {key!r} needs a workflow or a task")
    c = {"key": key, "position": pos, "payload": _jsonable(payload, f"the payload of child {key!r}")}
    if workflow:
        c["workflow"] = workflow
    if task:
        c["task"] = task
    if group:
        c["group"] = group
    if max_attempts:
        c["maxAttempts"] = max_attempts
    if concurrency_key and concurrency_limit:
        c["concurrency"] = {"key": concurrency_key, "limit": concurrency_limit}
    if priority:
        c["priority"] = int(priority)
    for field, value, what in (("timeoutMs", timeout, "timeout"), ("cacheTtlMs", cache_ttl, "cache_ttl")):
        ms = _ms(value, what, key)
        if ms is not None:
            c[field] = ms
    return c
