"""One claim of a seed-000 Python run (workflow, task or script) on the worker protocol.

The workflow's ``wmill`` calls are collected as in the stdio host (``_host.Execution.call``:
one future each, reported when the event loop goes idle); here they are answered from the
claim's journal by the rules of docs/PROTOCOL.md ("What an SDK must do") and of the built-in
engine's workflows-as-code host (``src/worker/wac-host.ts``): keys ``name``, ``name#2``…,
positions from 0, a recorded call of another kind or target is non-determinism, a child's
error is a ``TaskError`` built from the journal (the same on every replay). Calls that cannot
be answered (a new child, a pending sleep or approval) are deferred; once the loop is idle with
nothing in flight (no step body running, no checkpoint unanswered), every deferred call is
written by one park: the calls of one ``asyncio.gather`` are one suspend.
"""
import json
import math
import re
import sys
import threading
import time

from . import _host
from .worker._log_buffer import LogBuffer, lost_note
from .client import SluiceError, TaskError

#: Key of ``wait_for_approval`` calls (as the engine and the diagram name them).
APPROVAL_KEY = "waitForApproval"
#: Attempts of a task child (its own errors are final; the attempts cover a lost worker).
TASK_ATTEMPTS = 3


def key_of(name, n):
    return name if n == 1 else f"{name}#{n}"


def describe(kind, target):
    return f"{kind} {json.dumps(target)}" if target else kind


def nondeterminism(key, position, recorded, requested):
    """The engine's NON_DETERMINISM error (same message as ``NonDeterminismError`` in TypeScript)."""
    err = SluiceError(
        f"non-deterministic replay at checkpoint {json.dumps(key)} (call #{position + 1}): the history recorded "
        f"{recorded} but the code now calls {requested}. Keep step names stable and move Date.now()/Math.random()/"
        "config reads into a step",
        "NON_DETERMINISM",
    )
    return err


class Final(Exception):
    """Wraps an error that fails the run whatever the code does (non-determinism, a bad option)."""

    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def module_script_name(path, from_module):
    """The runnable a ``task_script``/``task_flow`` path names (``worker/script-paths.ts``)."""
    ext = re.compile(r"\.(m?[jt]s|py|sh|sql)$")
    clean = path.strip()
    if clean.startswith("./") or clean.startswith("../"):
        if not from_module:
            return ext.sub("", re.sub(r"^\./", "", clean))
        no_ext = ext.sub("", from_module)
        m = re.match(r"^(.*)__mod/script$", no_ext)
        base = m.group(1) if m else no_ext
        out = []
        for part in f"{base}__mod/{clean}".split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if out:
                    out.pop()
            else:
                out.append(part)
        return ext.sub("", "/".join(out))
    return ext.sub("", re.sub(r"^/+", "", clean))


def _seconds_ms(value, what):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise Final(SluiceError(f"task option {what} must be a positive number of seconds, got {value!r}", "INVALID_INPUT"))
    return max(1, round(value * 1000))


def child_options(options, workflow, task):
    """A task call's options (``@task(timeout=, tag=, …)``) as the protocol's child fields."""
    out = {"maxAttempts": TASK_ATTEMPTS}
    tag = options.get("tag")
    if tag is not None:
        if not isinstance(tag, str) or not tag:
            raise Final(SluiceError(f"task option tag must be a worker group name, got {tag!r}", "INVALID_INPUT"))
        out["group"] = tag
    priority = options.get("priority")
    if priority:
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise Final(SluiceError(f"task option priority must be a whole number, got {priority!r}", "INVALID_INPUT"))
        out["priority"] = priority
    for field, name in (("timeoutMs", "timeout"), ("cacheTtlMs", "cache_ttl")):
        ms = _seconds_ms(options.get(name), name)
        if ms is not None:
            out[field] = ms
    limit = options.get("concurrency_limit")
    if limit:
        conc = {"key": options.get("concurrency_key") or f"{workflow}:{task or ''}", "limit": int(limit)}
        window = _seconds_ms(options.get("concurrency_time_window_s"), "concurrency_time_window_s")
        if window is not None:
            conc["windowMs"] = window
        out["concurrency"] = conc
    return out


class Claim(_host.Execution):
    """The execution of one claim: ``_host.Execution``'s futures, answered from the journal."""

    def __init__(self, host, claim, code):
        super().__init__(host, claim["runId"], code.kind_of(claim))
        self.claim = claim
        self.token = claim["token"]
        self.code = code
        self.received = time.monotonic()
        self.journal = {s["key"]: s for s in claim.get("steps") or []}
        self.counts = {}
        self.position = 0
        self.deferred = {"steps": [], "children": [], "wake": None}
        self.inflight = 0
        self.parking = False  # a park that keeps the claim until answered is under way
        self.child_calls = {}  # a deferred child's key -> (call id, what the code called)
        self.fresh = False
        self.ended = False
        self.logs = LogBuffer()
        self.log_failures = 0  # sends of lines that failed in a row (the next waits longer)
        self.lost = False  # the lease is lost: lines are no longer sent
        self.lost_told = False  # stderr was told so
        self.log_lock = threading.Lock()
        self.log_flush_due = False  # a flush of the buffered lines is scheduled (host.logs_buffered)
        self.logs_sending = 0  # writes of its lines not answered yet
        self.logs_end = None  # while its last lines are sent (host.end_logs): lines logged meanwhile are dropped
        # The claim's trace context: the server's span of this attempt when it records traces,
        # else the run's stored context (docs/PROTOCOL.md); what wmill.trace_context() returns.
        if claim.get("traceparent"):
            self.trace = {"traceparent": claim["traceparent"], "tracestate": claim.get("tracestate")}

    # -- keys and journal -----------------------------------------------------------------

    def has_deadline(self):
        return self.claim.get("deadline") is not None

    def overdue(self, grace):
        """True once the claim's ``deadline`` has passed by ``grace`` seconds and it is not ended."""
        deadline = self.claim.get("deadline")
        return deadline is not None and not self.ended and self.now_ms() >= deadline + grace * 1000

    def now_ms(self):
        """The store's clock: the claim time plus the time elapsed since it arrived."""
        return self.claim["claimedAt"] + int((time.monotonic() - self.received) * 1000)

    def next_call(self, name):
        n = self.counts[name] = self.counts.get(name, 0) + 1
        pos = self.position
        self.position += 1
        return key_of(name, n), pos

    def peek_key(self, name):
        return key_of(name, self.counts.get(name, 0) + 1)

    def lookup(self, key, kind, target, position):
        rec = self.journal.get(key)
        if rec is not None and (rec["kind"] != kind or (rec.get("target") or None) != target):
            raise Final(nondeterminism(key, position, describe(rec["kind"], rec.get("target")), describe(kind, target)))
        return rec

    def defer(self, step=None, child=None, wake=None):
        d = self.deferred
        if step is not None:
            d["steps"].append(step)
        if child is not None:
            d["children"].append(child)
        if wake is not None and (d["wake"] is None or wake < d["wake"]):
            d["wake"] = wake

    def has_deferred(self):
        d = self.deferred
        return bool(d["steps"] or d["children"] or d["wake"] is not None or d.get("await") or d.get("park"))

    # -- answers --------------------------------------------------------------------------

    def answer(self, cid, value):
        fut = self.futures.pop(cid, None)
        self.bodies.pop(cid, None)
        self.step_names.pop(cid, None)
        if fut is not None and not fut.done():
            fut.set_result(value)
            self.fresh = True

    def answer_error(self, cid, err):
        fut = self.futures.pop(cid, None)
        self.bodies.pop(cid, None)
        self.step_names.pop(cid, None)
        if fut is not None and not fut.done():
            fut.set_exception(err)
            fut.add_done_callback(lambda f: f.exception())
            self.fresh = True

    # -- the calls of one turn ------------------------------------------------------------

    def perform(self, call):
        """Answers, defers or starts one call (in Python's call order); a Final error ends the run."""
        op = call["op"]
        cid = call["cid"]
        if op in ("task", "script", "flow"):
            self.task_call(call, cid)
        elif op == "step":
            self.step_call(call, cid)
        elif op == "sleep":
            self.sleep_call(call, cid)
        elif op == "approval":
            self.approval_call(call, cid)
        elif op == "resume_urls":
            self.resume_urls_call(call, cid)
        else:
            raise Final(SluiceError(f"unknown call {op!r} from the wmill SDK", "INVALID_INPUT"))

    def task_call(self, call, cid):
        op = call["op"]
        if op == "task":
            key_base = call["name"]
            workflow, task, label = self.claim["workflow"], call["name"], call["name"]
            payload = call.get("args") or []
        else:
            key_base = call["path"]
            workflow = module_script_name(call["path"], self.code.module_path(self.claim))
            task, label = None, f"{op}:{workflow}"
            payload = call.get("args") or {}
        key, pos = self.next_call(key_base)
        rec = self.lookup(key, "task", label, pos)
        if rec is not None and rec["status"] == "done":
            return self.answer(cid, rec.get("value"))
        if rec is not None and rec["status"] == "error":
            err = rec.get("error") or {}
            return self.answer_error(
                cid, TaskError(err.get("message") or "task failed", key, rec.get("childId"), err or None))
        if rec is not None:
            self.deferred["await"] = True
            return
        child = {"key": key, "position": pos, "payload": payload, "target": label,
                 **child_options(call.get("options") or {}, workflow, task)}
        if task is not None:
            child["task"] = task
        else:
            child["workflow"] = workflow
            self.child_calls[key] = (cid, f"task_{op}({json.dumps(call['path'])})")
        self.defer(child=child)

    def step_call(self, call, cid):
        key, pos = self.next_call(call["name"])
        rec = self.lookup(key, "step", None, pos)
        if rec is not None and rec["status"] == "done":
            return self.answer(cid, rec.get("value"))
        attempts = (rec.get("attempts") or 0) if rec is not None else 0
        self.host.run_step(self, cid, key, pos, attempts + 1)

    def sleep_call(self, call, cid):
        ms = max(1, math.floor(call["seconds"] + 0.5)) * 1000  # JavaScript's Math.round, as the engine
        key, pos = self.next_call("sleep")
        rec = self.lookup(key, "sleep", None, pos)
        if rec is not None and rec["status"] == "done":
            return self.answer(cid, None)
        remaining = ((rec.get("wakeAt") or 0) - self.now_ms()) if rec is not None else ms
        if remaining <= 0:
            step = {"key": key, "kind": "sleep", "status": "done", "position": pos}
            return self.host.checkpoint(self, step, cid, None)
        pending = None if rec is not None else {
            "key": key, "kind": "sleep", "status": "pending", "position": pos, "wakeAfterMs": remaining}
        self.defer(step=pending, wake=remaining)

    def approval_call(self, call, cid):
        timeout = call.get("timeout")
        if timeout is None:
            timeout = 1800
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise Final(SluiceError(
                f"waitForApproval timeout must be a positive number of seconds (at most 1000 years), got {json.dumps(timeout)}",
                "INVALID_INPUT"))
        key, pos = self.next_call(APPROVAL_KEY)
        rec = self.lookup(key, "approval", None, pos)
        if rec is not None and rec["status"] == "done":
            return self.answer(cid, rec.get("value"))
        if rec is not None:
            left = None if rec.get("wakeAt") is None else rec["wakeAt"] - self.now_ms()
            if left is not None and left <= 0:
                timed_out = {"value": None, "approver": None, "approved": False}
                self.log("warn", f'approval "{key}" timed out after {timeout} s')
                step = {"key": key, "kind": "approval", "status": "done", "position": pos, "value": timed_out}
                return self.host.checkpoint(self, step, cid, timed_out)
            if left is None:
                self.deferred["park"] = True  # decided by a person only: parks without a wake time
            else:
                self.defer(wake=left)
            return
        request = {"form": call.get("form"), "selfApproval": call.get("selfApproval", True) is not False, "timeout": timeout}
        wake = round(timeout * 1000)
        self.defer(step={"key": key, "kind": "approval", "status": "pending", "position": pos,
                         "value": request, "wakeAfterMs": wake}, wake=wake)

    def resume_urls_call(self, call, cid):
        body = {"token": self.token, "key": self.peek_key(APPROVAL_KEY)}
        if call.get("approver"):
            body["approver"] = call["approver"]
        self.host.request(self, "resume-urls", body, cid)

    # -- the park ---------------------------------------------------------------------------

    def refused_children(self, error):
        """A park refused with 404 UNKNOWN_WORKFLOW: the deferred children of the workflow it names
        are not started; their calls raise a ``TaskError`` in the workflow (nothing is recorded, so
        a replay asks again, as a step body's exception is not recorded either). False when the
        answer names none of them."""
        m = re.search(r'\bworkflow ("(?:[^"\\]|\\.)*")', error.message or "")
        try:
            name = json.loads(m.group(1)) if m else None
        except ValueError:
            name = None
        d = self.deferred
        hit = [c for c in d["children"] if name is not None and c.get("workflow") == name]
        if not hit:
            return False
        d["children"] = [c for c in d["children"] if c not in hit]
        stored = {"name": "UnknownWorkflowError", "message": error.message, "code": error.code}
        for c in hit:
            cid, what = self.child_calls.pop(c["key"], (None, name))
            if cid is not None:
                self.answer_error(cid, TaskError(f"{what} cannot run: {error.message}", c["key"], None, stored))
        return True

    def park_body(self):
        """The park of every deferred call, and the children to write before it (large fan-outs)."""
        d = self.deferred
        body = {"token": self.token, "wakeAfterMs": d["wake"]}
        if d["steps"]:
            body["steps"] = d["steps"]
        if d["children"] or d.get("await"):
            body["awaitChildren"] = True
        return body, d["children"]

    # -- logs ---------------------------------------------------------------------------------

    def replaying(self):
        """True while the code re-runs calls the journal already holds (as the engine's ``replaying``)."""
        return self.position < len(self.journal)

    def log(self, level, text, force=False):
        """A log line of the run, stamped with the time it was logged (the claim's clock); the
        host sends it within a second of the first buffered line, or at the claim's end. Lines
        printed while replaying were captured by an earlier claim. Any thread may call this."""
        if not force and self.kind == "workflow" and self.replaying():
            return
        line = {"level": level, "message": text, "ts": self.now_ms()}
        with self.log_lock:
            if self.lost:
                told, self.lost_told = self.lost_told, True
                if not told:
                    print(lost_note(self.id), file=sys.__stderr__)
                return
            if self.logs_end is not None:
                return  # its last lines are being sent, its park or finish follows
            self.logs.add(line)
            first, self.log_flush_due = not self.log_flush_due, True
        if first:
            self.host.logs_buffered(self)

    def take_logs(self):
        """The buffered lines and how many were dropped (``LogBuffer.take``)."""
        with self.log_lock:
            self.log_flush_due = False
            return self.logs.take()

    def put_back_logs(self, lines, dropped):
        """Gives back the lines of a send that failed for a reason worth retrying; True when the
        host should schedule a flush (none is due yet)."""
        with self.log_lock:
            self.logs.put_back(lines, dropped)
            first, self.log_flush_due = not self.log_flush_due, True
            self.log_failures += 1
        return first

    def lose(self):
        """The lease is lost: the lines logged from now on are not sent (stderr says so once)."""
        with self.log_lock:
            self.lost = True

    def asset_call(self, op, args):
        return self.host.asset_call(self, op, args)
