"""Errors of Sluice's ``wmill`` workflows-as-code API (``from wmill.client import TaskError``)."""


class SluiceError(Exception):
    """An error reported by Sluice; ``code`` is stable (e.g. ``NON_DETERMINISM``)."""

    def __init__(self, message, code="SLUICE_ERROR"):
        super().__init__(message)
        self.message = message
        self.code = code


class TaskError(Exception):
    """A child task failed. Raised where the workflow awaits the task, the same way on every replay.

    Attributes:
        message: the child's error message.
        step_key: checkpoint key of the failed step (``risky_operation``, ``risky_operation#2``...).
        child_job_id: run id of the failed child.
        result: the child's error as stored (``{"name", "message", ...}``).
    """

    def __init__(self, message, step_key=None, child_job_id=None, result=None):
        super().__init__(message)
        self.message = message
        self.step_key = step_key
        self.child_job_id = child_job_id
        self.result = result

    def __str__(self):
        return self.message


class NotInWorkflowError(SluiceError):
    """A workflow primitive was used outside a ``@workflow`` run."""

    def __init__(self, what):
        super().__init__(
            f"{what} can only be called while a workflow runs: decorate main with @workflow and run it with sluice",
            "NOT_IN_WORKFLOW",
        )


def error_fields(err):
    """``{"name", "message", "code"?}`` of an exception, as a run's error. Never raises: an
    exception whose ``__str__`` (or ``code``) fails still ends its run, with a message saying so."""
    name = type(err).__name__
    try:
        message = str(err)
    except Exception as e:  # noqa: BLE001 - user code's __str__ may raise anything
        message = f"{name} (its message could not be read: str() raised {type(e).__name__})"
    out = {"name": name, "message": message or name}
    try:
        code = getattr(err, "code", None)
    except Exception:  # noqa: BLE001 - a property that raises
        code = None
    if isinstance(code, str):
        out["code"] = code
    return out
