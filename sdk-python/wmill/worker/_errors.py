"""Errors of the worker-protocol client (docs/PROTOCOL.md).

The control-flow signals (``Parked``, ``LeaseLost``, ``BailError``, ``FailError``) derive from
``BaseException``, like ``asyncio.CancelledError``: an ``except Exception`` in workflow code does
not swallow them, and the execution records them anyway, so the claim ends the right way even if
it does.
"""


class SluiceAPIError(Exception):
    """An error answered by the Sluice server: ``status`` (HTTP), ``code`` (stable), ``message``."""

    def __init__(self, status, code, message):
        super().__init__(f"sluice: {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class UnavailableError(Exception):
    """SLUICE_URL is not set: there is no server to talk to."""

    def __init__(self):
        super().__init__(
            "sluice: SLUICE_URL is not set: run under `sluice dev`/`sluice server`, or set "
            "SLUICE_URL=http://127.0.0.1:7777 (and SLUICE_TOKEN when the server uses tokens)"
        )


class Parked(BaseException):
    """The run is parked until it wakes (a long sleep, a wait, a child run): let it propagate."""

    def __init__(self):
        super().__init__("sluice: the run is parked until it wakes; let this exception propagate")


class LeaseLost(BaseException):
    """The server refused a write of this claim: another claim owns the run now."""

    def __init__(self):
        super().__init__("sluice: lost the lease on the run: another claim owns it now")


class BailError(BaseException):
    """Raised by ``ctx.bail``: the run ends cancelled, without retry."""

    def __init__(self, reason):
        super().__init__(f"sluice: run bailed: {reason}")
        self.reason = reason


class FailError(BaseException):
    """Raised by ``ctx.fail``: the run ends failed ("dead"), without retry."""

    def __init__(self, error):
        super().__init__(f"sluice: run failed: {error}")
        self.error = error


class ChildError(Exception):
    """A child run failed or was cancelled (``ctx.step.child``, ``ctx.step.task``). Not caught, it
    fails the parent without retry (a retry would replay the same outcome).

    Attributes, the same on every replay (they come from the run's journal): ``key`` (alias
    ``step_key``), the child's ``message`` and ``code``, ``child_id`` (alias ``child_job_id``: the
    child run's id) and ``result`` (the child's serialized error: ``name``, ``message``, ``code``…).
    ``TaskError`` is the same class, under seed 000's name."""

    def __init__(self, key, message, code=None, child_id=None, result=None):
        super().__init__(f"sluice: child run {key!r} failed: {message}")
        self.key = key
        self.message = message
        self.code = code
        self.child_id = child_id
        self.result = result

    @property
    def step_key(self):
        return self.key

    @property
    def child_job_id(self):
        return self.child_id

    @classmethod
    def from_journal(cls, key, rec):
        """The error of a journal entry of status ``error``."""
        err = rec.get("error") or {}
        return cls(key, err.get("message") or "the child run failed", err.get("code"), rec.get("childId"), err or None)


TaskError = ChildError


class TaskTimeout(Exception):
    """A task child ran past its ``timeout``: the run fails (code ``TASK_TIMEOUT``)."""

    def __init__(self, timeout_ms):
        super().__init__(f"task timed out after {timeout_ms / 1000:g} s")
        self.code = "TASK_TIMEOUT"


class NonDeterminismError(Exception):
    """The journal holds another call at this key than the code asks for now (another kind, or a
    child of another task or workflow): ``key``, ``position`` (the call's index, from 0)."""

    def __init__(self, key, recorded, requested, position=None):
        where = f" (call #{position + 1})" if position is not None else ""
        super().__init__(
            f"sluice: non-determinism at key {key!r}{where}: the journal has a {recorded}, the code now asks "
            f"for a {requested}; change the name of a durable call when you change what it calls"
        )
        self.key = key
        self.position = position
        self.code = "NON_DETERMINISM"
