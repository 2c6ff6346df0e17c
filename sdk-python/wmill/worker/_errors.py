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
    """A child run failed or was cancelled (``ctx.step.child``). Not caught, it fails the parent
    without retry (a retry would replay the same outcome)."""

    def __init__(self, key, message, code=None):
        super().__init__(f"sluice: child run {key!r} failed: {message}")
        self.key = key
        self.message = message
        self.code = code


class NonDeterminismError(Exception):
    """The journal holds another kind of call at this key than the code asks for now."""

    def __init__(self, key, recorded, requested):
        super().__init__(
            f"sluice: non-determinism at key {key!r}: the journal has a {recorded}, the code now asks "
            f"for a {requested}; change the name of a durable call when you change its kind"
        )
        self.key = key
        self.code = "NON_DETERMINISM"
