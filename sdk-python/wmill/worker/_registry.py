"""The workflows this process serves (``register_workflow``)."""
import threading

_lock = threading.Lock()
_registry = {}


class Definition:
    """A registered workflow: its name, handler and the options sent to the server."""

    def __init__(self, name, handler, group=None, max_attempts=None, backoff=None, schedule=None):
        self.name = name
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
        return out


def register_workflow(name, handler, *, group=None, max_attempts=None, backoff=None, schedule=None):
    """Registers ``handler(ctx, payload)`` as the workflow ``name``; ``run_worker`` serves it.

    ``group``: the worker group (default ``default``); ``max_attempts`` counts the first attempt
    (default 3); ``backoff``: ``(base, max)`` in seconds between run attempts (default 1 s to 1 h);
    ``schedule``: a five-field cron string, fired once per tick by the server.
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
    with _lock:
        if name in _registry:
            raise ValueError(f"sluice: workflow {name!r} is registered twice")
        _registry[name] = Definition(name, handler, group, max_attempts, backoff, schedule)


def registered():
    """The registered workflows, by name."""
    with _lock:
        return [_registry[k] for k in sorted(_registry)]
