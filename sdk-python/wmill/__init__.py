"""Sluice's ``wmill``: Windmill's Python workflows-as-code API on the Sluice engine.

A file under ``f/`` whose ``main`` is decorated with ``@workflow`` is a workflow named by its
path. Each call of a ``@task`` function is a child run with its own logs and attempts; the
workflow replays from its checkpoint and holds no worker while it waits. Standard library only.

    from wmill import task, workflow

    @task
    async def double(n: int):
        return n * 2

    @workflow
    async def main(x: int):
        return await double(x)
"""
import functools
import inspect
import os

from . import _runtime
from ._assets import (
    DataTableClient,
    DuckLakeClient,
    S3Object,
    datatable,
    ducklake,
    get_partition,
    get_resource,
    load_s3_file,
    load_s3_file_reader,
    load_volume_file,
    set_resource,
    volume_path,
    write_s3_file,
    write_volume_file,
)
from .client import NotInWorkflowError, SluiceError, TaskError

__all__ = [
    "workflow",
    "task",
    "task_script",
    "task_flow",
    "step",
    "sleep",
    "wait_for_approval",
    "parallel",
    "get_resume_urls",
    "trace_context",
    "TaskError",
    "SluiceError",
    # Asset helpers (seed 001), for workflows, tasks and scripts alike.
    "write_s3_file",
    "load_s3_file",
    "load_s3_file_reader",
    "get_resource",
    "set_resource",
    "datatable",
    "ducklake",
    "write_volume_file",
    "load_volume_file",
    "volume_path",
    "get_partition",
    "S3Object",
    "DataTableClient",
    "DuckLakeClient",
]

_OPTIONS = (
    "timeout",
    "tag",
    "cache_ttl",
    "priority",
    "concurrency_limit",
    "concurrency_key",
    "concurrency_time_window_s",
)


def _options(given):
    unknown = [k for k in given if k not in _OPTIONS]
    if unknown:
        raise TypeError(f"unknown task option(s) {', '.join(unknown)}: the options are {', '.join(_OPTIONS)}")
    return {k: v for k, v in given.items() if v is not None}


class WorkflowFunction:
    """What ``@workflow`` makes: the orchestration function, recognised by the Sluice loader."""

    _is_workflow = True

    def __init__(self, fn):
        if not callable(fn):
            raise TypeError("@workflow decorates the async function that orchestrates the workflow")
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


def workflow(fn):
    """Marks ``main`` as a workflow entry point; its JSON arguments map to its parameters by name."""
    return WorkflowFunction(fn)


class TaskFunction:
    """What ``@task`` makes: inside a workflow each call is a child run; elsewhere a plain call."""

    _is_task = True

    def __init__(self, fn, path=None, options=None):
        if not callable(fn):
            raise TypeError("@task decorates a function defined at the top level of the workflow's file")
        self.fn = fn
        self.name = fn.__name__
        self.options = options or {}
        self._task_path = path or self.name
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        ex = _runtime.workflow_execution()
        if ex is None:
            # Outside a workflow (inside another task, or plain Python): an ordinary call.
            return self.fn(*args, **kwargs)
        try:
            bound = inspect.signature(self.fn).bind(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"task {self.name}(): {err}") from None
        if bound.kwargs:
            raise TypeError(f"task {self.name}(): keyword-only parameters are not supported, pass them by position")
        return ex.call("task", {"name": self.name, "args": list(bound.args), "options": self.options})

    def __get__(self, obj, objtype=None):
        return self


def task(fn=None, *, path=None, **options):
    """``@task`` or ``@task(path=, timeout=, tag=, cache_ttl=, priority=, concurrency_limit=,
    concurrency_key=, concurrency_time_window_s=)``: each call runs as a separate child run."""
    opts = _options(options)
    if fn is None:
        return lambda f: TaskFunction(f, path, opts)
    return TaskFunction(fn, path, opts)


class _PathTask:
    def __init__(self, kind, path, options):
        if not isinstance(path, str) or not path.strip():
            raise TypeError(f'task_{kind}() needs a path, e.g. "f/data/extract"')
        self.kind = kind
        self.path = path
        self.options = _options(options)
        self._is_task = True
        self._task_path = path

    def __call__(self, **kwargs):
        ex = _runtime.workflow_execution()
        if ex is None:
            raise NotInWorkflowError(f"task_{self.kind}()")
        return ex.call(self.kind, {"path": self.path, "args": kwargs, "options": self.options})


def task_script(path, **options):
    """A task that runs the script at ``path`` (``"f/data/extract"``, or ``"./extract.py"`` in the
    workflow's ``__mod/`` folder) with keyword arguments."""
    return _PathTask("script", path, options)


def task_flow(path, **options):
    """A task that runs the workflow at ``path`` with keyword arguments."""
    return _PathTask("flow", path, options)


def step(name, fn):
    """Runs ``fn`` (sync or async) inline and persists its result; a replay returns the saved value."""
    if not isinstance(name, str) or not name:
        raise TypeError("step() needs a name, e.g. step('timestamp', lambda: time.time())")
    if not callable(fn):
        raise TypeError("step() takes a name and a callable")
    ex = _runtime.workflow_execution()
    if ex is None:
        raise NotInWorkflowError("step()")
    return ex.call("step", {"name": name}, body=fn)


def sleep(seconds):
    """Suspends the workflow server-side (minimum 1 s, rounded); no worker is held meanwhile."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
        raise TypeError(f"sleep() takes a number of seconds, got {seconds!r}")
    ex = _runtime.workflow_execution()
    if ex is None:
        raise NotInWorkflowError("sleep()")
    return ex.call("sleep", {"seconds": seconds})


def wait_for_approval(timeout=1800, form=None, self_approval=True):
    """Suspends until a person approves or rejects (or ``timeout`` seconds pass).
    Returns ``{"value", "approver", "approved"}``."""
    ex = _runtime.workflow_execution()
    if ex is None:
        raise NotInWorkflowError("wait_for_approval()")
    return ex.call("approval", {"timeout": timeout, "form": form, "selfApproval": bool(self_approval)})


def get_resume_urls(approver=None):
    """Awaitable ``{"approvalPage", "resume", "cancel"}`` bound to the next approval wait.
    Call it inside a ``step`` so replays reuse the URLs."""
    ex = _runtime.workflow_execution()
    if ex is None:
        raise NotInWorkflowError("get_resume_urls()")
    return ex.call("resume_urls", {"approver": approver})


async def parallel(items, fn, concurrency=None):
    """Maps ``items`` through ``fn`` with at most ``concurrency`` calls in flight (default: all at
    once); returns the results in input order."""
    import asyncio  # here, not at the top: pipeline scripts import wmill for its asset helpers only

    items = list(items)
    if concurrency is None or concurrency >= len(items):
        return list(await asyncio.gather(*(_awaitable(fn(item)) for item in items)))
    if not isinstance(concurrency, int) or isinstance(concurrency, bool) or concurrency < 1:
        raise TypeError(f"parallel() concurrency must be a whole number >= 1, got {concurrency!r}")
    results = [None] * len(items)
    state = {"next": 0}

    async def lane():
        while state["next"] < len(items):
            i = state["next"]
            state["next"] += 1
            results[i] = await _awaitable(fn(items[i]))

    await asyncio.gather(*(lane() for _ in range(concurrency)))
    return results


async def _awaitable(value):
    if inspect.isawaitable(value):
        return await value
    return value


def trace_context():
    """The W3C trace context of the running claim, to continue its trace in your own telemetry.

    Returns ``{"traceparent": str, "tracestate": str | None}`` inside a workflow, task or
    script that Sluice runs in a traced run (else the ``TRACEPARENT``/``TRACESTATE``
    environment variables Sluice sets for the scripts it starts as subprocesses), or None.
    The SDK emits no telemetry itself; hand this to an OpenTelemetry propagator.
    """
    ex = _runtime.current.get()
    if ex is not None and getattr(ex, "trace", None):
        return dict(ex.trace)
    parent = os.environ.get("TRACEPARENT")
    if parent:
        return {"traceparent": parent, "tracestate": os.environ.get("TRACESTATE")}
    return None
