"""The workflows this process serves (``register_workflow``)."""
import threading

_lock = threading.Lock()
_registry = {}


class Definition:
    """A registered workflow: its name, handler and the options sent to the server."""

    def __init__(self, name, handler, group=None, max_attempts=None, backoff=None, schedule=None, tasks=None,
                 version=None):
        self.name = name
        self.tasks = tasks or {}
        self.version = version
        self.handler = handler
        self.group = group
        self.max_attempts = max_attempts
        self.backoff = backoff
        self.schedule = schedule

    def to_json(self):
        out = {"name": self.name}
        if self.group:
            out["group"] = self.group
        if self.max_attempts:
            out["maxAttempts"] = self.max_attempts
        if self.backoff:
            base, top = self.backoff
            out["backoff"] = {"base": round(base * 1000), "max": round(top * 1000)}
        if self.schedule:
            out["schedule"] = self.schedule
        if self.version:
            out["version"] = self.version
        return out


def _task_table(name, tasks):
    if tasks is None:
        return {}
    items = tasks.items() if isinstance(tasks, dict) else ((getattr(f, "__name__", None), f) for f in tasks)
    table = {}
    for task, fn in items:
        if not task or not isinstance(task, str) or not callable(fn):
            raise TypeError(f"sluice: register_workflow({name!r}): tasks are named functions fn(ctx, payload), "
                            f"as a list or a dict of name -> function; got {task!r}: {fn!r}")
        if task in table:
            raise ValueError(f"sluice: register_workflow({name!r}): task {task!r} is given twice")
        table[task] = fn
    return table


def register_workflow(name, handler, *, group=None, max_attempts=None, backoff=None, schedule=None, tasks=None,
                      version=None):
    """Registers ``handler(ctx, payload)`` as the workflow ``name``; ``run_worker`` serves it.

    ``group``: the worker group (default ``default``); ``max_attempts`` counts the first attempt
    (default 3); ``backoff``: ``(base, max)`` in seconds between run attempts (default 1 s to 1 h);
    ``schedule``: a five-field cron string, fired once per tick by the server;
    ``tasks``: functions ``fn(ctx, payload)`` (a list, named by ``__name__``, or a dict) that
    ``ctx.step.task(name, "fn", payload)`` runs as child runs of this workflow (a task's error
    fails its run without retry, as in workflows as code);
    ``version``: this code's version (a build or commit id; every workflow of a worker names the
    same one): the worker claims only runs not yet pinned or pinned to it, pins the ones it
    claims, and their tasks run on their parent's version. A run pinned to a version no worker
    runs any more waits until one does.
    The handler's return value (JSON-encodable) is the run's result.
    """
    if not name or not isinstance(name, str):
        raise ValueError("sluice: register_workflow needs a non-empty name")
    if not callable(handler):
        raise TypeError(f"sluice: register_workflow({name!r}) needs a callable handler(ctx, payload)")
    if max_attempts is not None and max_attempts < 1:
        raise ValueError(f"sluice: register_workflow({name!r}): max_attempts must be at least 1")
    if backoff is not None and (len(backoff) != 2 or backoff[0] <= 0 or backoff[1] < backoff[0]):
        raise ValueError(f"sluice: register_workflow({name!r}): backoff is (base, max) in seconds, 0 < base <= max")
    table = _task_table(name, tasks)
    with _lock:
        if name in _registry:
            raise ValueError(f"sluice: workflow {name!r} is registered twice")
        _registry[name] = Definition(name, handler, group, max_attempts, backoff, schedule, table, version)


def registered():
    """The registered workflows, by name."""
    with _lock:
        return [_registry[k] for k in sorted(_registry)]
